"""A batch that collides with what its run already stored (device-runner/contract/README.md,
the samples call).

The same block again with the same samples and baseline is a retry (the runner lost the
answer): acknowledged as a duplicate. The same block with other contents, or a batch_seq the
run already used for another block, is a 409: the first copy stands, nothing is replaced or
mixed. Only a colliding upload pays for the comparison (the stored block is read back), so
an ordinary upload costs nothing more."""

from typing import Any

from django.db.models import Q

from apps.comparisons.models import RunBlock
from apps.core.errors import Conflict

from ..models import Sample
from .decode import SAMPLE_FIELDS
from .store import samples_columns

# Sample's columns in SampleIn's field order; arm is stored as its id, and t0 (always 0) not at all.
_STORED_FIELDS = tuple("arm_id" if name == "arm" else name for name in SAMPLE_FIELDS if name != "t0")
_NOT_NULL_TEXT = ("op", "path")  # null is stored as "" (ingest.store)


def repeat_check(*, run: Any, batch: dict[str, Any]) -> None:
    """`run`: the locked run with its `arm_labels` and `arm_ids` (blocks.block_store). Returns
    when the batch repeats the stored block exactly; 409 otherwise."""
    block, batch_seq = batch["block"], batch["batch_seq"]
    rows = RunBlock.objects.filter(Q(block=block) | Q(batch_seq=batch_seq), run_id=run.id)
    colliding = {row.block: row for row in rows}
    if not colliding:  # block_store records a block unless it collides: the two disagree
        raise RuntimeError(f"block {block} (batch_seq {batch_seq}) was not recorded, yet nothing stored collides "
                           "with it")
    stored = colliding.get(block)
    if stored is None:
        other = next(iter(colliding.values()))
        raise Conflict(f"batch_seq: {batch_seq} was already used for block {other.block} of this run; a batch is "
                       "one block, and each carries its own batch_seq. Nothing was stored.")
    if not _same_contents(run, stored, batch):
        raise Conflict(f"block {block} is already stored (attempt {stored.attempt}, batch_seq {stored.batch_seq}) "
                       "with other samples or another baseline; a stored block is never replaced. "
                       "Nothing was stored.")


def _same_contents(run: Any, stored: RunBlock, batch: dict[str, Any]) -> bool:
    samples = batch["samples"]
    if stored.sample_count != len(samples) or stored.baseline != (batch.get("baseline") or {}):
        return False
    if not samples:
        return True
    arm_ids = dict(zip(run.arm_labels, run.arm_ids, strict=True))
    columns = samples_columns(samples)
    columns["arm_id"] = tuple(arm_ids.get(label) for label in columns["arm"])
    for name in _NOT_NULL_TEXT:
        columns[name] = tuple(value or "" for value in columns[name])
    sent = sorted(zip(*(columns[name] for name in _STORED_FIELDS), strict=True),
                  key=lambda row: row[_STORED_FIELDS.index("seq")])
    kept = list(Sample.objects.filter(comparison_id=run.comparison_id, run_id=run.id, block=stored.block)
                .order_by("seq").values_list(*_STORED_FIELDS))
    return kept == sent
