"""Which protocols each device platform can measure, and the two places that rule is kept:
a spec whose arms a selected platform cannot run is refused at submit (400, naming the
platform, the arm and why), and a device whose runner reports fewer protocols than its
platform (``capabilities.protocols``) is passed over for the runs it cannot measure.

The table mirrors what the device-runner's harnesses advertise (drivers/host.py,
devices/android.py, devices/ios.py). iOS has no h1: URLSession has no switch to turn
HTTP/2 off, so against a server offering h2 an h1 arm would only ever produce
protocol_mismatch samples; and no h1c: App Transport Security forbids cleartext HTTP."""

from typing import Any

from django.db.models import Q

from .secret_refs import referenced_secret_names
from .spec import concurrency_label

ALL_PROTOCOLS = ("h1c", "h1", "h2", "h3", "grpc")
PLATFORM_PROTOCOLS: dict[str, tuple[str, ...]] = {
    "host": ALL_PROTOCOLS,
    "android": ALL_PROTOCOLS,
    "ios": ("h2", "h3", "grpc"),
}
# Platforms whose harness issues a job's concurrency groups concurrently: the host probe
# (drivers/concurrent_batch.py), the Android core (OkHttp's dispatcher, grpc-java, Cronet) and
# the iOS harness (URLSession, grpc-swift). A platform missing here is refused at submit rather
# than measured in order and reported as if concurrent.
CONCURRENT_PLATFORMS = ("host", "android", "ios")
# Runners that keep a job in memory only (the host probe; the block worker reads it on
# stdin). The phone drivers hand a job to the harness as a file or over the lab network,
# which would put secret values on a disk or a phone: secrets stay host-only on purpose.
SECRET_PLATFORMS = ("host",)
# Request-list fields a platform's harness does not send yet, refused at submit (where the user
# can still drop the platform) rather than as a failed run on the phone. `body` travels as
# body_b64 and `url` as the request's origin. Every harness sends them all today.
UNSUPPORTED_REQUEST_FIELDS: dict[str, tuple[str, ...]] = {}
_WHY_NOT = {
    ("ios", "h1"): "URLSession cannot be made to speak HTTP/1.1 to a server that offers HTTP/2",
    ("ios", "h1c"): "App Transport Security forbids cleartext HTTP",
}


def spec_platform_errors(spec: dict[str, Any]) -> list[str]:
    """One message per thing a selected platform cannot run (an arm's protocol, the workload's
    concurrency, secret headers, request-list fields), for {"devices": {"platforms": …}}."""
    errors = []
    concurrency = spec["workload"].get("concurrency") or "sequential"
    for platform in spec["devices"]["platforms"]:
        if concurrency != "sequential" and platform not in CONCURRENT_PLATFORMS:
            errors.append(f"{platform} devices cannot run workload.concurrency {concurrency_label(concurrency)}: their "
                          f"harness issues a job's requests one at a time (concurrency groups run on "
                          f"{', '.join(CONCURRENT_PLATFORMS)} runners only). Drop {platform} or use concurrency: "
                          f"sequential.")
        if platform not in SECRET_PLATFORMS and referenced_secret_names(spec):
            errors.append(f"{platform} devices cannot send {{{{secret.NAME}}}} headers: secrets go to "
                          f"{', '.join(SECRET_PLATFORMS)} runners only, which keep them in memory (a phone's "
                          f"harness reads its job from a file).")
        if fields := _unsupported_request_fields(platform, spec["workload"]):
            errors.append(f"{platform} devices cannot replay this request list yet: their harness does not send "
                          f"{', '.join(fields)} (host runners send them all). Drop {platform}, or list only "
                          f"requests without {', '.join(fields)}.")
        supported = PLATFORM_PROTOCOLS.get(platform, ())
        for arm in spec["arms"]:
            if arm["protocol"] not in supported:
                why = _WHY_NOT.get((platform, arm["protocol"]), "its harness does not implement it")
                errors.append(f"{platform} devices cannot run arm {arm['label']!r} ({arm['protocol']}): {why}. "
                              f"{platform} runs {', '.join(supported)}; drop {platform} or that arm.")
    return errors


def _unsupported_request_fields(platform: str, workload: dict[str, Any]) -> list[str]:
    unsupported = UNSUPPORTED_REQUEST_FIELDS.get(platform, ())
    if workload.get("kind") != "requests" or not unsupported:
        return []
    used = {field for request in workload.get("requests") or [] for field in unsupported
            if request.get(field) is not None}
    return [field for field in unsupported if field in used]


def run_protocols(spec: dict[str, Any]) -> list[str]:
    return sorted({arm["protocol"] for arm in spec["arms"]})


def device_protocols(capabilities: dict[str, Any] | None) -> set[str] | None:
    """The protocols a device's runner says it measures; None when it does not say (a
    runner without capabilities is trusted with its platform's)."""
    listed = (capabilities or {}).get("protocols")
    return {str(p) for p in listed} if isinstance(listed, list) else None


def devices_supporting(protocols: list[str]) -> Q:
    """Devices that list every one of `protocols`, or list none (trusted, as above)."""
    return Q(capabilities__protocols__contains=protocols) | ~Q(capabilities__has_key="protocols")
