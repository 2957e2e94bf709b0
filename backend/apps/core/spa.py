"""Serves the built React app on the same origin as the API (session + CSRF for browsers)."""

import gzip
import mimetypes
from functools import lru_cache
from pathlib import Path

from django.conf import settings
from django.http import FileResponse, Http404, HttpRequest
from django.http.response import HttpResponseBase
from django.utils.cache import patch_vary_headers
from django.views.decorators.http import require_GET

from .compression import accepts_gzip, answer

# Text assets worth compressing: Plotly's chunk alone is ~1.4 MB, ~0.45 MB gzipped.
COMPRESSIBLE = {".js", ".css", ".svg", ".json", ".map", ".txt"}
# Vite names what it emits under assets/ by content hash, so a name never changes meaning.
IMMUTABLE_DIR = "assets"


@require_GET
def spa(request: HttpRequest, path: str = "") -> HttpResponseBase:
    dist = Path(settings.FRONTEND_DIST)
    candidate = (dist / path).resolve()
    if path and candidate.is_file() and dist.resolve() in candidate.parents:
        return _asset(request, candidate, immutable=candidate.parent.name == IMMUTABLE_DIR)
    index = dist / "index.html"
    if not index.is_file():
        raise Http404("The frontend is not built (run `make up` or `npm run build` in frontend/).")
    # Client-side routes (e.g. /comparisons/<id>) all get the app shell.
    return FileResponse(open(index, "rb"), content_type="text/html")


def _asset(request: HttpRequest, file: Path, *, immutable: bool) -> HttpResponseBase:
    response: HttpResponseBase
    if file.suffix in COMPRESSIBLE and accepts_gzip(request):
        stat = file.stat()
        response = answer(_gzipped(str(file), stat.st_mtime_ns, stat.st_size),
                          content_type=mimetypes.guess_type(file.name)[0] or "application/octet-stream", gzipped=True)
    else:
        response = FileResponse(open(file, "rb"))
        if file.suffix in COMPRESSIBLE:
            patch_vary_headers(response, ["Accept-Encoding"])
    if immutable:
        response["Cache-Control"] = "public, max-age=31536000, immutable"
    return response


@lru_cache(maxsize=64)
def _gzipped(path: str, mtime_ns: int, size: int) -> bytes:
    """One compression per file version (a rebuilt file has a new mtime and size)."""
    return gzip.compress(Path(path).read_bytes(), compresslevel=6)
