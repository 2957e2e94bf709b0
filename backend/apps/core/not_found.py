"""The 404 of a path no URL pattern matches: under /api/ it is JSON like every other API
answer (a client parsing `detail` should not meet Django's HTML page); elsewhere Django's."""

from django.http import HttpRequest, HttpResponse, JsonResponse
from django.views.defaults import page_not_found


def not_found(request: HttpRequest, exception: Exception) -> HttpResponse:
    if request.path.startswith("/api/"):
        return JsonResponse({"detail": "Not found."}, status=404)
    return page_not_found(request, exception)
