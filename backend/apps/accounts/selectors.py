from django.http import HttpRequest

from .models import ApiToken, Membership, Organization


def organization_for_request(request: HttpRequest) -> Organization | None:
    """The organization a request acts for: the token's, or the session user's first membership."""
    auth = getattr(request, "auth", None)
    if isinstance(auth, ApiToken):
        return auth.organization
    user = getattr(request, "user", None)
    if user is None or not user.is_authenticated:
        return None
    membership = Membership.objects.select_related("organization").filter(user=user).order_by("created_at").first()
    return membership.organization if membership else None
