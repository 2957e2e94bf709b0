"""Vectorised group-by over int-coded columns.

Every aggregate in the engine is "sort once by (keys, value), then read group
boundaries": medians and percentiles become index arithmetic on the sorted
values and sums become ``np.add.reduceat``. No Python loop touches samples.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True, eq=False)
class Groups:
    """Rows sorted by keys (and by value within a group when one was given)."""

    order: np.ndarray  # permutation of the input rows
    starts: np.ndarray  # first sorted position of each group
    counts: np.ndarray  # rows per group
    keys: tuple[np.ndarray, ...]  # key value of each group, one array per key column

    def __len__(self) -> int:
        return len(self.starts)

    def sorted(self, column: np.ndarray) -> np.ndarray:
        return column[self.order]

    def sums(self, column: np.ndarray) -> np.ndarray:
        if not len(self.starts):
            return np.zeros(0, dtype=np.float64)
        return np.add.reduceat(np.asarray(column, dtype=np.float64)[self.order], self.starts)

    def group_of_sorted_row(self) -> np.ndarray:
        """Group index of each sorted row (to broadcast group values back)."""
        return np.repeat(np.arange(len(self.starts)), self.counts)


def _pack_keys(keys: Sequence[np.ndarray]) -> tuple[np.ndarray, int]:
    """Mixed-radix pack of small ints into one int64 key, and the key's capacity.

    One int64 sort is several times faster than a multi-key lexsort.
    """
    packed = np.zeros(len(keys[0]), dtype=np.int64)
    capacity = 1
    for k in keys:
        k64 = np.asarray(k, dtype=np.int64)
        lo = int(k64.min()) if len(k64) else 0
        radix = (int(k64.max()) - lo + 1) if len(k64) else 1
        capacity *= radix
        if capacity >= 2**62:
            raise OverflowError("group keys too wide to pack")
        packed = packed * radix + (k64 - lo)
    return packed, capacity


def _value_ranks(values: np.ndarray) -> tuple[np.ndarray, int]:
    """Order-preserving small non-negative ints for the values, and their range.

    Integers are shifted by their minimum; anything else (floats, NaN last)
    is replaced by its rank, which costs one extra sort.
    """
    if np.issubdtype(values.dtype, np.integer):
        lo = int(values.min())
        return values.astype(np.int64) - lo, int(values.max()) - lo + 1
    ranks = np.empty(len(values), dtype=np.int64)
    ranks[np.argsort(values, kind="stable")] = np.arange(len(values), dtype=np.int64)
    return ranks, len(values)


def group_by(keys: Sequence[np.ndarray], values: np.ndarray | None = None) -> Groups:
    """Group rows by the key columns (first key most significant).

    When ``values`` is given, rows within each group are sorted by it, so
    order statistics can be read directly.
    """
    n = len(keys[0]) if keys else 0
    if n == 0:
        empty = np.zeros(0, dtype=np.int64)
        return Groups(empty, empty, empty, tuple(np.zeros(0, dtype=np.int64) for _ in keys))
    packed, capacity = _pack_keys(keys)
    if values is None:
        order = np.argsort(packed, kind="stable")
    else:
        ranks, value_range = _value_ranks(np.asarray(values))
        if capacity * value_range < 2**62:
            order = np.argsort(packed * value_range + ranks, kind="stable")
        else:
            order = np.lexsort((ranks, packed))
    sorted_packed = packed[order]
    boundary = np.flatnonzero(sorted_packed[1:] != sorted_packed[:-1]) + 1
    starts = np.concatenate(([0], boundary)).astype(np.int64)
    counts = np.diff(np.concatenate((starts, [n]))).astype(np.int64)
    first_rows = order[starts]
    group_keys = tuple(np.asarray(k)[first_rows] for k in keys)
    return Groups(order=order, starts=starts, counts=counts, keys=group_keys)


def sorted_quantiles(sorted_values: np.ndarray, starts: np.ndarray, counts: np.ndarray, q: float) -> np.ndarray:
    """Quantile q of each group of already-sorted values (numpy's 'linear' method)."""
    pos = q * (counts - 1).astype(np.float64)
    lo = np.floor(pos).astype(np.int64)
    hi = np.minimum(lo + 1, counts - 1)
    frac = pos - lo
    x = np.asarray(sorted_values, dtype=np.float64)
    a = x[starts + lo]
    b = x[starts + hi]
    return a + frac * (b - a)
