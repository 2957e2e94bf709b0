"""rows_update: one UPDATE … FROM (VALUES …) writes what QuerySet.bulk_update writes — every
row its own values, of every kind of column the runner protocol's hot writes touch (a foreign
key set and cleared, an array of UUIDs, JSON, timestamps set and cleared, text) — and leaves
the other rows and columns alone."""

from datetime import timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from apps.comparisons.models import Run
from apps.comparisons.services import comparison_create, comparison_plan
from apps.core.bulk import rows_update
from apps.devices.models import Device
from apps.devices.services import pool_get_or_create
from apps.scheduler.tests.test_lease_queue_order import runner_with_devices
from testing.factories import SPEC

COLUMNS = ["state", "state_reason", "last_seen_at", "infra_failures", "capabilities", "updated_at"]


def _values(devices: list[Device], fields: list[str]) -> list[list]:
    return [[getattr(device, field) for field in fields]
            for device in Device.objects.filter(pk__in=[d.pk for d in devices]).order_by("serial")]


@pytest.mark.django_db
def test_rows_update_writes_what_bulk_update_writes_in_one_statement(org):
    pool = pool_get_or_create(organization=org, slug="local", name="Local")
    _, first = runner_with_devices(pool, "lab-1", count=3)
    _, second = runner_with_devices(pool, "lab-2", count=3)
    now = timezone.now()
    changes = [
        {"state": Device.State.BUSY, "state_reason": "running 'a' (wifi), attempt 1", "last_seen_at": now,
         "infra_failures": [{"kind": "device_fault", "error": "adb: device offline", "at": now.isoformat()}],
         "capabilities": {"protocols": ["h1", "h2"]}, "updated_at": now},
        {"state": Device.State.AVAILABLE, "state_reason": "", "last_seen_at": None, "infra_failures": [],
         "capabilities": {}, "updated_at": now - timedelta(seconds=5)},
        {"state": Device.State.QUARANTINED, "state_reason": "quoted ' \" and \\ and a NUL-free ünïcode reason",
         "last_seen_at": now + timedelta(microseconds=7), "infra_failures": [{"nested": {"list": [1, 2.5, None]}}],
         "capabilities": {"shapes": True}, "updated_at": now},
    ]
    ours = list(Device.objects.filter(serial__in=first).order_by("serial"))
    django = list(Device.objects.filter(serial__in=second).order_by("serial"))
    for group in (ours, django):
        for device, change in zip(group, changes, strict=True):
            for field, value in change.items():
                setattr(device, field, value)
    with CaptureQueriesContext(connection) as queries:
        assert rows_update(Device, ours, COLUMNS) == 3
    assert len(queries) == 1
    Device.objects.bulk_update(django, COLUMNS)
    ours_stored = _values(ours, COLUMNS)
    assert ours_stored == _values(django, COLUMNS)  # lab-1-dN against lab-2-dN
    assert ours_stored == [[change[column] for column in COLUMNS] for change in changes]


@pytest.mark.django_db
def test_rows_update_writes_foreign_keys_arrays_and_nulls_and_nothing_else(org):
    pool = pool_get_or_create(organization=org, slug="local", name="Local")
    _, serials = runner_with_devices(pool, "lab-1", count=2)
    devices = list(Device.objects.filter(serial__in=serials).order_by("serial"))
    for n in range(3):
        comparison_plan(comparison_id=str(comparison_create(organization=org, submitted_spec={**SPEC, "seed": n}).pk))
    runs = list(Run.objects.order_by("pk"))
    untouched = runs.pop()
    before = Run.objects.values().get(pk=untouched.pk)
    runs[0].device, runs[0].failed_device_ids, runs[0].lease_expires_at = devices[0], [devices[1].pk], timezone.now()
    runs[1].device, runs[1].failed_device_ids, runs[1].lease_expires_at = None, [], None
    runs[0].attempt, runs[1].attempt = 3, 0
    rows_update(Run, runs, ["device", "failed_device_ids", "lease_expires_at", "attempt"])
    stored = {run.pk: run for run in Run.objects.filter(pk__in=[run.pk for run in runs])}
    for run in runs:
        again = stored[run.pk]
        assert (again.device_id, again.failed_device_ids, again.lease_expires_at, again.attempt) == (
            run.device_id, run.failed_device_ids, run.lease_expires_at, run.attempt)
        assert again.status == Run.Status.QUEUED  # a column not named is not written
    assert Run.objects.values().get(pk=untouched.pk) == before


@pytest.mark.django_db
def test_rows_update_writes_nothing_for_no_rows_and_refuses_the_key():
    with CaptureQueriesContext(connection) as queries:
        assert rows_update(Device, [], ["state"]) == 0
    assert len(queries) == 0
    with pytest.raises(ValueError, match="concrete non-key fields only"):
        rows_update(Device, [Device()], ["id"])
