"""organization_of() and runner_of(): the typed way views read what authentication/permission resolved."""

import pytest
from rest_framework.request import Request
from rest_framework.test import APIRequestFactory

from apps.accounts.authentication import ApiTokenAuthentication
from apps.accounts.permissions import IsOrganizationMember, organization_of
from apps.accounts.services import api_token_create
from apps.devices.authentication import runner_of


def _request(**headers: str) -> Request:
    return Request(APIRequestFactory().get("/api/v1/comparisons", **headers), authenticators=[ApiTokenAuthentication()])


def test_organization_of_returns_what_the_permission_resolved(org):
    _, secret = api_token_create(organization=org, name="ro", scopes=["read"])
    request = _request(HTTP_AUTHORIZATION=f"Bearer {secret}")
    assert IsOrganizationMember().has_permission(request, view=None)
    assert organization_of(request) == org


def test_organization_of_and_runner_of_refuse_a_request_nothing_resolved():
    request = _request()
    with pytest.raises(RuntimeError, match="IsOrganizationMember"):
        organization_of(request)
    with pytest.raises(RuntimeError, match="IsRunner"):
        runner_of(request)
