"""Run until decided: the verdict looked at as blocks accumulate, with α spent across the looks.

A comparison with `blocks: {min, max}` is judged after min blocks per device, then each time
the blocks double (min, 2·min, 4·min, … and max), and stops at the first look whose verdict
is decided. Testing at α at every look would call a false regression more often than α, so
look k tests at its own α_k with Σ α_k = α: by the union bound the chance that any look calls
a regression or an improvement between identical arms stays ≤ α, whatever the correlation
between looks (the per-look t-tests estimate their own variance, which the classical
group-sequential boundaries, built for a known variance, do not cover). The α_k follow the
Kim-DeMets power spending function α(t) = α·t², t = blocks / max (between Pocock's, which
spends evenly, and O'Brien-Fleming's, whose first look at 6 of 40 blocks gets 3·10⁻¹¹, which
no t-test on 6 blocks can reach even for a 100× effect): for 6 … 40 the looks test at
2.3·10⁻⁴, 6.8·10⁻⁴, 2.7·10⁻³ and 6.4·10⁻³, so a large effect stops at the first look and the
last look keeps most of α. Doubling keeps the looks few: a look after every block (35 looks)
would leave each one a sliver of α. Equivalence needs no spending
(stopping on it can only lower the false-positive rate of the looks it skips).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace

from .verdict import INCONCLUSIVE, VerdictConfig

SPENDING_POWER = 2.0


def look_points(min_blocks: int, max_blocks: int) -> list[int]:
    """min, 2·min, 4·min, … below max, then max."""
    points, n = [], min_blocks
    while n < max_blocks:
        points.append(n)
        n *= 2
    return [*points, max_blocks]


def spending_schedule(min_blocks: int, max_blocks: int, alpha: float) -> list[tuple[int, float]]:
    """(blocks per device at the look, α to test at) for every look; Σ α_k = α."""
    if not 1 <= min_blocks <= max_blocks:
        raise ValueError("need 1 <= min_blocks <= max_blocks")

    def spent(t: float) -> float:
        return alpha * t**SPENDING_POWER

    looks = look_points(min_blocks, max_blocks)
    # The last look spends what is left, so Σ α_k = α exactly.
    cumulative = [spent(n / max_blocks) for n in looks]
    cumulative[-1] = alpha
    return [(n, c - p) for n, c, p in zip(looks, cumulative, [0.0, *cumulative[:-1]], strict=True)]


@dataclass(frozen=True)
class Look:
    blocks_per_device: int
    alpha: float
    outcome: str


@dataclass(frozen=True)
class SequentialResult:
    outcome: str  # the deciding look's, or the last look's (inconclusive at max)
    blocks_per_device: int  # blocks used
    history: tuple[Look, ...]


def run_until_decided(judge: Callable[[int, VerdictConfig], str], *, min_blocks: int, max_blocks: int,
                      config: VerdictConfig) -> SequentialResult:
    """``judge(n, config)`` is the verdict's outcome on the first n blocks of each device with
    that config; looks stop at the first decided one."""
    history: list[Look] = []
    for n, alpha_n in spending_schedule(min_blocks, max_blocks, config.alpha):
        outcome = judge(n, replace(config, alpha=alpha_n))
        history.append(Look(n, alpha_n, outcome))
        if outcome != INCONCLUSIVE:
            break
    return SequentialResult(history[-1].outcome, history[-1].blocks_per_device, tuple(history))
