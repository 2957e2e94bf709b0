"""A runner's token finds it with its pool and the pool's organization loaded, as the ORM's
select_related would (apps.devices.authentication.runner_by_token_hash): the same field values,
JSON fields as Python values, nothing more read later, no organization for a hosted pool."""

from typing import Any

import pytest
from django.db import connection
from django.db.models import Model
from django.test.utils import CaptureQueriesContext

from apps.core.tokens import digest
from apps.devices.authentication import runner_by_token_hash
from apps.devices.models import DevicePool, Runner
from apps.devices.services import runner_register


def fields(instance: Model) -> dict[str, Any]:
    return {field.attname: getattr(instance, field.attname) for field in type(instance)._meta.concrete_fields}


@pytest.mark.django_db
def test_a_runner_comes_with_its_pool_and_organization_as_the_orm_reads_them(runner_api):
    Runner.objects.filter(pk=runner_api.runner.pk).update(lab_faults=[{"kind": "adb", "n": 2}])
    with CaptureQueriesContext(connection) as queries:
        runner = runner_by_token_hash(runner_api.runner.token_hash)
        assert runner is not None
        organization = runner.pool.organization
    assert len(queries) == 1
    orm = Runner.objects.select_related("pool", "pool__organization").get(pk=runner.pk)
    assert fields(runner) == fields(orm)
    assert fields(runner.pool) == fields(orm.pool)
    assert fields(organization) == fields(orm.pool.organization)
    assert (runner.drivers, runner.lab_faults) == (["host"], [{"kind": "adb", "n": 2}])
    assert not runner._state.adding
    runner.save(update_fields=["hostname"])  # a loaded instance, saved as one


@pytest.mark.django_db
def test_a_hosted_pools_runner_has_no_organization():
    pool = DevicePool.objects.create(organization=None, slug="hosted", name="Hosted", kind=DevicePool.Kind.HOSTED)
    registered, secret = runner_register(pool=pool, name="fleet-1")
    runner = runner_by_token_hash(digest(secret))
    assert runner is not None
    assert (runner.pk, runner.pool.pk, runner.pool.organization) == (registered.pk, pool.pk, None)


@pytest.mark.django_db
def test_an_unknown_token_finds_no_runner():
    assert runner_by_token_hash(digest("not a token")) is None
