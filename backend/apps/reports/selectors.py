from collections.abc import Iterable

from django.core.cache import cache
from django.db.models import Q, QuerySet
from django.utils import timezone

from apps.accounts.models import Organization
from apps.comparisons.models import Comparison
from apps.core.cache_outage import RedisError, cache_unreachable
from apps.core.tokens import digest

from .models import ShareLink
from .services import pending_opens_key


def share_links_for(*, organization: Organization) -> QuerySet[ShareLink]:
    return ShareLink.objects.filter(organization=organization).select_related("created_by", "comparison")


def share_links_of_comparison(*, organization: Organization, comparison: Comparison) -> QuerySet[ShareLink]:
    return share_links_for(organization=organization).filter(comparison=comparison)


def share_link_live(*, token: str) -> ShareLink | None:
    """The link a raw token opens, when it is neither revoked nor expired. The token itself is
    the scope: it reaches its one comparison and nothing else of the organization."""
    if not token or len(token) > 200:
        return None
    now = timezone.now()
    return (ShareLink.objects.filter(token_hash=digest(token), revoked_at__isnull=True)
            .filter(Q(expires_at__isnull=True) | Q(expires_at__gt=now))
            .select_related("comparison").first())


def share_links_with_pending_opens(links: Iterable[ShareLink]) -> list[ShareLink]:
    """The links with the opens still counted in the cache added (services.share_link_record_open
    writes them at most once a minute), so a list shows every open at once."""
    rows = list(links)
    try:
        pending = cache.get_many([pending_opens_key(link.pk) for link in rows]) if rows else {}
    except RedisError as error:
        cache_unreachable("share-link-opens", error)
        pending = {}  # the written opens only, until the cache answers
    for link in rows:
        link.open_count += max(int(pending.get(pending_opens_key(link.pk)) or 0), 0)
    return rows
