"""comparisons.reconcile: work whose task was lost (a Redis restart, a dropped message) is
done again from what PostgreSQL says, once, and fresh work is left to its own task."""

from datetime import timedelta

import pytest
from django.utils import timezone

from apps.comparisons.models import Comparison, Run
from apps.comparisons.services import comparison_create, comparison_plan
from apps.scheduler.reconcile import comparisons_reconcile
from testing.factories import SPEC


def aged(comparison: Comparison, minutes: int) -> None:
    then = timezone.now() - timedelta(minutes=minutes)
    Comparison.objects.filter(pk=comparison.pk).update(created_at=then, updated_at=then)


@pytest.mark.django_db
def test_a_comparison_whose_planning_task_was_lost_is_planned_once(org, pool):
    # Not a transactional test: comparison_create's on_commit (the planning task) never fires.
    lost = comparison_create(organization=org, submitted_spec=SPEC)
    fresh = comparison_create(organization=org, submitted_spec={**SPEC, "name": "fresh"})
    aged(lost, minutes=3)
    assert not lost.runs.exists()

    assert comparisons_reconcile() == {"planned": [str(lost.pk)], "analysing": []}
    assert lost.runs.count() >= 1
    assert not fresh.runs.exists()  # a minute old: its own task is still due
    assert comparisons_reconcile() == {"planned": [], "analysing": []}


@pytest.mark.django_db
def test_a_comparison_whose_runs_are_all_over_goes_to_analysis(org, pool):
    comparison = comparison_create(organization=org, submitted_spec=SPEC)
    comparison_plan(comparison_id=str(comparison.pk))
    comparison.runs.update(status=Run.Status.DONE, finished_at=timezone.now())
    Comparison.objects.filter(pk=comparison.pk).update(status=Comparison.Status.RUNNING)
    aged(comparison, minutes=3)

    assert comparisons_reconcile()["analysing"] == [str(comparison.pk)]
    comparison.refresh_from_db()
    assert comparison.status == Comparison.Status.ANALYSING
    assert comparisons_reconcile()["analysing"] == []


@pytest.mark.django_db
def test_a_comparison_with_a_run_still_leased_is_left_running(org, pool):
    comparison = comparison_create(organization=org, submitted_spec=SPEC)
    comparison_plan(comparison_id=str(comparison.pk))
    runs = list(comparison.runs.order_by("pk"))
    Run.objects.filter(pk__in=[r.pk for r in runs[1:]]).update(status=Run.Status.DONE)
    Run.objects.filter(pk=runs[0].pk).update(status=Run.Status.LEASED)
    Comparison.objects.filter(pk=comparison.pk).update(status=Comparison.Status.RUNNING)
    aged(comparison, minutes=30)

    assert comparisons_reconcile()["analysing"] == []
    comparison.refresh_from_db()
    assert comparison.status == Comparison.Status.RUNNING


@pytest.mark.django_db
def test_after_the_broker_lost_its_data_a_fresh_comparison_is_planned_at_once(org, pool):
    fresh = comparison_create(organization=org, submitted_spec=SPEC)  # its planning task: gone with Redis
    assert comparisons_reconcile() == {"planned": [], "analysing": []}  # young: its task may yet run
    assert comparisons_reconcile(broker_lost=True) == {"planned": [str(fresh.pk)], "analysing": []}
    assert fresh.runs.exists()
    assert comparisons_reconcile(broker_lost=True) == {"planned": [], "analysing": []}
