"""The results app's reactions to comparison events (subscribed in apps.ResultsConfig.ready)."""

from functools import partial

from django.db import transaction

from apps.comparisons.events import COMPARISON_CANCELLED, COMPARISON_RUNS_DONE
from apps.core.events import subscribe

from .events import MEASUREMENTS_IMPORTED
from .tasks import analyse_comparison


def analyse_after_commit(*, comparison_id: str) -> None:
    transaction.on_commit(partial(analyse_comparison.delay, comparison_id))


def analyse_cancelled_after_commit(*, comparison_id: str, **_audit: object) -> None:
    """A cancelled comparison's stored blocks are analysed too, marked partial (services.py);
    the event's other fields are the audit log's."""
    analyse_after_commit(comparison_id=comparison_id)


def register() -> None:
    subscribe(COMPARISON_RUNS_DONE, analyse_after_commit)
    subscribe(COMPARISON_CANCELLED, analyse_cancelled_after_commit)
    subscribe(MEASUREMENTS_IMPORTED, analyse_after_commit)
