"""/r/<token>: the dashboard's app shell with the report's OpenGraph and Twitter meta tags in
<head>, so a link pasted into Slack or a pull request previews the result. A revoked, expired
or unknown link gets the same shell with status 404 (the app then says the link is no longer
valid)."""

import html
from pathlib import Path

from django.conf import settings
from django.http import HttpRequest, HttpResponse

from .models import ShareLink
from .rendering import report_document_cached


def meta_tags(request: HttpRequest, link: ShareLink, token: str) -> str:
    document = report_document_cached(scope=str(link.pk), comparison=link.comparison)
    title = f"{document['name']} · LatencyLab"
    description = str(document.get("verdict_line") or "")
    image = request.build_absolute_uri(f"/api/v1/public/reports/{token}/card.png")
    url = request.build_absolute_uri(f"/r/{token}")
    tags = [
        ("property", "og:type", "article"), ("property", "og:site_name", "LatencyLab"),
        ("property", "og:title", title), ("property", "og:description", description),
        ("property", "og:url", url), ("property", "og:image", image),
        ("property", "og:image:width", "1200"), ("property", "og:image:height", "630"),
        ("name", "twitter:card", "summary_large_image"), ("name", "twitter:title", title),
        ("name", "twitter:description", description), ("name", "twitter:image", image),
        ("name", "description", description), ("name", "robots", "noindex"),
    ]
    lines = [f'<meta {kind}="{html.escape(key)}" content="{html.escape(value)}" />' for kind, key, value in tags]
    return "\n    ".join(lines)


def app_shell_with_meta(request: HttpRequest, link: ShareLink | None, token: str) -> HttpResponse:
    index = Path(settings.FRONTEND_DIST) / "index.html"
    if not index.is_file():
        return HttpResponse("The frontend is not built (run `npm run build` in frontend/).", status=503,
                            content_type="text/plain")
    shell = index.read_text(encoding="utf-8")
    if link is None:
        head = '<meta name="robots" content="noindex" />'
        status = 404
    else:
        head = meta_tags(request, link, token)
        status = 200
    page = shell.replace("</head>", f"    {head}\n  </head>", 1)
    response = HttpResponse(page, status=status, content_type="text/html; charset=utf-8")
    response["Referrer-Policy"] = "no-referrer"  # the token is in the URL: do not pass it on
    response["Cache-Control"] = "no-store"
    return response
