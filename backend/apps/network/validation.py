"""Bounds of a custom network profile; the same field names the runners' emulator reads."""

from typing import Any

from rest_framework import serializers


class GilbertElliottSpec(serializers.Serializer):
    p = serializers.FloatField(min_value=0, max_value=100, help_text="% chance good → bad")
    r = serializers.FloatField(min_value=0, max_value=100, required=False, help_text="% chance bad → good")
    h = serializers.FloatField(min_value=0, max_value=100, required=False, help_text="% delivered in bad")
    k = serializers.FloatField(min_value=0, max_value=100, required=False, help_text="% delivered in good")


class DirectionSpec(serializers.Serializer):
    delay_ms = serializers.FloatField(min_value=0, max_value=60_000, default=0)
    jitter_ms = serializers.FloatField(min_value=0, max_value=60_000, default=0)
    jitter_correlation_pct = serializers.FloatField(min_value=0, max_value=100, default=0)
    reorder = serializers.BooleanField(default=False)
    loss_pct = serializers.FloatField(min_value=0, max_value=100, default=0)
    loss_model = serializers.ChoiceField(choices=["random", "gilbert_elliott"], default="random")
    gilbert = GilbertElliottSpec(required=False)
    burst = serializers.FloatField(min_value=1, max_value=10_000, required=False,
                                   help_text="mean burst length (packets) of Gilbert-Elliott loss at loss_pct")
    rate_kbit = serializers.FloatField(min_value=8, max_value=100_000_000, required=False, allow_null=True)
    queue_packets = serializers.IntegerField(min_value=1, max_value=1_000_000, default=1000)

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        if "gilbert" in attrs and "burst" in attrs:
            raise serializers.ValidationError({"burst": ["Give either gilbert {p, r, h, k} or burst, not both."]})
        if attrs.get("loss_model") == "gilbert_elliott" and "gilbert" not in attrs and "burst" not in attrs:
            raise serializers.ValidationError({"gilbert": ["Required when loss_model is gilbert_elliott (or burst)."]})
        return attrs


class BlackoutSpec(serializers.Serializer):
    every_s = serializers.FloatField(min_value=1, max_value=3600)
    duration_s = serializers.FloatField(min_value=0.01, max_value=3600)
    offset_s = serializers.FloatField(min_value=0, max_value=3600, required=False)

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        if attrs["duration_s"] >= attrs["every_s"]:
            raise serializers.ValidationError({"duration_s": ["Must be shorter than every_s."]})
        return attrs


class LinkSpec(serializers.Serializer):
    down = DirectionSpec()
    up = DirectionSpec()
    blackouts = BlackoutSpec(many=True, required=False, default=list, max_length=10)  # type: ignore[call-arg]
    seed = serializers.IntegerField(min_value=0, max_value=2**31 - 1, required=False, allow_null=True)



def _field_bounds(field: serializers.Field) -> dict[str, Any]:
    """One field's type, bounds, default and choices, read from the validator itself."""
    kind = ("boolean" if isinstance(field, serializers.BooleanField)
            else "choice" if isinstance(field, serializers.ChoiceField)
            else "integer" if isinstance(field, serializers.IntegerField)
            else "number")
    bounds: dict[str, Any] = {"type": kind, "required": field.required, "nullable": field.allow_null}
    for attr, key in (("min_value", "minimum"), ("max_value", "maximum")):
        if getattr(field, attr, None) is not None:
            bounds[key] = getattr(field, attr)
    if isinstance(field, serializers.ChoiceField):
        bounds["choices"] = list(field.choices)
    if field.default is not serializers.empty:
        bounds["default"] = field.default
    if field.help_text:
        bounds["help"] = str(field.help_text)
    return bounds


def _fields_bounds(serializer: serializers.Serializer) -> dict[str, dict[str, Any]]:
    return {name: _field_bounds(field) for name, field in serializer.fields.items()
            if not isinstance(field, serializers.BaseSerializer)}


def link_spec_bounds() -> dict[str, Any]:
    """The bounds of every field of a custom profile's spec, for forms that show them
    (GET /api/v1/network-profiles/bounds): read from LinkSpec's own fields, so they cannot drift."""
    link = LinkSpec()
    max_blackouts: int = getattr(link.fields["blackouts"], "max_length")  # noqa: B009  (not in the stubs)
    return {
        "direction": _fields_bounds(DirectionSpec()),
        "gilbert": _fields_bounds(GilbertElliottSpec()),
        "blackout": _fields_bounds(BlackoutSpec()),
        "max_blackouts": max_blackouts,
        "seed": _field_bounds(link.fields["seed"]),
    }
