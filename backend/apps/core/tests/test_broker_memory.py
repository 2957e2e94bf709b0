"""apps.core.broker_memory: a reconciler learns that the broker (real Redis) lost its data,
once, and only after its work succeeded is the loss taken as handled."""

import uuid

import pytest
import redis
from django.conf import settings

from apps.core.broker_memory import MARKER, broker_loss_check


@pytest.fixture
def consumer():
    name = f"test-{uuid.uuid4().hex}"
    yield name
    redis.Redis.from_url(settings.CELERY_BROKER_URL).delete(MARKER.format(consumer=name))


def looks_lost(consumer: str) -> bool:
    with broker_loss_check(consumer) as lost:
        return lost


def test_a_missing_marker_is_a_loss_once_then_the_broker_is_trusted(consumer):
    assert looks_lost(consumer) is True
    assert looks_lost(consumer) is False
    redis.Redis.from_url(settings.CELERY_BROKER_URL).delete(MARKER.format(consumer=consumer))  # Redis restarted
    assert looks_lost(consumer) is True
    assert looks_lost(consumer) is False


def reconcile_failing(consumer: str) -> None:
    with broker_loss_check(consumer):
        raise RuntimeError("PostgreSQL is away too")


def test_a_reconciliation_that_fails_sees_the_loss_again_next_time(consumer):
    with pytest.raises(RuntimeError):
        reconcile_failing(consumer)
    assert looks_lost(consumer) is True
