"""Student-t and normal tail probabilities and quantiles, as the scipy.special ufuncs that
scipy.stats's `t` and `norm` call (t.sf(x, df) is stdtr(df, −x), t.ppf(q, df) is
stdtrit(df, q), norm.sf(x) is ndtr(−x), norm.ppf(q) is ndtri(q)): the same numbers, without
the distribution objects' argument handling, which costs ~50 µs a call where the ufunc
costs ~1 µs, and an analysis asks thousands of times (every arm comparison, every look of
the "blocks needed" search).

The t quantiles over a range of degrees of freedom, which the "blocks needed" estimates ask
for again at every arm comparison, are kept per probability (a few kB each)."""

from __future__ import annotations

import numpy as np
from scipy import special


def t_sf(x: float, df: float) -> float:
    """P(T > x) for Student's t with df degrees of freedom (scipy.stats.t.sf)."""
    return float(special.stdtr(df, -x))


def t_ppf(q: float, df: float) -> float:
    """The q quantile of Student's t (scipy.stats.t.ppf), 0 < q < 1."""
    return float(special.stdtrit(df, q))


def norm_sf(x: float) -> float:
    """P(Z > x) for the standard normal (scipy.stats.norm.sf)."""
    return float(special.ndtr(-x))


def norm_ppf(q: float) -> float:
    """The q quantile of the standard normal (scipy.stats.norm.ppf), 0 < q < 1."""
    return float(special.ndtri(q))


_T_QUANTILES: dict[float, np.ndarray] = {}


def t_ppf_by_df(q: float, max_df: int) -> np.ndarray:
    """The q quantile of Student's t for 1, 2, … max_df degrees of freedom (element i is
    df = i + 1), each the value t_ppf(q, df) gives. Read-only: shared between callers."""
    known = _T_QUANTILES.get(q)
    if known is None or len(known) < max_df:
        have = 0 if known is None else len(known)
        grown = max(max_df, 2 * have, 64)
        more = special.stdtrit(np.arange(have + 1, grown + 1, dtype=np.float64), q)
        known = more if known is None else np.concatenate((known, more))
        known.flags.writeable = False
        if len(_T_QUANTILES) > 256:  # probabilities come from α and family sizes: few, but bound them
            _T_QUANTILES.clear()
        _T_QUANTILES[q] = known
    return known[:max_df]
