"""results.reconcile_analyses: a comparison stuck in `analysing` past any analysis task's time
limit is queued for analysis again, through the real broker, and not again a minute later."""

import json
from datetime import timedelta

import pytest
import redis
from django.conf import settings
from django.utils import timezone

from apps.comparisons.models import Comparison
from apps.comparisons.services import comparison_create
from apps.core.broker_memory import broker_loss_check
from apps.results.reconcile import STUCK_AFTER, stuck_analyses_claim
from apps.results.tasks import reconcile_analyses
from testing.factories import SPEC


def queued_analyses(client: redis.Redis) -> list[str]:
    """The comparison ids of analysis tasks waiting in the Celery queue (kombu's JSON envelope)."""
    found = []
    for raw in client.lrange("celery", 0, -1):
        headers = json.loads(raw)["headers"]
        if headers["task"] == "results.analyse_comparison":
            found.append(headers["argsrepr"])
    return found


@pytest.mark.django_db
def test_a_stuck_analysis_is_queued_again_once_per_time_limit(org, pool):
    stuck = comparison_create(organization=org, submitted_spec=SPEC)
    recent = comparison_create(organization=org, submitted_spec={**SPEC, "name": "recent"})
    long_ago = timezone.now() - STUCK_AFTER - timedelta(minutes=1)
    Comparison.objects.filter(pk=stuck.pk).update(status=Comparison.Status.ANALYSING, updated_at=long_ago)
    Comparison.objects.filter(pk=recent.pk).update(status=Comparison.Status.ANALYSING)
    client = redis.Redis.from_url(settings.CELERY_BROKER_URL)

    def queued_for(comparison: Comparison) -> int:
        return sum(str(comparison.pk) in args for args in queued_analyses(client))

    before = queued_for(stuck), queued_for(recent)
    with broker_loss_check("analyses"):
        pass  # the broker kept its data: only age says a task was lost
    reconcile_analyses()
    assert queued_for(stuck) == before[0] + 1
    assert queued_for(recent) == before[1]  # analysing for seconds only: its task is alive
    assert stuck_analyses_claim() == []  # touched: the next retry waits another STUCK_AFTER


@pytest.mark.django_db
def test_after_the_broker_lost_its_data_every_analysis_is_queued_again_at_once(org, pool):
    recent = comparison_create(organization=org, submitted_spec={**SPEC, "name": "recent"})
    Comparison.objects.filter(pk=recent.pk).update(status=Comparison.Status.ANALYSING)
    client = redis.Redis.from_url(settings.CELERY_BROKER_URL)
    client.delete("latencylab:broker-kept:analyses")  # what a Redis restart without persistence does

    def queued() -> int:
        return sum(str(recent.pk) in args for args in queued_analyses(client))

    before = queued()
    reconcile_analyses()
    assert queued() == before + 1
    reconcile_analyses()  # the marker is back: a second look waits for age again
    assert queued() == before + 1
