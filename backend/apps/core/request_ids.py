"""Gives each request an id (the proxy's X-Request-ID when it is a sane one, else a new one),
returns it in the X-Request-ID response header, and binds it, with the comparison and run the
URL names, for the log lines the request causes (apps.core.log_context)."""

import re
import uuid
from collections.abc import Callable
from typing import Any

from django.http import HttpRequest
from django.http.response import HttpResponseBase

from .log_context import bind

HEADER = "X-Request-ID"
# What a proxy's id may look like (a client's header must not inject into log lines).
SANE_ID = re.compile(r"^[A-Za-z0-9._-]{8,64}$")


class RequestIdMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponseBase]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponseBase:
        given = request.headers.get(HEADER, "")
        request_id = given if SANE_ID.match(given) else uuid.uuid4().hex
        bind(request_id=request_id, comparison_id=None, run_id=None)
        response = self.get_response(request)
        response[HEADER] = request_id
        return response

    def process_view(self, request: HttpRequest, view: Any, args: Any, kwargs: dict[str, Any]) -> None:
        ids = {name: str(kwargs[name]) for name in ("comparison_id", "run_id") if name in kwargs}
        if ids:
            bind(**ids)
