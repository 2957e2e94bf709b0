"""Cancelling a comparison while a runner is leasing one of its runs: no deadlock.

Leasing locks a run, then marks its comparison running; cancelling used to lock the comparison,
then the runs — opposite orders, and PostgreSQL aborted one of them ("deadlock detected", a 500
to the user who pressed Cancel). The lease's transaction is played by hand so the two
interleave exactly: the lease holds the run, the cancel starts and PostgreSQL shows it waiting
for a lock the lease holds, then the lease touches the comparison."""

import threading

import pytest
from django.db import connection, transaction
from django.utils import timezone

from apps.comparisons.models import Comparison, Run
from apps.comparisons.services import comparison_cancel
from testing.waiting import wait_for


def blocked_by_this_session() -> bool:
    """Whether another session waits for a lock this one holds (pg_locks is read live, not from
    the statistics snapshot pg_stat_activity keeps for the rest of a transaction)."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT EXISTS (SELECT 1 FROM pg_locks WHERE NOT granted "
                       "AND pg_backend_pid() = ANY(pg_blocking_pids(pid)))")
        return bool(cursor.fetchone()[0])


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
        # The cancel has reached a lock the lease holds (before the fix: the comparison's taken, the
        # run's awaited). The bound only ends a wait that would never end.
        assert wait_for(blocked_by_this_session, 30), "the cancel never waited for the lease's lock"
        Comparison.objects.filter(pk=comparison.pk, status=Comparison.Status.QUEUED).update(
            status=Comparison.Status.RUNNING, started_at=timezone.now())
    canceller.join(30)

    assert not canceller.is_alive()
    assert cancel_errors == []
    comparison.refresh_from_db()
    assert comparison.status == Comparison.Status.CANCELLED
    assert Run.objects.get(pk=queued_run.pk).status == Run.Status.CANCELLED
