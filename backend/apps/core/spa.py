"""Serves the built React app on the same origin as the API (session + CSRF for browsers)."""

from pathlib import Path

from django.conf import settings
from django.http import FileResponse, Http404, HttpRequest
from django.views.decorators.http import require_GET


@require_GET
def spa(request: HttpRequest, path: str = "") -> FileResponse:
    dist = Path(settings.FRONTEND_DIST)
    candidate = (dist / path).resolve()
    if path and candidate.is_file() and dist.resolve() in candidate.parents:
        return FileResponse(open(candidate, "rb"))
    index = dist / "index.html"
    if not index.is_file():
        raise Http404("The frontend is not built (run `make up` or `npm run build` in frontend/).")
    # Client-side routes (e.g. /comparisons/<id>) all get the app shell.
    return FileResponse(open(index, "rb"), content_type="text/html")
