"""Link profile: what a network condition is, independent of the backend.

A profile has one `DirectionProfile` per direction ("down" = server -> client,
"up" = client -> server) plus link-wide blackout windows.  Every field is
validated with an error that names the field and its allowed range, because
profiles arrive from users and the API as plain dicts.
"""
from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

LOSS_MODELS = ("random", "gilbert_elliott")


class ProfileError(ValueError):
    """A profile field is missing, unknown or out of range."""


def _num(path: str, value: Any, lo: float, hi: float, *, lo_open: bool = False) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or math.isnan(value):
        raise ProfileError(f"{path}: must be a number, got {value!r}")
    bad = value <= lo if lo_open else value < lo
    if bad or value > hi:
        rng = f"{'(' if lo_open else '['}{lo:g}, {hi:g}]"
        raise ProfileError(f"{path}: must be in {rng}, got {value!r}")
    return float(value)


@dataclass(frozen=True)
class GilbertElliott:
    """Gilbert-Elliott bursty loss, percentages as in netem's `gemodel`.

    p: P(good -> bad) per packet, r: P(bad -> good) per packet,
    h: P(packet delivered | bad), k: P(packet delivered | good).
    Classic Gilbert is h=0, k=100: loss = p/(p+r), mean burst = 100/r packets.
    netem's syntax takes (p, r, 1-h, 1-k); `netem.py` converts.
    """

    p: float
    r: float
    h: float = 0.0
    k: float = 100.0

    @classmethod
    def from_loss_and_burst(cls, loss_pct: float, burst: float) -> GilbertElliott:
        # Simple Gilbert: mean burst = 1/r, stationary loss = p/(p+r).
        r = 1.0 / burst
        loss = loss_pct / 100.0
        p = loss * r / (1.0 - loss)
        return cls(p=p * 100.0, r=r * 100.0)

    def mean_loss_pct(self) -> float:
        p, r = self.p / 100, self.r / 100
        if p + r == 0:
            return 100.0 - self.k
        pi_bad = p / (p + r)
        return 100.0 * (pi_bad * (1 - self.h / 100) + (1 - pi_bad) * (1 - self.k / 100))


@dataclass(frozen=True)
class DirectionProfile:
    delay_ms: float = 0.0
    # Standard deviation of a normal delay variation, clipped at zero delay.
    jitter_ms: float = 0.0
    # AR(1) correlation between successive jitter samples (0 = independent).
    jitter_correlation_pct: float = 0.0
    # Allow jitter to reorder packets.  Off by default: a real path rarely
    # reorders, and netem's uncorrelated jitter reordering is a known trap.
    reorder: bool = False
    loss_pct: float = 0.0
    loss_model: str = "random"
    gilbert: GilbertElliott | None = None
    rate_kbit: float | None = None
    # Drop-tail bottleneck queue in packets (only meaningful with a rate).
    queue_packets: int = 1000

    def is_identity(self) -> bool:
        return (self.delay_ms == 0 and self.jitter_ms == 0 and self.loss_pct == 0
                and self.loss_model == "random" and self.rate_kbit is None)

    def effective_loss_pct(self) -> float:
        if self.loss_model == "gilbert_elliott" and self.gilbert is not None:
            return self.gilbert.mean_loss_pct()
        return self.loss_pct

    def validate(self, path: str) -> None:
        _num(f"{path}.delay_ms", self.delay_ms, 0, 60_000)
        _num(f"{path}.jitter_ms", self.jitter_ms, 0, 60_000)
        _num(f"{path}.jitter_correlation_pct", self.jitter_correlation_pct, 0, 100)
        if not isinstance(self.reorder, bool):
            raise ProfileError(f"{path}.reorder: must be true or false, got {self.reorder!r}")
        _num(f"{path}.loss_pct", self.loss_pct, 0, 100)
        if self.loss_model not in LOSS_MODELS:
            raise ProfileError(f"{path}.loss_model: must be one of {', '.join(LOSS_MODELS)}, got {self.loss_model!r}")
        if self.loss_model == "gilbert_elliott":
            if self.gilbert is None:
                raise ProfileError(f"{path}.gilbert: required when loss_model is 'gilbert_elliott' "
                                   "(give p, r[, h, k] or burst with loss_pct)")
            for name in ("p", "r", "h", "k"):
                _num(f"{path}.gilbert.{name}", getattr(self.gilbert, name), 0, 100)
        if self.rate_kbit is not None:
            _num(f"{path}.rate_kbit", self.rate_kbit, 8, 100_000_000)
        if isinstance(self.queue_packets, bool) or not isinstance(self.queue_packets, int):
            raise ProfileError(f"{path}.queue_packets: must be an integer, got {self.queue_packets!r}")
        _num(f"{path}.queue_packets", self.queue_packets, 1, 1_000_000)

    @classmethod
    def from_dict(cls, d: Mapping[str, Any], path: str) -> DirectionProfile:
        if not isinstance(d, Mapping):
            raise ProfileError(f"{path}: must be an object, got {type(d).__name__}")
        allowed = {f.name for f in dataclasses.fields(cls)} | {"burst"}
        unknown = set(d) - allowed
        if unknown:
            raise ProfileError(f"{path}: unknown field(s) {', '.join(sorted(unknown))}; "
                               f"allowed: {', '.join(sorted(allowed))}")
        kw = {k: v for k, v in d.items() if k not in ("gilbert", "burst")}
        g = d.get("gilbert")
        burst = d.get("burst")
        if g is not None and burst is not None:
            raise ProfileError(f"{path}: give either gilbert {{p, r, h, k}} or burst, not both")
        if burst is not None:
            _num(f"{path}.burst", burst, 1, 10_000)
            loss = _num(f"{path}.loss_pct", d.get("loss_pct", 0.0), 0, 100, lo_open=True)
            if loss >= 100:
                raise ProfileError(f"{path}.loss_pct: must be < 100 with burst, got {loss!r}")
            kw["gilbert"] = GilbertElliott.from_loss_and_burst(loss, burst)
            kw.setdefault("loss_model", "gilbert_elliott")
        elif g is not None:
            if not isinstance(g, Mapping):
                raise ProfileError(f"{path}.gilbert: must be an object with p, r, h, k")
            unknown = set(g) - {"p", "r", "h", "k"}
            if unknown or "p" not in g:
                raise ProfileError(f"{path}.gilbert: needs p and optional r, h, k (percent); got {sorted(g)}")
            p = _num(f"{path}.gilbert.p", g["p"], 0, 100)
            # netem's defaults: r = 100 - p, h = 0 (always lose in bad), k = 100.
            kw["gilbert"] = GilbertElliott(p=p, r=g.get("r", 100 - p), h=g.get("h", 0.0), k=g.get("k", 100.0))
            kw.setdefault("loss_model", "gilbert_elliott")
        if kw.get("loss_model") == "gilbert_elliott" and "gilbert" in kw:
            kw["loss_pct"] = round(kw["gilbert"].mean_loss_pct(), 6)
        obj = cls(**kw)
        obj.validate(path)
        return obj

    def to_dict(self) -> dict[str, Any]:
        d = dataclasses.asdict(self)
        if self.gilbert is None:
            d.pop("gilbert")
        return d


@dataclass(frozen=True)
class Blackout:
    """Total outage (100 % loss, both directions) for `duration_s` out of every
    `every_s`.  `offset_s` is where in the period it starts; by default at the
    end, so a link starts clean and the first outage hits at every_s - duration_s."""

    every_s: float
    duration_s: float
    offset_s: float | None = None

    def start_in_period(self) -> float:
        return self.every_s - self.duration_s if self.offset_s is None else self.offset_s

    def active(self, t_since_start: float) -> bool:
        phase = (t_since_start % self.every_s) - self.start_in_period()
        return 0 <= phase < self.duration_s

    def validate(self, path: str) -> None:
        _num(f"{path}.every_s", self.every_s, 0, 86_400, lo_open=True)
        _num(f"{path}.duration_s", self.duration_s, 0, 86_400, lo_open=True)
        if self.duration_s >= self.every_s:
            raise ProfileError(f"{path}.duration_s: must be < every_s ({self.every_s:g}), got {self.duration_s!r}")
        if self.offset_s is not None:
            _num(f"{path}.offset_s", self.offset_s, 0, self.every_s - self.duration_s)


@dataclass(frozen=True)
class LinkProfile:
    name: str = "custom"
    down: DirectionProfile = field(default_factory=DirectionProfile)
    up: DirectionProfile = field(default_factory=DirectionProfile)
    blackouts: tuple[Blackout, ...] = ()
    # Seed for loss and jitter; None = fresh randomness per link.
    seed: int | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not self.name:
            raise ProfileError("name: must be a non-empty string")
        self.down.validate("down")
        self.up.validate("up")
        for i, b in enumerate(self.blackouts):
            b.validate(f"blackouts[{i}]")
        if self.seed is not None and (isinstance(self.seed, bool) or not isinstance(self.seed, int)):
            raise ProfileError(f"seed: must be an integer or null, got {self.seed!r}")

    @property
    def rtt_ms(self) -> float:
        return self.down.delay_ms + self.up.delay_ms

    def is_identity(self) -> bool:
        return self.down.is_identity() and self.up.is_identity() and not self.blackouts

    @classmethod
    def symmetric(cls, name: str, *, rtt_ms: float = 0.0, rate_down_kbit: float | None = None,
                  rate_up_kbit: float | None = None, **both: Any) -> LinkProfile:
        """RTT split half per direction; other keyword fields apply to both."""
        common = {"delay_ms": rtt_ms / 2.0, **both}
        return cls(name=name,
                   down=DirectionProfile(rate_kbit=rate_down_kbit, **common),
                   up=DirectionProfile(rate_kbit=rate_up_kbit, **common))

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> LinkProfile:
        if not isinstance(d, Mapping):
            raise ProfileError(f"profile: must be an object, got {type(d).__name__}")
        allowed = {"name", "down", "up", "blackouts", "seed"}
        unknown = set(d) - allowed
        if unknown:
            raise ProfileError(f"profile: unknown field(s) {', '.join(sorted(unknown))}; "
                               f"allowed: {', '.join(sorted(allowed))}")
        blackouts = []
        raw_b = d.get("blackouts") or []
        if not isinstance(raw_b, (list, tuple)):
            raise ProfileError("blackouts: must be a list of {every_s, duration_s[, offset_s]}")
        for i, b in enumerate(raw_b):
            if (not isinstance(b, Mapping) or set(b) - {"every_s", "duration_s", "offset_s"}
                    or not {"every_s", "duration_s"} <= set(b)):
                raise ProfileError(f"blackouts[{i}]: must be {{every_s, duration_s[, offset_s]}}, got {b!r}")
            blackouts.append(Blackout(**b))
        return cls(
            name=d.get("name", "custom"),
            down=DirectionProfile.from_dict(d.get("down", {}), "down"),
            up=DirectionProfile.from_dict(d.get("up", {}), "up"),
            blackouts=tuple(blackouts),
            seed=d.get("seed"),
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "down": self.down.to_dict(),
            "up": self.up.to_dict(),
            "blackouts": [dataclasses.asdict(b) for b in self.blackouts],
            "seed": self.seed,
        }
