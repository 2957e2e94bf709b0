"""Storing one uploaded block (device-runner/contract/README.md): the run locked under its
lease, the samples checked against its arms, the block recorded and its samples inserted —
in one transaction, so a block is either wholly stored or not at all."""

import json
from collections.abc import Callable
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.contrib.postgres.expressions import ArraySubquery
from django.db import connection, transaction
from django.db.models import OuterRef
from django.utils import timezone

from apps.comparisons.leases import run_lock_under_lease
from apps.comparisons.models import Arm, Run
from apps.core.errors import Conflict
from apps.devices.models import Runner

from .block_repeat import repeat_check
from .store import samples_insert

# The block's RunBlock row and the run's progress in one statement. ON CONFLICT makes a
# repeated block (even one committed by a concurrent upload while this one waited for the
# run's lock) insert nothing and return no row, and so does a batch_seq the run already
# used for another block (block_repeat tells the two apart); next_block is the first block
# without a RunBlock, this one included (a data-modifying CTE's row isn't visible to the UPDATE).
_BLOCK_RECORD = """
WITH stored AS (
    INSERT INTO comparisons_runblock (run_id, block, attempt, batch_seq, baseline, sample_count, stored_at)
    SELECT %(run)s, %(block)s, %(attempt)s, %(batch_seq)s, %(baseline)s::jsonb, %(count)s, %(now)s
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


@transaction.atomic
def block_store(*, runner: Runner, run_id: str, batch: dict[str, Any],
                samples_check: Callable[[set[str]], None] | None = None) -> dict[str, Any]:
    """Store one block's samples and baseline atomically; a repeated block is a no-op.

    One query locks the run and reads its arms; `samples_check(arm labels)` may reject the
    samples (400) before the lease is checked (409)."""
    arms = Arm.objects.filter(comparison=OuterRef("comparison_id")).order_by("position")
    runs = Run.objects.only("comparison_id", "status", "lease_token", "lease_expires_at", "attempt",
                            "blocks_total", "next_block").annotate(
        arm_labels=ArraySubquery(arms.values("label")), arm_ids=ArraySubquery(arms.values("id")))

    def found(run: Any) -> None:
        if samples_check is not None:
            samples_check(set(run.arm_labels))

    run: Any = run_lock_under_lease(runner=runner, run_id=run_id, lease_token=batch["lease_token"], runs=runs,
                                found=found)
    block = batch["block"]
    if block >= run.blocks_total:
        raise Conflict(f"block: this run has blocks 0…{run.blocks_total - 1}.")
    if batch["attempt"] != run.attempt:
        raise Conflict(f"attempt: this lease is attempt {run.attempt}; the batch says {batch['attempt']}.")
    now = timezone.now()
    with connection.cursor() as cursor:
        cursor.execute(_BLOCK_RECORD, {
            "run": run.id, "block": block, "attempt": run.attempt, "batch_seq": batch["batch_seq"],
            "baseline": json.dumps(batch.get("baseline") or {}), "count": len(batch["samples"]), "now": now,
            "expires": now + timedelta(seconds=settings.RUNNER_LEASE_SECONDS)})
        recorded = cursor.fetchone()
    if recorded is None:
        # A retry of a stored batch is acknowledged; anything else that collides is a 409.
        repeat_check(run=run, batch=batch)
        return {"stored": 0, "duplicate": True, "next_block": run.next_block}
    arm_ids = dict(zip(run.arm_labels, run.arm_ids, strict=True))
    stored = samples_insert(run=run, samples=batch["samples"], arm_ids=arm_ids, block=block)
    return {"stored": stored, "duplicate": False, "next_block": recorded[0]}
