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

from dataclasses import dataclass

import numpy as np

from .grouping import radix_argsort


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
    sorted_cells = cell[order]
    logs = np.log(np.maximum(values[order].astype(np.float64), 1e-9))
    # `order` keeps every group where it was (groups come first in the key), so `group` still
    # names each sorted value's group.
    new_run = np.empty(n, dtype=bool)
    new_run[0] = True
    np.not_equal(sorted_cells[1:], sorted_cells[:-1], out=new_run[1:])
    new_run[starts] = True
    run_start = np.flatnonzero(new_run)
    run_count = np.diff(np.append(run_start, n))
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
    return CellMeans(group_first, sorted_cells[run_start], mean)
