"""Our Celery tasks retry for real or carry no retry settings (apps/core/task_retries.py).

Celery retries a task only when it calls `self.retry()` or raises an error named in
`autoretry_for`; `max_retries` alone does nothing. The first test reads every tasks.py for
a task that declares retries it never makes. The second runs each task that retries on a
real worker and cuts its database connection under it, the way a PostgreSQL restart or a
failover does: the comparison's row is held by another transaction so the task waits on
it, its backend is terminated (pg_terminate_backend), and the task must come back by
itself and finish its work."""

import ast
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from celery.contrib.testing.worker import start_worker
from celery.signals import task_retry
from django.db import OperationalError, connection

from apps.comparisons.models import Comparison, Run
from apps.comparisons.services import comparison_cancel, comparison_create
from apps.comparisons.tasks import plan_comparison
from apps.core.task_retries import TRANSIENT_DATABASE_ERRORS
from apps.results.models import Analysis
from apps.results.tasks import analyse_comparison
from apps.webhooks.models import WebhookDelivery
from apps.webhooks.services import webhook_create
from apps.webhooks.tasks import notify_comparison_ended
from apps.webhooks.tests.receiver import Receiver
from config.celery import app as celery_app
from testing.factories import SPEC, run_measured_comparison
from testing.waiting import wait_for

APPS = Path(__file__).resolve().parents[2]


def task_decorators() -> Iterator[tuple[str, ast.Call, ast.FunctionDef]]:
    for path in sorted(APPS.glob("*/tasks.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.FunctionDef):
                for decorator in node.decorator_list:
                    if isinstance(decorator, ast.Call) and getattr(decorator.func, "id", "") == "shared_task":
                        yield f"{path.parent.name}/tasks.py", decorator, node


def test_no_task_declares_retries_it_never_makes():
    idle = []
    for where, decorator, function in task_decorators():
        named = {keyword.arg for keyword in decorator.keywords}
        if not named & {"max_retries", "retry_backoff", "retry_backoff_max", "retry_jitter", "retry_kwargs"}:
            continue
        calls_retry = any(isinstance(node, ast.Attribute) and node.attr == "retry" for node in ast.walk(function))
        if "autoretry_for" not in named and not calls_retry:
            idle.append(f"{where}: {function.name}")
    assert idle == []
    found = {function.name for _, _, function in task_decorators()}
    assert {"plan_comparison", "analyse_comparison", "notify_comparison_ended", "deliver"} <= found


class RowHeldElsewhere:
    """A comparison's row held FOR UPDATE by a transaction on a connection of its own, as a
    long transaction elsewhere would; `pid` is that connection's backend."""

    def __init__(self, comparison_id: str):
        self._connection = connection.get_new_connection(connection.get_connection_params())
        self._connection.autocommit = False
        with self._connection.cursor() as cursor:
            cursor.execute("SELECT pg_backend_pid()")
            self.pid = cursor.fetchone()[0]
            cursor.execute(f"SELECT 1 FROM {Comparison._meta.db_table} WHERE id = %s FOR UPDATE",  # noqa: S608
                           [comparison_id])

    def release(self) -> None:
        if not self._connection.closed:
            self._connection.rollback()
            self._connection.close()


def backends_waiting_behind(pid: int) -> list[int]:
    with connection.cursor() as cursor:
        cursor.execute("SELECT pid FROM pg_stat_activity WHERE %s = ANY(pg_blocking_pids(pid))", [pid])
        return [row[0] for row in cursor.fetchall()]


def terminate(pids: list[int]) -> None:
    with connection.cursor() as cursor:
        for pid in pids:
            cursor.execute("SELECT pg_terminate_backend(%s)", [pid])


@pytest.fixture
def retries() -> Iterator[list[tuple[str, type[BaseException]]]]:
    """Each retry a worker makes (Celery's task_retry signal): the task and the error it retried."""
    seen: list[tuple[str, type[BaseException]]] = []

    def record(sender: Any = None, reason: Any = None, **_: Any) -> None:
        seen.append((sender.name, type(getattr(reason, "exc", reason))))

    task_retry.connect(record, weak=False)
    yield seen
    task_retry.disconnect(record)


def queued_for_planning(org: Any, runner_api: Any, receiver: Receiver) -> tuple[Any, str, Callable[[], bool]]:
    comparison_id = str(comparison_create(organization=org, submitted_spec=SPEC).id)
    return plan_comparison, comparison_id, lambda: Run.objects.filter(comparison_id=comparison_id).exists()


def measured_for_analysis(org: Any, runner_api: Any, receiver: Receiver) -> tuple[Any, str, Callable[[], bool]]:
    comparison = run_measured_comparison(runner_api, org, spec=SPEC, speed={"https-h1": 1.0, "h2": 0.8}, seed=1,
                                         blocks=2)
    Comparison.objects.filter(pk=comparison.pk).update(status=Comparison.Status.ANALYSING)  # analysed again
    comparison_id = str(comparison.id)
    return analyse_comparison, comparison_id, lambda: (
        Analysis.objects.filter(comparison_id=comparison_id).count() == 2
        and Comparison.objects.get(pk=comparison_id).status == Comparison.Status.FINISHED)


def ended_with_a_webhook(org: Any, runner_api: Any, receiver: Receiver) -> tuple[Any, str, Callable[[], bool]]:
    webhook_create(organization=org, url=receiver.url, events=["comparison.failed"])
    comparison = comparison_cancel(comparison=comparison_create(organization=org, submitted_spec=SPEC))
    comparison_id = str(comparison.id)
    return notify_comparison_ended, comparison_id, lambda: WebhookDelivery.objects.filter(
        comparison_id=comparison_id).exists()


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("setup", [queued_for_planning, measured_for_analysis, ended_with_a_webhook],
                         ids=["plan_comparison", "analyse_comparison", "notify_comparison_ended"])
def test_a_task_whose_database_connection_is_cut_retries_and_finishes(setup, org, pool, runner_api, retries):
    with Receiver() as receiver:
        task, comparison_id, done = setup(org, runner_api, receiver)
        assert task.autoretry_for == TRANSIENT_DATABASE_ERRORS
        # The setup's own events queued tasks too; only the test's message is to run.
        celery_app.control.purge()
        held = RowHeldElsewhere(comparison_id)
        try:
            task.delay(comparison_id)
            with start_worker(celery_app, pool="solo", perform_ping_check=False, shutdown_timeout=10):
                assert wait_for(lambda: backends_waiting_behind(held.pid), 60), "the task never reached the row"
                terminate(backends_waiting_behind(held.pid))
                held.release()
                assert wait_for(done, 60), f"{task.name} did not finish after its connection was cut"
        finally:
            held.release()
    assert [(name, error) for name, error in retries if name == task.name] == [(task.name, OperationalError)]
