"""What a device's runner says its lab can do for a run beyond the protocols it measures, and
the two places that is kept (as platforms.py keeps the protocols):

- **shaping** (`capabilities.can_shape`, with `cannot_shape_reason`): whether the runner can
  apply a network profile to the device. A Mac lab cannot (no tc/netem); a Linux lab whose
  probe failed (no CAP_NET_ADMIN, no sch_netem) cannot until it is fixed.
- **the reference target's certificate** (`capabilities.target_certificate`: `public` or
  `private`, with `target_certificate_reason`): Android measures h3 through Cronet, and
  Chromium's QUIC refuses a certificate that does not chain to a root of the phone's system
  store (ERR_QUIC_CERT_ROOT_NOT_KNOWN) even when the app trusts the private CA, so an
  Android h3 arm against the reference target needs the lab's publicly trusted certificate.

A spec is refused at submit (400 naming the field) when a selected platform has devices in
the pool and none of them can run it: a run may land on any selected platform's device. Where
some can and some cannot, the scheduler passes the unable ones over (apps.scheduler.leasing).
A device whose runner does not report a capability (an older runner) is trusted, as for
protocols. An Android h3 arm with its own `ca_bundle` is refused whatever the pool: the
bundle would only ever make Cronet's QUIC fail."""

from typing import Any

from django.db.models import Exists, OuterRef, Q

from .models import Arm

NO_PROFILE = "none"
H3_NEEDS_PUBLIC_ROOT = ("Android measures h3 through Cronet, and Chromium's QUIC accepts only a certificate that "
                        "chains to a root of the phone's system store (ERR_QUIC_CERT_ROOT_NOT_KNOWN), whatever the "
                        "app trusts")


def can_shape(capabilities: dict[str, Any] | None) -> bool:
    """False only when the runner says so (an older runner that says nothing is trusted)."""
    return (capabilities or {}).get("can_shape") is not False


def serves_public_target(capabilities: dict[str, Any] | None) -> bool:
    """False only when the runner reports its reference target's certificate private."""
    return (capabilities or {}).get("target_certificate") != "private"


def reference_h3_arms(spec: dict[str, Any]) -> list[int]:
    """Indexes of the h3 arms that go to the runner's reference target (no endpoint of their own)."""
    return [i for i, arm in enumerate(spec["arms"]) if arm["protocol"] == "h3" and not arm.get("endpoint")]


def profiled(spec: dict[str, Any]) -> bool:
    return any(name != NO_PROFILE for name in spec["network_profiles"])


def _described(devices: list[dict[str, Any]], reason_key: str) -> str:
    shown = [f"{d['model'] or d['serial']} ({d['serial']}) on runner {d['runner_name']}: "
             f"{(d['capabilities'] or {}).get(reason_key) or 'no reason given'}" for d in devices[:3]]
    more = len(devices) - len(shown)
    return "; ".join(shown) + (f"; and {more} more" if more > 0 else "")


def lab_capability_errors(spec: dict[str, Any], *, pool_slug: str,
                          devices: list[dict[str, Any]]) -> dict[str, Any]:
    """The field map of a 400 for what no device of a selected platform in the pool can do;
    empty when nothing is wrong. `devices`: the pool's (apps.devices.selectors.pool_devices_with_capabilities)."""
    errors: dict[str, Any] = {}
    platforms = spec["devices"]["platforms"]
    by_platform = {p: [d for d in devices if d["platform"] == p] for p in platforms}
    if profiled(spec):
        shaping = [f"{platform} devices of pool {pool_slug!r} cannot be shaped, so no run under "
                   f"{', '.join(repr(n) for n in spec['network_profiles'] if n != NO_PROFILE)} could be measured: "
                   f"{_described(present, 'cannot_shape_reason')}. Allowed here: network_profiles [\"none\"], or "
                   f"drop {platform}."
                   for platform, present in by_platform.items()
                   if present and not any(can_shape(d["capabilities"]) for d in present)]
        if shaping:
            errors["network_profiles"] = shaping
    if "android" in platforms:
        arms: dict[str, dict[str, list[str]]] = {}
        for i, arm in enumerate(spec["arms"]):
            if arm["protocol"] == "h3" and arm.get("endpoint") and arm.get("ca_bundle"):
                arms[str(i)] = {"ca_bundle": [
                    f"arm {arm['label']!r} (h3) brings its own ca_bundle: {H3_NEEDS_PUBLIC_ROOT}, so every Android "
                    f"sample would fail. Allowed: an h3 endpoint with a publicly trusted certificate (no "
                    f"ca_bundle), or drop android."]}
        present = by_platform["android"]
        if present and not any(serves_public_target(d["capabilities"]) for d in present):
            for i in reference_h3_arms(spec):
                arms[str(i)] = {"protocol": [
                    f"android devices of pool {pool_slug!r} cannot measure arm {spec['arms'][i]['label']!r} (h3) "
                    f"against the lab's reference target: its certificate is private "
                    f"({_described(present, 'target_certificate_reason')}). {H3_NEEDS_PUBLIC_ROOT}. Allowed: "
                    f"protocols h1c, h1, h2, grpc on android here; an h3 endpoint of your own; or drop android "
                    f"(the lab fixes it with a publicly trusted certificate, docs/device-lab.md §4)."]}
        if arms:
            errors["arms"] = arms
    return errors


def why_device_cannot_take(capabilities: dict[str, Any] | None, platform: str, spec: dict[str, Any],
                           network_profile: str) -> str | None:
    """Why a device's lab cannot run a run of `spec` under `network_profile`, in words (the
    waiting reason); None when it can. The same rule as runs_this_device_cannot_take."""
    caps = capabilities or {}
    if network_profile != NO_PROFILE and not can_shape(caps):
        return f"cannot shape {network_profile!r}: {caps.get('cannot_shape_reason') or 'no reason given'}"
    if platform == "android" and reference_h3_arms(spec) and not serves_public_target(caps):
        return (f"cannot measure h3 against its lab's reference target (private certificate: "
                f"{caps.get('target_certificate_reason') or 'no reason given'})")
    return None


def runs_this_device_cannot_take(capabilities: dict[str, Any] | None, platform: str) -> Q:
    """The queued runs a device must pass over for what its lab cannot do (an empty Q: none)."""
    unable = Q()
    if not can_shape(capabilities):
        unable |= ~Q(network_profile=NO_PROFILE)
    if platform == "android" and not serves_public_target(capabilities):
        unable |= Q(Exists(Arm.objects.filter(comparison=OuterRef("comparison"), protocol="h3", endpoint="")))
    return unable
