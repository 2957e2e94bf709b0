"""Cancelling a comparison while a runner is leasing one of its runs: no deadlock.

Leasing locks a run, then marks its comparison running; cancelling used to lock the comparison,
then the runs — opposite orders, and PostgreSQL aborted one of them ("deadlock detected", a 500
to the user who pressed Cancel). The lease's transaction is played by hand so the two
interleave exactly: the lease holds the run, the cancel starts, then the lease touches the
comparison."""

import threading
import time

import pytest
from django.db import connection, transaction
from django.utils import timezone

from apps.comparisons.models import Comparison, Run
from apps.comparisons.services import comparison_cancel


@pytest.mark.django_db(transaction=True)
def test_cancel_waits_for_a_lease_in_progress_instead_of_deadlocking(queued_run):
    comparison = queued_run.comparison
    cancel_errors: list[BaseException] = []

    def cancel() -> None:
        try:
            with transaction.atomic():
                comparison_cancel(comparison=comparison)
        except BaseException as error:  # noqa: BLE001 — reported by the assertion below
            cancel_errors.append(error)
        finally:
            connection.close()

    with transaction.atomic():
        Run.objects.select_for_update().get(pk=queued_run.pk)  # the lease holds the run
        canceller = threading.Thread(target=cancel)
        canceller.start()
        time.sleep(0.5)  # lets the cancel reach the lock it waits for (ordering, not a timing check)
        Comparison.objects.filter(pk=comparison.pk, status=Comparison.Status.QUEUED).update(
            status=Comparison.Status.RUNNING, started_at=timezone.now())
    canceller.join(30)

    assert not canceller.is_alive()
    assert cancel_errors == []
    comparison.refresh_from_db()
    assert comparison.status == Comparison.Status.CANCELLED
    assert Run.objects.get(pk=queued_run.pk).status == Run.Status.CANCELLED
