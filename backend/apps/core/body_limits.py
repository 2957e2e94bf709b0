"""413 for a request body over its path's bound, decided from Content-Length before a byte of
the body is read (so nothing is parsed and nothing written). Django reads no body without a
Content-Length, so the header bounds every body that reaches a view."""

from collections.abc import Callable

from django.conf import settings
from django.http import HttpRequest, HttpResponse, JsonResponse


def body_limit_for(path: str) -> int:
    """The bound of the longest REQUEST_BODY_LIMITS prefix that `path` starts with."""
    limits: dict[str, int] = settings.REQUEST_BODY_LIMITS
    prefix = max((p for p in limits if path.startswith(p)), key=len)
    return limits[prefix]


def _mib(n: int) -> str:
    return f"{n / (1024 * 1024):g} MiB" if n >= 1024 * 1024 else f"{n / 1024:g} KiB"


class BodySizeLimitMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]):
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        try:
            declared = int(request.META.get("CONTENT_LENGTH") or 0)
        except ValueError:
            return JsonResponse({"detail": "Content-Length: must be a whole number of bytes."}, status=400)
        limit = body_limit_for(request.path)
        if declared > limit:
            response = JsonResponse(
                {"detail": f"Request body too large: {declared} bytes; at most {limit} bytes ({_mib(limit)}) "
                           f"for {request.path}.", "limit_bytes": limit},
                status=413)
            # The client may still be sending: a length lets it read the answer without waiting.
            response["Content-Length"] = str(len(response.content))
            return response
        return self.get_response(request)
