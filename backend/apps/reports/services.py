"""Share links: create (the raw token is returned once and never stored), revoke, and count
opens of the public report without a write per open."""

import datetime as dt

from django.contrib.auth.models import User
from django.core.cache import cache
from django.db import transaction
from django.db.models import F
from django.utils import timezone

from apps.accounts.actor import NO_ACTOR, Actor
from apps.accounts.models import Organization
from apps.comparisons.models import Comparison
from apps.core.cache_outage import RedisError, cache_unreachable
from apps.core.errors import ApplicationError
from apps.core.events import publish
from apps.core.tokens import digest, new_secret, visible_prefix

from .events import SHARE_LINK_CREATED, SHARE_LINK_REVOKED
from .models import ShareLink

MIN_EXPIRY = dt.timedelta(hours=1)
MAX_EXPIRY_DAYS = 365
MAX_EXPIRY = dt.timedelta(days=MAX_EXPIRY_DAYS)
# Opens are counted in the cache and written to the link at most once per this many seconds.
OPEN_FLUSH_SECONDS = 60


def _expiry(*, expires_in_days: int | None, expires_at: dt.datetime | None) -> dt.datetime | None:
    if expires_in_days is not None and expires_at is not None:
        raise ApplicationError("expires_at: give either expires_in_days or expires_at, not both",
                               extra={"expires_at": ["Give either expires_in_days or expires_at, not both."]})
    now = timezone.now()
    if expires_in_days is not None:
        if isinstance(expires_in_days, bool) or not 1 <= expires_in_days <= MAX_EXPIRY_DAYS:
            message = f"Must be a whole number of days from 1 to {MAX_EXPIRY_DAYS}; got {expires_in_days}."
            raise ApplicationError(f"expires_in_days: {message}", extra={"expires_in_days": [message]})
        return now + dt.timedelta(days=expires_in_days)
    if expires_at is not None:
        if not now + MIN_EXPIRY <= expires_at <= now + MAX_EXPIRY:
            message = f"Must be between 1 hour and {MAX_EXPIRY_DAYS} days from now; got {expires_at.isoformat()}."
            raise ApplicationError(f"expires_at: {message}", extra={"expires_at": [message]})
        return expires_at
    return None


@transaction.atomic
def share_link_create(*, organization: Organization, comparison: Comparison, created_by: User | None,
                      expires_in_days: int | None = None, expires_at: dt.datetime | None = None,
                      actor: Actor = NO_ACTOR) -> tuple[ShareLink, str]:
    """The link and its raw token (256 random bits), which is shown once and only its digest kept."""
    if comparison.organization_id != organization.pk:
        raise ApplicationError("comparison: not in this organization", status_code=404)
    expiry = _expiry(expires_in_days=expires_in_days, expires_at=expires_at)
    token = new_secret("s")
    link = ShareLink.objects.create(organization=organization, comparison=comparison, created_by=created_by,
                                    prefix=visible_prefix(token), token_hash=digest(token), expires_at=expiry)
    _announce(SHARE_LINK_CREATED, link=link, actor=actor)
    return link, token


@transaction.atomic
def share_link_revoke(*, link: ShareLink, actor: Actor = NO_ACTOR) -> ShareLink:
    """Revoked at once for every reader: the public endpoints check the link before any cache."""
    if link.revoked_at is None:
        link.revoked_at = timezone.now()
        link.save(update_fields=["revoked_at", "updated_at"])
        # How often it was opened while it worked, with the opens not yet written from the cache.
        opens = link.open_count + pending_opens(link)
        _announce(SHARE_LINK_REVOKED, link=link, actor=actor, open_count=opens)
    return link


def _announce(event: str, *, link: ShareLink, actor: Actor, **details: object) -> None:
    publish(event, organization_id=link.organization_id, **actor.event_fields(), share_link_id=str(link.pk),
            share_link_prefix=link.prefix, comparison_id=str(link.comparison_id),
            comparison_name=link.comparison.name, **details)


def pending_opens_key(link_id: object) -> str:
    return f"reports:opens:{link_id}"


def pending_opens(link: ShareLink) -> int:
    """The link's opens counted in the cache, not yet written to it (0 without the cache)."""
    try:
        return max(int(cache.get(pending_opens_key(link.pk)) or 0), 0)
    except RedisError as error:
        cache_unreachable("share-link-opens", error)
        return 0


def share_link_record_open(*, link: ShareLink) -> None:
    """One more open of the report. Opens add up in the cache; the first open in a minute
    writes them to the link (last_opened_at, open_count) with one UPDATE, so a popular link
    costs at most one write a minute. Concurrent opens between the read and the decrement
    stay pending for the next write, none is lost; the lists add the pending ones
    (selectors.share_links_with_pending_opens). Without the cache (Redis down) the open is
    written at once; an open counted in the cache is written once, never twice (the pending
    count is taken from the cache before it is written to the link)."""
    pending_key = pending_opens_key(link.pk)
    try:
        cache.add(pending_key, 0, timeout=None)
        cache.incr(pending_key)
    except RedisError as error:
        cache_unreachable("share-link-opens", error)
        _write_opens(link, 1)
        return
    try:
        if not cache.add(f"reports:opens-written:{link.pk}", 1, timeout=OPEN_FLUSH_SECONDS):
            return
        pending = int(cache.get(pending_key) or 0)
        if pending <= 0:
            return
        cache.decr(pending_key, pending)
    except RedisError as error:
        cache_unreachable("share-link-opens", error)
        return  # still pending in the cache: a later open writes it
    _write_opens(link, pending)


def _write_opens(link: ShareLink, opens: int) -> None:
    ShareLink.objects.filter(pk=link.pk).update(last_opened_at=timezone.now(), open_count=F("open_count") + opens)
