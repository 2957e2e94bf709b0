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

    def mins(self, column: np.ndarray) -> np.ndarray:
        if not len(self.starts):
            return np.zeros(0, dtype=np.asarray(column).dtype)
        return np.minimum.reduceat(np.asarray(column)[self.order], self.starts)

    def maxs(self, column: np.ndarray) -> np.ndarray:
        if not len(self.starts):
            return np.zeros(0, dtype=np.asarray(column).dtype)
        return np.maximum.reduceat(np.asarray(column)[self.order], self.starts)

    def group_of_sorted_row(self) -> np.ndarray:
        """Group index of each sorted row (to broadcast group values back)."""
        return np.repeat(np.arange(len(self.starts)), self.counts)


def _pack_keys(keys: Sequence[np.ndarray]) -> tuple[np.ndarray, int]:
    """Mixed-radix pack of small ints into one non-negative int key, and the key's capacity.

    One integer sort is several times faster than a multi-key lexsort. The
    packed key is int32 when it fits (half the memory traffic of int64).
    """
    n = len(keys[0])
    columns, bounds = [], []
    capacity = 1
    for k in keys:
        column = np.asarray(k)
        lo = int(column.min()) if n else 0
        hi = int(column.max()) if n else 0
        capacity *= hi - lo + 1
        if capacity >= 2**62:
            raise OverflowError("group keys too wide to pack")
        columns.append(column)
        bounds.append((lo, hi))
    dtype = np.int32 if capacity < 2**31 else np.int64
    info = np.iinfo(dtype)
    packed = np.zeros(n, dtype=dtype)
    for column, (lo, hi) in zip(columns, bounds, strict=True):
        if hi == lo:
            continue  # a constant key adds nothing (packed * 1 + 0)
        np.multiply(packed, hi - lo + 1, out=packed)
        if info.min <= lo and hi <= info.max:
            # packed * radix - lo + column stays within [-2**31, capacity) in this order.
            np.subtract(packed, lo, out=packed)
            np.add(packed, column.astype(dtype, copy=False), out=packed)
        else:
            np.add(packed, (column.astype(np.int64) - lo).astype(dtype), out=packed)
    return packed, capacity


def radix_argsort(keys: np.ndarray, capacity: int) -> np.ndarray:
    """Stable argsort of non-negative integer keys below ``capacity``.

    numpy's stable sort of integers of 16 bits or less is a radix sort (linear
    time), so wider keys are sorted digit by digit, least significant first
    (LSD radix): each stable pass keeps the order of the previous ones within
    ties. Two or three such passes cost a third of a comparison sort of int64.
    """
    n = len(keys)
    if capacity <= 1 or n < 2:
        return np.arange(n, dtype=np.int64)
    bits = (capacity - 1).bit_length()
    # Narrow digits up front: later passes gather 1-2 byte digits, not the wide keys.
    digits = []
    for shift in range(0, bits, 16):
        digit = keys >> shift if shift else keys
        if shift + 16 < bits:
            digit = digit & 0xFFFF
        digits.append(digit.astype(np.uint8 if bits - shift <= 8 else np.uint16))
    perm = np.argsort(digits[0], kind="stable")
    for digit in digits[1:]:
        perm = perm[np.argsort(digit[perm], kind="stable")]
    return perm


def stable_value_order(values: np.ndarray) -> np.ndarray:
    """np.argsort(values, kind="stable"), by radix passes for integers.

    Ties keep row order and NaN sorts last, exactly as numpy's stable sort.
    """
    values = np.asarray(values)
    if len(values) and np.issubdtype(values.dtype, np.integer):
        lo, hi = int(values.min()), int(values.max())
        if hi - lo < 2**62:
            shifted = values.astype(np.int64) - lo if lo else values
            return radix_argsort(shifted, hi - lo + 1)
    return np.argsort(values, kind="stable")


def group_by(keys: Sequence[np.ndarray], values: np.ndarray | None = None, *,
             value_order: np.ndarray | None = None) -> Groups:
    """Group rows by the key columns (first key most significant).

    When ``values`` is given, rows within each group are sorted by it, so
    order statistics can be read directly; ``value_order`` (the stable argsort
    of those values, e.g. shared by several groupings of one column) saves
    that sort. Ties keep row order either way: the permutation is that of a
    stable sort by (keys, value).
    """
    n = len(keys[0]) if keys else 0
    if n == 0:
        empty = np.zeros(0, dtype=np.int64)
        return Groups(empty, empty, empty, tuple(np.zeros(0, dtype=np.int64) for _ in keys))
    packed, capacity = _pack_keys(keys)
    if value_order is None and values is not None:
        value_order = stable_value_order(values)
    if value_order is None:
        order = radix_argsort(packed, capacity)
    else:
        # Rows already in value order, then a stable sort by key: (key, value, row) order.
        order = value_order[radix_argsort(packed[value_order], capacity)]
    if capacity <= max(4 * n, 1 << 16):
        # Groups come in key order: their sizes are the non-zero counts of each packed key.
        per_key = np.bincount(packed, minlength=capacity)
        counts = per_key[per_key > 0].astype(np.int64)
        starts = np.concatenate(([0], np.cumsum(counts)[:-1])).astype(np.int64)
    else:
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
