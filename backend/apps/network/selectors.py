from typing import Any

from apps.accounts.models import Organization

from .models import NetworkProfile
from .presets import BUILT_IN, built_in_payload


def network_profile_names(*, organization: Organization) -> list[str]:
    return [*BUILT_IN, *NetworkProfile.objects.filter(organization=organization).values_list("name", flat=True)]


def network_profile_wire_spec(*, organization: Organization, name: str) -> dict[str, Any]:
    """What the runner receives: {} for a built-in (known by name), the full spec for a custom one."""
    if name in BUILT_IN:
        return {}
    return NetworkProfile.objects.get(organization=organization, name=name).spec


def network_profiles_listing(*, organization: Organization) -> list[dict[str, Any]]:
    custom = [{"name": p.name, "built_in": False, "origin": "custom", "description": p.description,
               "down_kbit": p.spec["down"].get("rate_kbit"), "up_kbit": p.spec["up"].get("rate_kbit"),
               "rtt_ms": p.spec["down"]["delay_ms"] + p.spec["up"]["delay_ms"],
               "loss_pct": p.spec["down"]["loss_pct"], "spec": p.spec}
              for p in NetworkProfile.objects.filter(organization=organization)]
    return [built_in_payload(name) for name in BUILT_IN] + custom
