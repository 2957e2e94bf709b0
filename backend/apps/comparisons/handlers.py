"""Reactions of the comparisons app to its own events (subscribed in apps.ComparisonsConfig.ready):
the tasks sit above the services, so the services announce and this module schedules."""

from functools import partial

from django.db import transaction

from apps.core.events import subscribe

from .events import COMPARISON_CREATED
from .tasks import plan_comparison


def plan_after_commit(*, comparison_id: str) -> None:
    transaction.on_commit(partial(plan_comparison.delay, comparison_id))


def register() -> None:
    subscribe(COMPARISON_CREATED, plan_after_commit)
