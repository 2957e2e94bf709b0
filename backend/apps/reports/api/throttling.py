from typing import Any

from django.conf import settings
from rest_framework.throttling import SimpleRateThrottle


class PublicReportThrottle(SimpleRateThrottle):
    """Per client IP, in the shared cache (Redis), for every public report endpoint together.
    The rate is LATENCYLAB_PUBLIC_REPORT_RATE (read per request, so tests may lower it)."""

    scope = "public_report"

    def get_rate(self) -> str:
        return str(settings.PUBLIC_REPORT_RATE)

    def allow_request(self, request: Any, view: Any) -> bool:
        self.rate = self.get_rate()
        self.num_requests, self.duration = self.parse_rate(self.rate)
        return super().allow_request(request, view)

    def get_cache_key(self, request: Any, view: Any) -> str:
        return self.cache_format % {"scope": self.scope, "ident": self.get_ident(request)}
