"""HTTP latency by route, for Prometheus (apps.monitoring serves it at /metrics).

The route label is the URL pattern that matched (`api/v1/comparisons/<uuid:comparison_id>`),
never the raw path, so ids do not multiply the series. gunicorn runs several worker processes:
with PROMETHEUS_MULTIPROC_DIR set (stack.py, the image) each writes its samples to that
directory and a scrape sums them (prometheus_client's multiprocess mode); without it, a scrape
sees the answering process only.
"""

import time
from collections.abc import Callable

from django.http import HttpRequest
from django.http.response import HttpResponseBase
from prometheus_client import Histogram

# Seconds: a cached results read is ~10 ms, a lease long-poll up to 25 s.
BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0)

HTTP_REQUEST_SECONDS = Histogram(
    "latencylab_http_request_duration_seconds", "Time to answer an HTTP request, by URL pattern",
    ["route", "method", "status"], buckets=BUCKETS)


class HttpMetricsMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponseBase]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponseBase:
        started = time.perf_counter()
        response = self.get_response(request)
        match = getattr(request, "resolver_match", None)
        route = match.route if match is not None and match.route else "unmatched"
        status = f"{response.status_code // 100}xx"
        HTTP_REQUEST_SECONDS.labels(route=route, method=request.method or "", status=status).observe(
            time.perf_counter() - started)
        return response
