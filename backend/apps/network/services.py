import json
from typing import Any

from django.db import transaction
from rest_framework import serializers

from apps.accounts.models import Organization

from .models import NetworkProfile
from .presets import BUILT_IN
from .validation import LinkSpec


@transaction.atomic
def network_profile_create(*, organization: Organization, name: str, description: str,
                           spec: Any) -> NetworkProfile:
    """`spec` is the link as submitted (any JSON); it is validated and normalized here."""
    if name in BUILT_IN:
        raise serializers.ValidationError({"name": [f"{name!r} is a built-in profile; choose another name."]})
    if NetworkProfile.objects.filter(organization=organization, name=name).exists():
        raise serializers.ValidationError({"name": [f"This organization already has a profile named {name!r}."]})
    link = LinkSpec(data=spec)
    link.is_valid(raise_exception=True)
    normalized = json.loads(json.dumps(link.validated_data))
    return NetworkProfile.objects.create(organization=organization, name=name, description=description,
                                         spec={"name": name, **normalized})
