"""The results app's reactions to comparison events (subscribed in apps.ResultsConfig.ready)."""

from functools import partial

from django.db import transaction

from apps.comparisons.events import COMPARISON_RUNS_DONE
from apps.core.events import subscribe

from .events import MEASUREMENTS_IMPORTED
from .tasks import analyse_comparison


def analyse_after_commit(*, comparison_id: str) -> None:
    transaction.on_commit(partial(analyse_comparison.delay, comparison_id))


def register() -> None:
    subscribe(COMPARISON_RUNS_DONE, analyse_after_commit)
    subscribe(MEASUREMENTS_IMPORTED, analyse_after_commit)
