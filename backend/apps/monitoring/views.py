"""GET /metrics in Prometheus' text format, for the operator's Prometheus only: it needs
`Authorization: Bearer <LATENCYLAB_METRICS_TOKEN>`, and without that setting the endpoint
does not exist (404), so an installation exposes nothing until its operator chooses to."""

import hmac
import os

from django.conf import settings
from django.http import Http404, HttpRequest, HttpResponse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET
from prometheus_client import CONTENT_TYPE_LATEST, REGISTRY, CollectorRegistry, generate_latest, multiprocess

from .collector import ServiceCollector


@never_cache
@require_GET
def metrics(request: HttpRequest) -> HttpResponse:
    token = settings.LATENCYLAB_METRICS_TOKEN
    if not token:
        raise Http404
    given = request.headers.get("Authorization", "")
    if not hmac.compare_digest(given.encode(), f"Bearer {token}".encode()):
        return HttpResponse("metrics need the operator's bearer token\n", status=401, content_type="text/plain",
                            headers={"WWW-Authenticate": 'Bearer realm="metrics"'})
    return HttpResponse(generate_latest(scrape_registry()), content_type=CONTENT_TYPE_LATEST)


def scrape_registry() -> CollectorRegistry:
    """The service's figures, plus every web process's HTTP histograms (multiprocess mode) or
    this process's own (single process)."""
    registry = CollectorRegistry()
    registry.register(ServiceCollector())
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        multiprocess.MultiProcessCollector(registry)
        return registry
    registry.register(REGISTRY)  # a registry is a collector too: this process's histograms
    return registry
