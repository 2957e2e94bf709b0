"""Storing one uploaded block (device-runner/contract/README.md): the run locked under its
lease, the samples checked against its arms, the block recorded and its samples inserted —
in one transaction, so a block is either wholly stored or not at all."""

import json
from collections.abc import Callable
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.db import connection, transaction
from django.utils import timezone

from apps.comparisons.leases import lease_check
from apps.comparisons.models import Run
from apps.core.errors import Conflict
from apps.devices.models import Runner

from .block_repeat import repeat_check
from .store import samples_insert

# Sent as one query (two statements, one round trip): the run locked where its device or
# its last device is this runner's, with its arm labels and ids, then the block recorded.
#
# The record is a separate statement, so it reads the block records as they are once the run's
# lock is held (under READ COMMITTED each statement sees what was committed before it began),
# including a block that a concurrent upload committed while this one waited for the lock. It
# inserts the block's RunBlock row and moves the run's progress only while this runner holds
# the lease the batch names (the conditions block_store then checks in Python and turns into a
# 409, which rolls the record back with the rest of the transaction anyway). ON CONFLICT makes a
# repeated block insert nothing and return no row, and so does a batch_seq the run already used
# for another block (block_repeat tells the two apart); next_block is the first block without a
# RunBlock, this one included (a data-modifying CTE's row isn't visible to the UPDATE).
_LOCK_AND_RECORD = """
SELECT run.id, run.comparison_id, run.status, run.attempt, run.blocks_total, run.next_block, run.lease_token,
       run.lease_expires_at,
       ARRAY(SELECT arm.label FROM comparisons_arm AS arm WHERE arm.comparison_id = run.comparison_id
             ORDER BY arm.position),
       ARRAY(SELECT arm.id FROM comparisons_arm AS arm WHERE arm.comparison_id = run.comparison_id
             ORDER BY arm.position)
FROM comparisons_run AS run
LEFT JOIN devices_device AS device ON device.id = run.device_id
LEFT JOIN devices_device AS last_device ON last_device.id = run.last_device_id
WHERE run.id = %(run)s AND (device.runner_id = %(runner)s OR last_device.runner_id = %(runner)s)
FOR UPDATE OF run;

WITH held AS (
    SELECT run.id, run.attempt FROM comparisons_run AS run
    LEFT JOIN devices_device AS device ON device.id = run.device_id
    LEFT JOIN devices_device AS last_device ON last_device.id = run.last_device_id
    WHERE run.id = %(run)s AND (device.runner_id = %(runner)s OR last_device.runner_id = %(runner)s)
      AND run.status = %(leased)s AND run.lease_token = %(lease_token)s
      AND (run.lease_expires_at IS NULL OR run.lease_expires_at >= %(now)s)
      AND run.attempt = %(attempt)s AND %(block)s < run.blocks_total
), stored AS (
    INSERT INTO comparisons_runblock (run_id, block, attempt, batch_seq, baseline, sample_count, stored_at)
    SELECT held.id, %(block)s, held.attempt, %(batch_seq)s, %(baseline)s::jsonb, %(count)s, %(now)s FROM held
    WHERE NOT EXISTS (SELECT 1 FROM comparisons_runblock AS used
                      WHERE used.run_id = %(run)s AND used.batch_seq = %(batch_seq)s)
    ON CONFLICT (run_id, block) DO NOTHING
    RETURNING block
)
UPDATE comparisons_run SET
    next_block = COALESCE((SELECT min(b) FROM generate_series(0, comparisons_run.blocks_total - 1) AS b
                           WHERE b <> %(block)s AND NOT EXISTS (
                               SELECT 1 FROM comparisons_runblock AS done
                               WHERE done.run_id = comparisons_run.id AND done.block = b)),
                          comparisons_run.blocks_total),
    lease_expires_at = %(expires)s,
    updated_at = %(now)s
WHERE id = %(run)s AND EXISTS (SELECT 1 FROM stored)
RETURNING next_block
"""
_RUN_FIELDS = ("id", "comparison_id", "status", "attempt", "blocks_total", "next_block", "lease_token",
               "lease_expires_at")


@transaction.atomic
def block_store(*, runner: Runner, run_id: str, batch: dict[str, Any],
                samples_check: Callable[[set[str]], None] | None = None) -> dict[str, Any]:
    """Store one block's samples and baseline atomically; a repeated block is a no-op.

    One query locks the run, reads its arms and records the block; `samples_check(arm labels)`
    may reject the samples (400) before the lease is checked (409). Either rolls back the record."""
    block = batch["block"]
    now = timezone.now()
    with connection.cursor() as cursor:
        cursor.execute(_LOCK_AND_RECORD, {
            "run": run_id, "runner": runner.id, "leased": Run.Status.LEASED.value, "lease_token": batch["lease_token"],
            "attempt": batch["attempt"], "block": block, "batch_seq": batch["batch_seq"],
            "baseline": json.dumps(batch.get("baseline") or {}), "count": len(batch["samples"]), "now": now,
            "expires": now + timedelta(seconds=settings.RUNNER_LEASE_SECONDS)})
        row = cursor.fetchone()
        cursor.nextset()
        recorded = cursor.fetchone()
    run: Any = None
    if row is not None:
        run = Run.from_db(connection.alias, _RUN_FIELDS, row[:len(_RUN_FIELDS)])
        run.arm_labels, run.arm_ids = row[len(_RUN_FIELDS):]

    def found(run: Any) -> None:
        if samples_check is not None:
            samples_check(set(run.arm_labels))

    lease_check(run, lease_token=batch["lease_token"], found=found)
    if block >= run.blocks_total:
        raise Conflict(f"block: this run has blocks 0…{run.blocks_total - 1}.")
    if batch["attempt"] != run.attempt:
        raise Conflict(f"attempt: this lease is attempt {run.attempt}; the batch says {batch['attempt']}.")
    if recorded is None:
        # A retry of a stored batch is acknowledged; anything else that collides is a 409.
        repeat_check(run=run, batch=batch)
        return {"stored": 0, "duplicate": True, "next_block": run.next_block}
    arm_ids = dict(zip(run.arm_labels, run.arm_ids, strict=True))
    stored = samples_insert(run=run, samples=batch["samples"], arm_ids=arm_ids, block=block)
    return {"stored": stored, "duplicate": False, "next_block": recorded[0]}
