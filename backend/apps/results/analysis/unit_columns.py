"""The per-cell statistics behind every arm comparison of one metric, computed for all of its
arms at once (compare.py then pairs each candidate arm with its baseline).

An arm here is one (unit, profile, arm) group of values, sorted by value: compare.py's
grouping. `cell_log_means` gives each (device, block) cell's 10 %-trimmed mean of log latency
for every group in a few passes over the whole column, instead of a dozen numpy calls per
arm and pair (a baseline arm was computed again for each candidate), with the same arithmetic
in the same order: the cumulative sum of logs is taken per group, starting at 0 at the
group's first value, as it was per arm, so every number is the same to the last bit
(tests/test_analysis_frozen.py holds the outputs from before).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from .grouping import radix_argsort, runs_of


@dataclass(frozen=True, eq=False)
class CellMeans:
    """Trimmed mean log value of every cell of every group: runs sorted by group, then cell."""

    group_first: np.ndarray  # per group: its first run (len groups + 1, the last = number of runs)
    cell: np.ndarray  # per run: its cell key
    mean: np.ndarray  # per run: the trimmed mean of its logs

    def of_group(self, g: int) -> tuple[np.ndarray, np.ndarray]:
        runs = slice(int(self.group_first[g]), int(self.group_first[g + 1]))
        return self.cell[runs], self.mean[runs]


def cell_log_means(values: np.ndarray, cell: np.ndarray, starts: np.ndarray, counts: np.ndarray,
                   trim: float = 0.1) -> CellMeans:
    """Per group (`values[starts[g]:starts[g] + counts[g]]`, sorted by value) and per cell of it
    (`cell`, a non-negative key per value): the mean of the logs left after dropping `trim` of
    the cell's values at each end. A stable sort by (group, cell) keeps each cell's values
    sorted, so trimming is by position."""
    n, n_groups = len(values), len(starts)
    if n == 0:
        empty = np.zeros(0, dtype=np.int64)
        return CellMeans(np.zeros(n_groups + 1, dtype=np.int64), empty, np.zeros(0))
    group = np.repeat(np.arange(n_groups, dtype=np.int64), counts)
    capacity = int(cell.max()) + 1
    order = radix_argsort(group * capacity + cell, n_groups * capacity)
    logs = np.log(np.maximum(values[order].astype(np.float64), 1e-9))
    sorted_cells = cell[order]
    return _trimmed_means(logs, sorted_cells, starts, counts, trim, lambda run_first: sorted_cells[run_first])


@dataclass(frozen=True, eq=False)
class SortedArms:
    """Every (unit, profile, arm) group's values sorted, and its cells' trimmed mean logs."""

    keys: tuple[np.ndarray, np.ndarray, np.ndarray]  # per group (ascending): unit, profile, arm
    starts: np.ndarray
    counts: np.ndarray
    values: np.ndarray  # each group's values, sorted, one group after another
    cells: CellMeans


def sorted_arms(unit: np.ndarray, profile: np.ndarray, arm: np.ndarray, cell: np.ndarray, values: np.ndarray,
                trim: float = 0.1) -> SortedArms | None:
    """The arms of one metric (a row per value: its unit, profile, arm, cell key and integer
    value, all non-negative but the value) by two sorts of one int64 each: (group, value) and
    (group, cell, value) packed into bits. numpy sorts int64 several times faster than it
    argsorts them, and values that sort equal are equal numbers, so which of two equal values
    comes first changes no statistic. None when the keys and values do not fit in 62 bits
    (compare.py then groups the rows as before)."""
    n = len(values)
    if n == 0 or not np.issubdtype(values.dtype, np.integer):
        return None
    low = int(values.min())
    value_bits = (int(values.max()) - low).bit_length()
    n_profiles, n_arms = int(profile.max()) + 1, int(arm.max()) + 1
    n_groups, n_cells = (int(unit.max()) + 1) * n_profiles * n_arms, int(cell.max()) + 1
    if value_bits + (n_groups * n_cells).bit_length() > 62:
        return None
    group = (unit.astype(np.int64) * n_profiles + profile) * n_arms + arm
    offset = values.astype(np.int64) - low
    mask = (1 << value_bits) - 1
    by_group = np.sort((group << value_bits) | offset)
    group_of = by_group >> value_bits
    starts, counts = runs_of(group_of)
    codes = group_of[starts]
    keys = (codes // (n_profiles * n_arms), (codes // n_arms) % n_profiles, codes % n_arms)
    del group_of
    by_group &= mask
    by_group += low
    sorted_values = by_group
    # Each group's cells in key order, each cell's values sorted: the trimmed means need no
    # other order (the groups' sizes, hence their starts, are those above).
    by_cell = np.sort(((group * n_cells + cell) << value_bits) | offset)
    # (group, cell) of each value: it changes exactly where a cell's run of values begins.
    group_cell = by_cell >> value_bits
    by_cell &= mask
    by_cell += low
    logs = by_cell.astype(np.float64)
    del by_cell
    np.maximum(logs, 1e-9, out=logs)
    np.log(logs, out=logs)
    return SortedArms(keys, starts, counts, sorted_values,
                      _trimmed_means(logs, group_cell, starts, counts, trim,
                                     lambda run_first: group_cell[run_first] % n_cells))


def _trimmed_means(logs: np.ndarray, run_keys: np.ndarray, starts: np.ndarray, counts: np.ndarray,
                   trim: float, cells_of_runs: Callable[[np.ndarray], np.ndarray]) -> CellMeans:
    """CellMeans of logs already ordered by group, then cell, then value. `run_keys` changes
    where a cell's values begin within a group (the cell, or the (group, cell) pair);
    `cells_of_runs` gives the cell of each run from the positions where the runs begin."""
    n, n_groups = len(logs), len(starts)
    group = np.repeat(np.arange(n_groups, dtype=np.int64), counts)
    run_start, run_count = runs_of(run_keys, also_starting=starts)
    cut = np.floor(trim * run_count).astype(np.int64)
    # Each group's cumulative sum of logs, led by 0, in one array: group g's sits at
    # starts[g] + g … starts[g] + counts[g] + g.
    cumulative = np.empty(n + n_groups)
    for g in range(n_groups):  # a loop over groups (arms), never over values
        first = int(starts[g]) + g
        cumulative[first] = 0.0
        np.cumsum(logs[starts[g]:starts[g] + counts[g]], out=cumulative[first + 1:first + 1 + counts[g]])
    run_group = group[run_start]
    lo = run_start + cut
    hi = run_start + run_count - cut
    mean = (cumulative[hi + run_group] - cumulative[lo + run_group]) / (hi - lo)
    group_first = np.searchsorted(run_group, np.arange(n_groups + 1))
    return CellMeans(group_first, cells_of_runs(run_start), mean)
