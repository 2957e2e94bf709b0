"""LatencyLab's operators in the Django admin: a staff user and the admin actions it runs,
through Django's test client (what a browser posts)."""

from typing import Any

from django.contrib.auth.models import Permission, User
from django.test import Client


def operator_client(*, username: str = "ops", codenames: tuple[str, ...] | None = None) -> Client:
    """A signed-in staff user; with `codenames`, holding only those permissions, else a superuser."""
    user = User.objects.create_user(username=username, password="ops-pw-123456", is_staff=True,
                                    is_superuser=codenames is None)
    if codenames:
        user.user_permissions.set(Permission.objects.filter(codename__in=codenames))
    client = Client()
    client.force_login(user)
    return client


def admin_action(client: Client, changelist: str, action: str, pks: list[Any], *, reason: str | None = None) -> Any:
    """Run an admin action on the changelist (e.g. "/admin/devices/device/"); with a reason,
    confirm its intermediate page the way the form there does."""
    data: dict[str, Any] = {"action": action, "_selected_action": [str(pk) for pk in pks]}
    if reason is not None:
        data |= {"apply": "1", "reason": reason}
    return client.post(changelist, data)
