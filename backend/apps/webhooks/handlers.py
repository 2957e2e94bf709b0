"""The webhooks app's reaction to comparison events (subscribed in apps.WebhooksConfig.ready)."""

from functools import partial

from django.db import transaction

from apps.comparisons.events import COMPARISON_ENDED
from apps.core.events import subscribe

from .tasks import notify_comparison_ended


def notify_after_commit(*, comparison_id: str) -> None:
    transaction.on_commit(partial(notify_comparison_ended.delay, comparison_id))


def register() -> None:
    subscribe(COMPARISON_ENDED, notify_after_commit)
