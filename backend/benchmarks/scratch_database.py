"""A benchmark's own database: Django's test database created for the run and dropped after,
as the test suite does (the benchmark never touches a real one)."""

from collections.abc import Iterator
from contextlib import contextmanager

from django.conf import settings
from django.db import connections
from django.test.utils import get_runner, setup_test_environment


@contextmanager
def scratch_database() -> Iterator[None]:
    setup_test_environment()
    runner = get_runner(settings)(verbosity=0, interactive=False)
    old = runner.setup_databases()
    try:
        yield
    finally:
        connections.close_all()
        runner.teardown_databases(old)
