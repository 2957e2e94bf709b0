import itertools

import pytest
from django.core.cache import cache

from apps.comparisons.models import Comparison
from apps.reports.api.throttling import PublicReportThrottle
from testing.factories import run_measured_comparison

SPEC = {"name": "h2 vs h1 on the lab host", "preset": "mid-image-series",
        "workload": {"kind": "series", "periods": [3], "repetitions": 10}, "blocks": 10, "seed": 9,
        "tags": {"branch": "main"}}

_addresses = itertools.count(10)


def fresh_ip() -> str:
    """A client address of its own: the public endpoints' rate limit is per IP, and its history
    outlives a test run (Redis), so the address starts afresh."""
    address = f"198.51.100.{next(_addresses) % 250}"
    cache.delete(PublicReportThrottle.cache_format % {"scope": PublicReportThrottle.scope, "ident": address})
    return address


@pytest.fixture
def client_ip() -> str:
    return fresh_ip()


@pytest.fixture
def finished(org, runner_api) -> Comparison:
    return run_measured_comparison(runner_api, org, spec=SPEC, speed={"https-h1": 1.0, "h2": 0.5}, seed=1)
