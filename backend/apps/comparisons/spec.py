"""Validation and normalization of comparison specs (DESIGN §5.1).

A spec arrives as JSON or YAML, possibly naming a preset. `normalize_spec` merges the
preset, validates every field with its bounds, fills defaults and returns the
normalized spec that the runners receive. Errors are DRF field maps, so the API answers
400 with the field path (e.g. {"arms": {"1": {"protocol": [...]}}}) and creates nothing.
"""

import hashlib
import json
import random
from typing import Any

from rest_framework import serializers

from .presets import PRESETS

PROTOCOLS = ["h1c", "h1", "h2", "h3", "grpc"]
CONNECTION_POLICIES = ["cold", "warm", "resumed"]
MODES = ["ab", "aa"]
AA_SUFFIX = "-again"
WORKLOAD_KINDS = ["series", "api", "mixed", "delay_sweep", "payload_sweep"]
SERIES_OBJECTS = {"seed-mid-24": 24}
FILE_SETS = {"seed-unity-5": 5}
# Upper bound on requests one run may make, so a typo cannot book a device for a week.
MAX_REQUESTS_PER_RUN = 200_000
MAX_RESPONSE_BYTES = 50_000_000


class SeriesWorkloadSpec(serializers.Serializer):
    kind = serializers.ChoiceField(choices=["series"])
    objects = serializers.ChoiceField(choices=sorted(SERIES_OBJECTS), default="seed-mid-24")
    periods = serializers.ListField(
        child=serializers.IntegerField(min_value=1, max_value=240), min_length=1, max_length=40,
        default=[3, 6, 9, 12, 15, 18, 21, 24, 27, 30],
    )
    repetitions = serializers.IntegerField(min_value=1, max_value=100, default=12)
    warmup = serializers.IntegerField(min_value=0, max_value=10, default=1)
    gap_ms = serializers.IntegerField(min_value=0, max_value=1000, default=0)


class ApiWorkloadSpec(serializers.Serializer):
    kind = serializers.ChoiceField(choices=["api"])
    rounds = serializers.IntegerField(min_value=1, max_value=200, default=5)
    calls = serializers.IntegerField(min_value=1, max_value=200, default=5)
    request_bytes = serializers.IntegerField(min_value=0, max_value=1_000_000, default=64)
    warmup = serializers.IntegerField(min_value=0, max_value=10, default=0)


class MixedWorkloadSpec(ApiWorkloadSpec):
    kind = serializers.ChoiceField(choices=["mixed"])
    files = serializers.ChoiceField(choices=sorted(FILE_SETS), default="seed-unity-5")


class DelaySweepWorkloadSpec(serializers.Serializer):
    kind = serializers.ChoiceField(choices=["delay_sweep"])
    start_ms = serializers.IntegerField(min_value=0, max_value=60_000, default=0)
    stop_ms = serializers.IntegerField(min_value=0, max_value=60_000, default=1000)
    step_ms = serializers.IntegerField(min_value=1, max_value=60_000, default=25)
    trials = serializers.IntegerField(min_value=1, max_value=100, default=10)
    warmup = serializers.IntegerField(min_value=0, max_value=10, default=1)

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        if attrs["stop_ms"] < attrs["start_ms"]:
            raise serializers.ValidationError({"stop_ms": ["Must be ≥ start_ms."]})
        return attrs


class PayloadSweepWorkloadSpec(serializers.Serializer):
    kind = serializers.ChoiceField(choices=["payload_sweep"])
    request_bytes = serializers.IntegerField(min_value=0, max_value=1_000_000, default=800)
    sizes = serializers.ListField(
        child=serializers.IntegerField(min_value=0, max_value=MAX_RESPONSE_BYTES), min_length=1, max_length=100
    )
    repetitions = serializers.IntegerField(min_value=1, max_value=200, default=10)
    warmup = serializers.IntegerField(min_value=0, max_value=10, default=1)


WORKLOAD_SERIALIZERS: dict[str, type[serializers.Serializer]] = {
    "series": SeriesWorkloadSpec,
    "api": ApiWorkloadSpec,
    "mixed": MixedWorkloadSpec,
    "delay_sweep": DelaySweepWorkloadSpec,
    "payload_sweep": PayloadSweepWorkloadSpec,
}


class ArmSpec(serializers.Serializer):
    # DRF's serializer metaclass moves declared fields into _declared_fields, so this does not shadow Field.label at
    # runtime; the stubs see a plain class attribute.
    label = serializers.RegexField(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$", max_length=64)  # type: ignore[assignment]
    protocol = serializers.ChoiceField(choices=PROTOCOLS)
    connection = serializers.ChoiceField(choices=CONNECTION_POLICIES, default="warm")
    endpoint = serializers.URLField(max_length=500, required=False, allow_null=True, default=None)
    ca_bundle = serializers.CharField(max_length=65536, required=False, allow_null=True, default=None)

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        endpoint = attrs.get("endpoint")
        if endpoint:
            scheme = endpoint.split(":", 1)[0].lower()
            wanted = "http" if attrs["protocol"] == "h1c" else "https"
            if scheme != wanted:
                raise serializers.ValidationError(
                    {"endpoint": [f"A {attrs['protocol']} arm needs an {wanted}:// endpoint."]}
                )
        ca = attrs.get("ca_bundle")
        if ca and "-----BEGIN CERTIFICATE-----" not in ca:
            raise serializers.ValidationError({"ca_bundle": ["Must be PEM (-----BEGIN CERTIFICATE-----)."]})
        return attrs


class DevicesSpec(serializers.Serializer):
    pool = serializers.SlugField(max_length=64, default="local")
    platforms = serializers.ListField(
        child=serializers.ChoiceField(choices=["host", "android", "ios"]), min_length=1, max_length=3,
        default=["host"],
    )
    count = serializers.IntegerField(min_value=1, max_value=50, default=1)


class GateSpec(serializers.Serializer):
    metric = serializers.ChoiceField(choices=["total_ms", "ttfb_ms"], default="total_ms")
    statistic = serializers.ChoiceField(choices=["median"], default="median")
    margin_pct = serializers.FloatField(min_value=0.1, max_value=50, default=5.0)
    alpha = serializers.FloatField(min_value=0.0001, max_value=0.2, default=0.01)


class ComparisonSpec(serializers.Serializer):
    name = serializers.CharField(max_length=200, min_length=1)
    # "aa": one arm measured twice under two labels; any verdict but equivalent/inconclusive
    # is a false positive by construction (the trust check, apps.results.aa).
    mode = serializers.ChoiceField(choices=MODES, default="ab")
    preset = serializers.ChoiceField(choices=sorted(PRESETS), required=False, allow_null=True, default=None)
    workload = serializers.DictField()
    arms = ArmSpec(many=True, min_length=1, max_length=8)  # type: ignore[call-arg]
    baseline_arm = serializers.CharField(max_length=64, required=False, allow_null=True, default=None)
    devices = DevicesSpec(required=False)
    # Names are checked against the organization's profiles by the service (built-ins + custom).
    network_profiles = serializers.ListField(
        child=serializers.SlugField(max_length=64), min_length=1, max_length=20, default=["none"]
    )
    blocks = serializers.IntegerField(min_value=1, max_value=50, default=6)
    seed = serializers.IntegerField(min_value=0, max_value=2**31 - 1, required=False, allow_null=True, default=None)
    tags = serializers.DictField(child=serializers.CharField(max_length=200, allow_blank=True), default=dict)
    gate = GateSpec(required=False)
    timeout_s = serializers.IntegerField(min_value=1, max_value=300, default=30)

    def validate_tags(self, tags: dict[str, str]) -> dict[str, str]:
        if len(tags) > 20:
            raise serializers.ValidationError("At most 20 tags.")
        for key in tags:
            if not 1 <= len(key) <= 64:
                raise serializers.ValidationError(f"Tag names must be 1–64 characters: {key!r}.")
        return tags

    def validate_workload(self, workload: dict[str, Any]) -> dict[str, Any]:
        kind = workload.get("kind")
        if kind not in WORKLOAD_SERIALIZERS:
            raise serializers.ValidationError({"kind": [f"Must be one of {WORKLOAD_KINDS}."]})
        inner = WORKLOAD_SERIALIZERS[kind](data=workload)
        inner.is_valid(raise_exception=True)
        unknown = sorted(set(workload) - set(inner.fields))
        if unknown:
            raise serializers.ValidationError({name: ["Unknown field for this workload kind."] for name in unknown})
        return dict(inner.validated_data)

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        if attrs["mode"] == "aa":
            attrs = _duplicate_aa_arm(attrs)
        labels = [arm["label"] for arm in attrs["arms"]]
        duplicates = sorted({label for label in labels if labels.count(label) > 1})
        if duplicates:
            raise serializers.ValidationError({"arms": [f"Arm labels must be unique; repeated: {duplicates}."]})
        if attrs.get("baseline_arm") is None:
            attrs["baseline_arm"] = labels[0]
        elif attrs["baseline_arm"] not in labels:
            raise serializers.ValidationError({"baseline_arm": [f"Must be one of the arm labels {labels}."]})
        profiles = attrs["network_profiles"]
        if len(set(profiles)) != len(profiles):
            raise serializers.ValidationError({"network_profiles": ["Profiles must not repeat."]})
        per_run = requests_per_run(attrs["workload"], arms=len(labels))
        if per_run > MAX_REQUESTS_PER_RUN:
            raise serializers.ValidationError(
                {"workload": [f"This workload makes {per_run} requests per run; the limit is {MAX_REQUESTS_PER_RUN}."]}
            )
        return attrs


def _duplicate_aa_arm(attrs: dict[str, Any]) -> dict[str, Any]:
    """A/A: the one arm given becomes `<label>` (baseline) and `<label>-again`, identical."""
    if len(attrs["arms"]) != 1:
        raise serializers.ValidationError(
            {"arms": [f"mode aa takes exactly one arm (it is measured twice); got {len(attrs['arms'])}."]})
    arm = dict(attrs["arms"][0])
    again = f"{arm['label']}{AA_SUFFIX}"
    if len(again) > 64:
        raise serializers.ValidationError(
            {"arms": {"0": {"label": [f"mode aa appends {AA_SUFFIX!r}; the label must be at most "
                                      f"{64 - len(AA_SUFFIX)} characters."]}}})
    if attrs.get("baseline_arm") not in (None, arm["label"]):
        raise serializers.ValidationError({"baseline_arm": [f"mode aa: the baseline is the arm {arm['label']!r}."]})
    return {**attrs, "arms": [arm, {**arm, "label": again}], "baseline_arm": arm["label"]}


def requests_per_run(workload: dict[str, Any], *, arms: int) -> int:
    """How many measured requests one run makes (warm-ups excluded): the size guard."""
    kind = workload["kind"]
    if kind == "series":
        per_arm = sum(workload["periods"]) * workload["repetitions"]
    elif kind == "api":
        per_arm = workload["rounds"] * workload["calls"]
    elif kind == "mixed":
        per_arm = workload["rounds"] * workload["calls"] + workload["rounds"] * (
            FILE_SETS[workload["files"]] + workload["calls"]
        )
    elif kind == "delay_sweep":
        steps = (workload["stop_ms"] - workload["start_ms"]) // workload["step_ms"] + 1
        per_arm = steps * workload["trials"]
    else:
        per_arm = len(workload["sizes"]) * workload["repetitions"]
    return per_arm * arms


def merge_preset(submitted: dict[str, Any]) -> dict[str, Any]:
    """Fields the user gave override the preset's; `workload` merges key by key."""
    preset_name = submitted.get("preset")
    if not preset_name or preset_name not in PRESETS:
        return dict(submitted)
    merged: dict[str, Any] = json.loads(json.dumps(PRESETS[preset_name]["spec"]))
    for key, value in submitted.items():
        if key == "workload" and isinstance(value, dict) and value.get("kind", merged["workload"]["kind"]) == merged[
            "workload"
        ]["kind"]:
            merged["workload"] = {**merged["workload"], **value}
        else:
            merged[key] = value
    if "arms" in submitted and "baseline_arm" not in submitted:
        # The preset's baseline names one of the preset's arms, which the user replaced.
        merged.pop("baseline_arm", None)
    return merged


def normalize_spec(submitted: Any) -> dict[str, Any]:
    """Returns the normalized spec, or raises serializers.ValidationError (a field map)."""
    if not isinstance(submitted, dict):
        raise serializers.ValidationError({"non_field_errors": ["A spec must be a JSON/YAML object."]})
    serializer = ComparisonSpec(data=merge_preset(submitted))
    serializer.is_valid(raise_exception=True)
    spec = json.loads(json.dumps(serializer.validated_data))
    if not spec.get("devices"):
        defaults = DevicesSpec(data={})
        defaults.is_valid(raise_exception=True)
        spec["devices"] = dict(defaults.validated_data)
    if not spec.get("gate"):
        gate = GateSpec(data={})
        gate.is_valid(raise_exception=True)
        spec["gate"] = dict(gate.validated_data)
    if spec.get("seed") is None:
        spec["seed"] = random.SystemRandom().randrange(2**31)
    return spec


def spec_fingerprint(spec: dict[str, Any]) -> str:
    """Same workload, arms, devices and profiles → same hash; name, seed and tags excluded,
    so "the latest run of this spec on main" can be found for a CI baseline."""
    relevant = {k: spec[k] for k in ("workload", "arms", "devices", "network_profiles", "blocks") if k in spec}
    return hashlib.sha256(json.dumps(relevant, sort_keys=True).encode()).hexdigest()
