"""Serves the installed apps' static files (the Django admin's, the self-hosted Swagger UI's)
from the app that ships each, so a production process needs no collectstatic step or web
server beside gunicorn for these few files."""

from pathlib import Path

from django.contrib.staticfiles import finders
from django.http import Http404, HttpRequest
from django.http.response import HttpResponseBase
from django.views.decorators.http import require_GET

from .spa import _asset


@require_GET
def static_file(request: HttpRequest, path: str) -> HttpResponseBase:
    # finders.find joins safely: a path out of the apps' static directories is refused.
    found = finders.find(path)
    if not isinstance(found, str):
        raise Http404("No such static file.")
    response = _asset(request, Path(found), immutable=False)
    response["Cache-Control"] = "public, max-age=3600"
    return response
