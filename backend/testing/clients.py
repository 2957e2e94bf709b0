"""API clients that act as someone: a signed-in member of an organization with a role, or
the holder of an API token."""

from rest_framework.test import APIClient

from apps.accounts.models import Membership
from apps.accounts.services import user_ensure_member


def session_client(org, username: str, role: str = Membership.Role.OWNER) -> APIClient:
    """A signed-in session of `username` (created if missing) with `role` in `org`; the user is `client.user`."""
    user = user_ensure_member(organization=org, username=username, password="pw-123456", role=role)
    client = APIClient()
    client.force_authenticate(user)
    client.user = user
    return client


def bearer(secret: str) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {secret}")
    return client
