"""What this runner's lab can do for a run beyond the protocols its harnesses measure,
reported with every device it lists (the descriptor's `capabilities`, at hello and at each
heartbeat), so that the service refuses at submit what no device of a pool can run
(backend apps/comparisons/lab_capabilities.py):

- `can_shape` (and `cannot_shape_reason`): whether a network profile can be applied to the
  driver's devices — the phones on the host's access point (`link.mode: ap-netem`: the
  shaping probe, which names the real cause: no CAP_NET_ADMIN, a missing kernel module, no
  AP interface, or a Mac), or an emulated link (`namespace`, and the host driver's own);
- `target_certificate` (and `target_certificate_reason`): `public` when the reference
  target's certificate chains to a public root (Android's h3 needs it), else `private`.

Judged once, when the agent starts: a lab that fixes its host restarts the agent (the
systemd unit's `systemctl restart` drains first and loses no run)."""

from __future__ import annotations

from typing import Any

from latencylab_tools.netlab.availability import emulation_unavailable
from latencylab_tools.netlab.shaping_probe import ShapingProbe, probe_shaping

from ..drivers.target_certificate import judge_target_certificate
from .config import RunnerConfig


def _emulation() -> ShapingProbe:
    why = emulation_unavailable()
    return ShapingProbe(True) if why is None else ShapingProbe(False, f"no emulated link here: {why}", "emulation")


def phone_shaping(config: RunnerConfig) -> ShapingProbe:
    if config.link_mode == "namespace":
        return _emulation()
    return probe_shaping(config.link_interface)


def lab_capabilities(config: RunnerConfig) -> dict[str, dict[str, Any]]:
    """Per driver name, the capabilities its devices carry. Raises CertificateProblem (naming
    the config field) when the reference target's certificate or key cannot serve."""
    certificate = judge_target_certificate(config.target, trust_store=config.target_trust_store).capabilities()
    out: dict[str, dict[str, Any]] = {}
    phones = [d for d in config.drivers if d != "host"]
    if phones:
        shaping = phone_shaping(config).capabilities()
        out.update({driver: {**shaping, **certificate} for driver in phones})
    if "host" in config.drivers:
        out["host"] = {**_emulation().capabilities(), **certificate}
    return out
