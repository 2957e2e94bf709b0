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
    packed, capacity, _ = _pack_keys_with_bounds(keys)
    return packed, capacity


def _pack_keys_with_bounds(keys: Sequence[np.ndarray]) -> tuple[np.ndarray, int, list[tuple[int, int]]]:
    """_pack_keys, and each key's (lowest, highest) value: what unpacks a packed key (_unpack_keys)."""
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
    return packed, capacity, bounds


def _unpack_keys(packed: np.ndarray, bounds: Sequence[tuple[int, int]],
                 dtypes: Sequence[np.dtype]) -> tuple[np.ndarray, ...]:
    """The key columns of packed keys (_pack_keys_with_bounds), each in its column's dtype."""
    code = packed.astype(np.int64)
    columns: list[np.ndarray] = []
    for (lo, hi), dtype in zip(reversed(bounds), reversed(dtypes), strict=True):
        radix = hi - lo + 1
        columns.append((code % radix + lo).astype(dtype) if radix > 1 else np.full(len(code), lo, dtype=dtype))
        code //= radix
    return tuple(reversed(columns))


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
    row_bits = (n - 1).bit_length()
    if bits > 16 and bits + row_bits <= 63:
        # More than one radix pass: one np.sort of (key, row) packed in an int64 is cheaper (numpy
        # sorts int64 with SIMD, several times faster than a stable argsort), and since rows are
        # distinct it gives the stable order.
        packed = keys.astype(np.int64) << row_bits
        packed |= np.arange(n, dtype=np.int64)
        packed.sort()
        packed &= (1 << row_bits) - 1
        return packed
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


def _key_value_order(packed: np.ndarray, capacity: int, values: np.ndarray) -> np.ndarray | None:
    """The stable order by (key, value) of integer values, by one np.sort of (key, value, row)
    packed in an int64 (see radix_argsort); None when they do not fit in 63 bits."""
    values = np.asarray(values)
    n = len(values)
    if not np.issubdtype(values.dtype, np.integer):
        return None
    low = int(values.min())
    value_bits = (int(values.max()) - low).bit_length()
    row_bits = (n - 1).bit_length()
    if (capacity - 1).bit_length() + value_bits + row_bits > 63:
        return None
    combined = packed.astype(np.int64) << value_bits
    combined |= values.astype(np.int64) - low
    combined <<= row_bits
    combined |= np.arange(n, dtype=np.int64)
    combined.sort()
    combined &= (1 << row_bits) - 1
    return combined


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
    order = _key_value_order(packed, capacity, values) if value_order is None and values is not None else None
    if order is None and value_order is None and values is not None:
        value_order = stable_value_order(values)
    if order is None:
        # Rows already in value order, then a stable sort by key: (key, value, row) order.
        order = radix_argsort(packed, capacity) if value_order is None else \
            value_order[radix_argsort(packed[value_order], capacity)]
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


@dataclass(frozen=True, eq=False)
class DenseGroups:
    """Rows numbered by group (in key order, first key most significant), unsorted: what sums,
    minima and maxima need. A bincount or ufunc.at over the group numbers is a linear pass,
    where group_by's argsort is several passes and a gather of every column."""

    codes: np.ndarray  # each row's group number
    counts: np.ndarray  # rows per group
    keys: tuple[np.ndarray, ...]  # key value of each group, one array per key column

    def __len__(self) -> int:
        return len(self.counts)

    def integer_sums(self, column: np.ndarray) -> np.ndarray:
        """Sums (float64) of a column of whole numbers (integers, booleans): exact in any order
        while they stay below 2**53, so group_by's sums in its order, to the last bit."""
        return np.bincount(self.codes, weights=column, minlength=len(self.counts))

    def mins(self, column: np.ndarray) -> np.ndarray:
        column = np.asarray(column)
        out = np.full(len(self.counts), _highest(column.dtype), dtype=column.dtype)
        np.minimum.at(out, self.codes, column)
        return out

    def maxs(self, column: np.ndarray) -> np.ndarray:
        column = np.asarray(column)
        out = np.full(len(self.counts), _lowest(column.dtype), dtype=column.dtype)
        np.maximum.at(out, self.codes, column)
        return out


def _highest(dtype: np.dtype) -> int | float:
    return np.iinfo(dtype).max if np.issubdtype(dtype, np.integer) else np.inf


def _lowest(dtype: np.dtype) -> int | float:
    return np.iinfo(dtype).min if np.issubdtype(dtype, np.integer) else -np.inf


def dense_groups(keys: Sequence[np.ndarray]) -> DenseGroups | None:
    """group_by(keys)'s groups without sorting the rows: each row's group number from a table
    over the packed keys. None when the keys can take too many values for such a table (more
    than 4 per row and 2**16): use group_by."""
    n = len(keys[0]) if keys else 0
    if n == 0:
        return None
    try:
        packed, capacity, bounds = _pack_keys_with_bounds(keys)
    except OverflowError:
        return None
    if capacity > max(4 * n, 1 << 16):
        return None
    per_key = np.bincount(packed, minlength=capacity)
    present = np.flatnonzero(per_key)
    group_of_key = np.zeros(capacity, dtype=np.int64)
    group_of_key[present] = np.arange(len(present))
    return DenseGroups(codes=group_of_key[packed], counts=per_key[present].astype(np.int64),
                       keys=_unpack_keys(present, bounds, [np.asarray(k).dtype for k in keys]))


@dataclass(frozen=True, eq=False)
class SortedGroups:
    """Each group's values, sorted, one group after another (in key order, first key most
    significant): what order statistics and sums in value order need, without the permutation."""

    values: np.ndarray
    starts: np.ndarray
    counts: np.ndarray
    keys: tuple[np.ndarray, ...]
    codes: np.ndarray  # each input row's group number (what bincount sums in group order by)

    def __len__(self) -> int:
        return len(self.starts)


def runs_of(codes: np.ndarray, also_starting: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Where each run of equal codes begins in `codes` (sorted, or at least grouped) and how
    long it is; a run also begins at each position of `also_starting` (a sub-run's codes
    that repeat across its enclosing runs)."""
    n = len(codes)
    new_run = np.empty(n, dtype=bool)
    new_run[0] = True
    np.not_equal(codes[1:], codes[:-1], out=new_run[1:])
    if also_starting is not None:
        new_run[also_starting] = True
    starts = np.flatnonzero(new_run)
    return starts, np.diff(np.append(starts, n))


def sorted_groups(keys: Sequence[np.ndarray], values: np.ndarray) -> SortedGroups | None:
    """group_by(keys, values)'s groups and their sorted values, by one np.sort of an int64
    holding the packed keys above the value's bits. numpy sorts int64 several times faster
    than it argsorts them, and values that sort equal are equal numbers, so the sorted values
    (hence every statistic read from them) are group_by's to the last bit. None when the
    values are not integers or keys and values do not fit in 62 bits: use group_by."""
    values = np.asarray(values)
    n = len(values)
    if n == 0 or not keys or not np.issubdtype(values.dtype, np.integer):
        return None
    try:
        packed, capacity, bounds = _pack_keys_with_bounds(keys)
    except OverflowError:
        return None
    low = int(values.min())
    value_bits = (int(values.max()) - low).bit_length()
    if value_bits + (capacity - 1).bit_length() > 62:
        return None
    combined = packed.astype(np.int64) << value_bits
    combined |= values.astype(np.int64) - low if low else values.astype(np.int64, copy=False)
    combined.sort()
    code_of = combined >> value_bits
    starts, counts = runs_of(code_of)
    group_codes = code_of[starts]
    combined &= (1 << value_bits) - 1
    if low:
        combined += low
    group_of_code = np.zeros(capacity, dtype=np.int64) if capacity <= max(4 * n, 1 << 16) else None
    if group_of_code is not None:
        group_of_code[group_codes] = np.arange(len(starts))
        codes = group_of_code[packed]
    else:
        codes = np.searchsorted(group_codes, packed)
    keys_of_groups = _unpack_keys(group_codes, bounds, [np.asarray(k).dtype for k in keys])
    return SortedGroups(values=combined, starts=starts, counts=counts, keys=keys_of_groups, codes=codes)


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
