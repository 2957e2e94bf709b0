"""Content-Security-Policy on every response (settings.CONTENT_SECURITY_POLICY), in development
too, so the end-to-end tests run the dashboard under the policy production sends."""

from collections.abc import Callable

from django.conf import settings
from django.http import HttpRequest, HttpResponse

HEADER = "Content-Security-Policy"


def policy_header(policy: dict[str, list[str]]) -> str:
    return "; ".join(" ".join([directive, *sources]) for directive, sources in policy.items())


class ContentSecurityPolicyMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]):
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        # A view that needs another policy sets its own header.
        if HEADER not in response:
            response[HEADER] = policy_header(settings.CONTENT_SECURITY_POLICY)
        return response
