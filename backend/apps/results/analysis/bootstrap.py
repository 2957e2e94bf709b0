"""Bootstrap confidence intervals, vectorised and seeded.

Two tricks keep a million-sample analysis inside the time budget:

* The bootstrap median of one sample is an order statistic of the resample,
  and the k-th order statistic of n draws with replacement from sorted data is
  x[ceil(n * U_(k))] with U_(k) ~ Beta(k, n - k + 1). Drawing that Beta is an
  exact draw from the bootstrap distribution at a cost independent of n.
* The hierarchical bootstrap (devices -> blocks -> requests) uses Poisson(1)
  weights at the request level. A bin of h requests in a block picked w times
  then gets Poisson(w * h) requests, and sums of Poissons are Poisson, so a
  replicate is one matrix product (block weights x per-block histograms) and
  one Poisson draw per bin, not one draw per request.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

DEFAULT_BOOTSTRAP_SEED = 20240601


def median_ci_sorted(
    sorted_values: np.ndarray,
    starts: np.ndarray,
    counts: np.ndarray,
    *,
    level: float = 0.95,
    n_boot: int = 2000,
    rng: np.random.Generator,
) -> tuple[np.ndarray, np.ndarray]:
    """Percentile bootstrap CI of the median of each group of sorted values.

    Matches resampling the group with replacement and taking np.median,
    including the mean of the two middle values when n is even.
    """
    n_groups = len(starts)
    lower = np.full(n_groups, np.nan)
    upper = np.full(n_groups, np.nan)
    if n_groups == 0:
        return lower, upper
    x = np.asarray(sorted_values, dtype=np.float64)
    n = counts.astype(np.float64)[:, None]
    k = np.ceil(counts / 2.0)[:, None]  # lower middle order statistic (1-based)
    u_k = rng.beta(k, n - k + 1.0, size=(n_groups, n_boot))
    # Smallest of the n - k uniforms above u_k gives the upper middle one.
    above = np.maximum(n - k, 1.0)
    u_next = u_k + (1.0 - u_k) * rng.beta(1.0, above, size=(n_groups, n_boot))
    base = starts[:, None]
    last = (counts - 1)[:, None]
    idx_k = np.clip(np.ceil(n * u_k).astype(np.int64) - 1, 0, last)
    idx_next = np.clip(np.ceil(n * u_next).astype(np.int64) - 1, 0, last)
    even = (counts % 2 == 0)[:, None]
    at_k = x[base + idx_k]
    medians = np.where(even, 0.5 * (at_k + x[base + idx_next]), at_k)
    alpha = (1.0 - level) / 2.0
    lower, upper = row_quantiles(medians, (alpha, 1.0 - alpha))
    return lower, upper


def row_quantiles(rows: np.ndarray, quantiles: tuple[float, ...]) -> list[np.ndarray]:
    """np.quantile(rows, quantiles, axis=1) for rows without NaN: numpy's 'linear' method with
    its arithmetic (index (n − 1)·q, its two-sided interpolation), read from one sort of each
    row. For many rows of a few thousand values a sort is a third of numpy's partitions."""
    ordered = np.sort(rows, axis=1)
    n = rows.shape[1]
    out = []
    for q in quantiles:
        virtual = (n - 1) * q
        below = min(max(int(np.floor(virtual)), 0), n - 1)
        above = min(below + 1, n - 1)
        a, b = ordered[:, below], ordered[:, above]
        gamma = np.float64(virtual - below)
        difference = b - a
        value = a + difference * gamma
        if gamma >= 0.5:  # numpy's _lerp: from the upper side when nearer to it
            value = b - difference * (1 - gamma)
        out.append(value)
    return out


@dataclass(frozen=True)
class RatioBootstrap:
    """Bootstrap distribution of log(median candidate / median baseline)."""

    log_ratios: np.ndarray  # one per usable replicate

    def ci(self, level: float) -> tuple[float, float]:
        alpha = (1.0 - level) / 2.0
        lo, hi = np.quantile(self.log_ratios, [alpha, 1.0 - alpha])
        return float(np.exp(lo)), float(np.exp(hi))


def _block_weights(cell_device: np.ndarray, n_boot: int, rng: np.random.Generator) -> np.ndarray:
    """(n_boot, cells) multiplicities from resampling devices, then blocks within each device copy."""
    devices = np.unique(cell_device)
    weights = np.zeros((n_boot, len(cell_device)), dtype=np.float64)
    device_copies = rng.multinomial(len(devices), np.full(len(devices), 1.0 / len(devices)), size=n_boot)
    for j, device in enumerate(devices):  # loop over devices (a handful), never samples
        cells = np.flatnonzero(cell_device == device)
        # c copies of a device, each resampling its b blocks, = Multinomial(c * b, 1/b).
        draws = rng.multinomial(device_copies[:, j] * len(cells), np.full(len(cells), 1.0 / len(cells)))
        weights[:, cells] = draws
    return weights


def _window_medians(cum_lam: np.ndarray, bin_lo: np.ndarray, bin_hi: np.ndarray, interpolate: bool,
                    rng: np.random.Generator, window: int = 16, resample_requests: bool = True) -> np.ndarray:
    """Median of a Poisson-weighted histogram per replicate, drawing only bins near the median.

    ``cum_lam`` (replicates x bins) is the expected cumulative count. Counts
    below and above a window around the expected median are single Poisson
    draws of their summed means (a sum of independent Poissons is Poisson), so
    the joint law of (below, window bins, above) — all the median depends on
    while it stays in the window — is exact. Rows whose median escapes the
    window are redrawn with every bin.
    """
    n_rep, n_bins = cum_lam.shape
    total_lam = cum_lam[:, -1]
    width = min(2 * window + 1, n_bins)
    center = np.argmax(cum_lam >= (total_lam / 2.0)[:, None], axis=1)
    first = np.clip(center - window, 0, n_bins - width)
    rows = np.arange(n_rep)
    idx = first[:, None] + np.arange(width)
    cum_at = cum_lam[rows[:, None], idx]
    lam_before = np.where(first > 0, cum_lam[rows, np.maximum(first - 1, 0)], 0.0)
    lam_win = np.diff(np.concatenate((lam_before[:, None], cum_at), axis=1), axis=1)
    lam_after = total_lam - cum_at[:, -1]

    if resample_requests:
        counts = rng.poisson(np.maximum(lam_win, 0.0)).astype(np.float64)
        below = rng.poisson(np.maximum(lam_before, 0.0)).astype(np.float64)
        after = rng.poisson(np.maximum(lam_after, 0.0)).astype(np.float64)
    else:  # two-level bootstrap: each resampled block contributes its requests as they are
        counts, below, after = np.maximum(lam_win, 0.0), lam_before, lam_after
    cum = below[:, None] + np.cumsum(counts, axis=1)
    half = (cum[:, -1] + after) / 2.0
    # Inside iff the median's bin and (for exact values) the next value are in the window.
    inside = (below < half) & (cum[:, -1] > half)
    med = _median_in_window(counts, cum, half, first, bin_lo, bin_hi, interpolate)
    escaped = np.flatnonzero(~inside & (cum[:, -1] + after > 0))
    for r in escaped:  # rare: a loop over replicates, never over samples
        med[r] = _escaped_median(counts[r], below[r], after[r], first[r], cum_lam[r], bin_lo, bin_hi,
                                 interpolate, rng)
    med[cum[:, -1] + after == 0] = np.nan
    return med


def _escaped_median(window_counts: np.ndarray, below: float, after: float, first: int,
                    cum_lam_row: np.ndarray, bin_lo: np.ndarray, bin_hi: np.ndarray, interpolate: bool,
                    rng: np.random.Generator) -> float:
    """Complete one replicate whose median left the window: given the totals
    below and after it, the bins there are multinomial in their means, so
    splitting the totals keeps the draw exact."""
    lam = np.diff(np.concatenate(([0.0], cum_lam_row)))
    lam = np.maximum(lam, 0.0)
    width = len(window_counts)
    before_lam, after_lam = lam[:first], lam[first + width:]
    full = np.zeros(len(lam))
    if below > 0:
        full[:first] = rng.multinomial(int(below), before_lam / before_lam.sum())
    full[first:first + width] = window_counts
    if after > 0:
        full[first + width:] = rng.multinomial(int(after), after_lam / after_lam.sum())
    cum = np.cumsum(full)[None, :]
    return float(_median_in_window(full[None, :], cum, cum[:, -1] / 2.0, np.zeros(1, np.int64),
                                   bin_lo, bin_hi, interpolate)[0])


def _median_in_window(counts: np.ndarray, cum: np.ndarray, half: np.ndarray, first: np.ndarray,
                      bin_lo: np.ndarray, bin_hi: np.ndarray, interpolate: bool) -> np.ndarray:
    rows = np.arange(len(counts))
    j = np.argmax(cum >= half[:, None], axis=1)
    if interpolate:
        in_bin = counts[rows, j]
        before = cum[rows, j] - in_bin
        frac = np.where(in_bin > 0, (half - before) / np.where(in_bin > 0, in_bin, 1.0), 0.5)
        b = first + j
        return bin_lo[b] + frac * (bin_hi[b] - bin_lo[b])
    # Exact values: average the two middle values when the halves split between bins.
    j_next = np.argmax(cum > half[:, None], axis=1)
    return 0.5 * (bin_lo[first + j] + bin_lo[first + j_next])


# OpenBLAS runs a matrix product of m·n·k ≤ 2**18 on the calling thread. Beyond that its
# helper threads join in and then spin between the many small products of an analysis,
# burning a second core (≈ 0.3 s CPU per 1M-sample analysis) for no gain in wall time.
_SINGLE_THREAD_PRODUCT = 2**18


def _product(weights: np.ndarray, cum_hist: np.ndarray) -> np.ndarray:
    """weights @ cum_hist in row chunks small enough for one BLAS thread. Both hold
    whole counts, so every element is exact whatever the chunking."""
    rows = _SINGLE_THREAD_PRODUCT // max(cum_hist.shape[0] * cum_hist.shape[1], 1)
    if rows >= len(weights) or rows < 8:
        return weights @ cum_hist
    out = np.empty((len(weights), cum_hist.shape[1]))
    for start in range(0, len(weights), rows):  # a loop over replicate chunks, never samples
        np.matmul(weights[start:start + rows], cum_hist, out=out[start:start + rows])
    return out


def _is_sorted(values: np.ndarray) -> bool:
    return bool(len(values) < 2 or np.all(values[1:] >= values[:-1]))


def _distinct_sorted(values: np.ndarray) -> int:
    return int(np.count_nonzero(values[1:] != values[:-1])) + 1 if len(values) else 0


def _searchsorted(edges: np.ndarray, values: np.ndarray, side: str, values_sorted: bool) -> np.ndarray:
    """np.searchsorted(edges, values, side). For sorted values it searches the few
    edges among the values instead: value i has edge j at or below it ("right";
    strictly below for "left") iff fewer than i + 1 values come before edge j."""
    if not values_sorted:
        return np.searchsorted(edges, values, side=side)  # type: ignore[call-overload]
    before = np.searchsorted(values, edges, side="left" if side == "right" else "right")
    return np.cumsum(np.bincount(before, minlength=len(values) + 1)[:len(values)])


def hierarchical_ratio_bootstrap(
    candidate: np.ndarray,
    candidate_cell: np.ndarray,
    baseline: np.ndarray,
    baseline_cell: np.ndarray,
    cell_device: np.ndarray,
    *,
    n_boot: int = 2000,
    max_bins: int = 256,
    resample_requests: bool = True,
    rng: np.random.Generator,
) -> RatioBootstrap:
    """Hierarchical bootstrap of median(candidate) / median(baseline).

    A cell is one (device, block); ``cell_device`` maps each cell to its device.
    Resampling a block keeps both arms of it together, which preserves the
    pairing of interleaved blocks. Values are binned (exactly when there are at
    most ``max_bins`` distinct values, else into equal-count bins with linear
    interpolation inside the median's bin).

    Resampling at every level is conservative (block resampling already
    carries the request-level noise, and requests are then resampled again);
    ``resample_requests=False`` gives the two-level devices -> blocks bootstrap.
    """
    # Stable sort merges already-sorted inputs in linear time.
    pooled = np.sort(np.concatenate((candidate, baseline)).astype(np.float64), kind="stable")
    arms_sorted = _is_sorted(candidate) and _is_sorted(baseline)
    # A sorted arm with more distinct values than bins settles it without the pooled uniques.
    many = arms_sorted and max(_distinct_sorted(candidate), _distinct_sorted(baseline)) > max_bins
    uniques = pooled if many else pooled[np.concatenate(([True], pooled[1:] != pooled[:-1]))]
    if not many and len(uniques) <= max_bins:
        interpolate = False
        bin_lo = bin_hi = uniques
        bins_c = _searchsorted(uniques, candidate, "left", arms_sorted)
        bins_b = _searchsorted(uniques, baseline, "left", arms_sorted)
    else:
        interpolate = True
        positions = np.linspace(0, len(pooled) - 1, max_bins + 1).round().astype(np.int64)
        edges = np.unique(pooled[positions])
        bin_lo, bin_hi = edges[:-1], edges[1:]
        n_bins = len(bin_lo)
        bins_c = np.clip(_searchsorted(edges, candidate, "right", arms_sorted) - 1, 0, n_bins - 1)
        bins_b = np.clip(_searchsorted(edges, baseline, "right", arms_sorted) - 1, 0, n_bins - 1)
    n_bins = len(bin_lo)
    n_cells = len(cell_device)
    hist_c = np.bincount(candidate_cell * n_bins + bins_c, minlength=n_cells * n_bins).reshape(n_cells, n_bins)
    hist_b = np.bincount(baseline_cell * n_bins + bins_b, minlength=n_cells * n_bins).reshape(n_cells, n_bins)

    out = []
    cum_hist_c = np.cumsum(hist_c, axis=1, dtype=np.float64)
    cum_hist_b = np.cumsum(hist_b, axis=1, dtype=np.float64)
    chunk = max(1, min(n_boot, 2_000_000 // max(n_bins, 1)))  # bound memory of (replicates x bins)
    done = 0
    while done < n_boot:
        size = min(chunk, n_boot - done)
        weights = _block_weights(cell_device, size, rng)
        med_c = _window_medians(_product(weights, cum_hist_c), bin_lo, bin_hi, interpolate, rng,
                                resample_requests=resample_requests)
        med_b = _window_medians(_product(weights, cum_hist_b), bin_lo, bin_hi, interpolate, rng,
                                resample_requests=resample_requests)
        with np.errstate(divide="ignore", invalid="ignore"):
            out.append(np.log(med_c / med_b))
        done += size
    log_ratios = np.concatenate(out)
    return RatioBootstrap(log_ratios=log_ratios[np.isfinite(log_ratios)])
