"""A logging filter that takes credentials out of every line before a handler writes it:
Authorization values, LatencyLab's own secrets (API, runner, enrollment, invitation and
share-link tokens, webhook signing secrets), share-link tokens in paths (Django logs the path
of every 4xx) and password fields. Installed on the console handler (settings.LOGGING)."""

import logging
import re

REDACTED = "[redacted]"

_PATTERNS: list[tuple[re.Pattern[str], str]] = [
    # Authorization: Bearer …, Runner …, Enroll …, Basic …, Token … (capitalized as clients send
    # them, so "runner lab-1" in a sentence stays; our own tokens are caught below anyway)
    (re.compile(r"\b(Bearer|Runner|Enroll|Basic|Token|bearer)(\s+)[^\s'\",;]+"), rf"\1\2{REDACTED}"),
    # apps.core.tokens.new_secret ("ll<kind>_…") and webhook signing secrets ("whsec_…")
    (re.compile(r"\b(ll[a-z]|whsec)_[A-Za-z0-9_-]{8,}"), rf"\1_{REDACTED}"),
    # a share link's token is its path: /r/<token>, /api/v1/public/reports/<token>[/…]
    (re.compile(r"(/r/|/public/reports/)[^/\s'\"?]+"), rf"\1{REDACTED}"),
    # password=…, "password": "…" (also new_password, password1, …)
    (re.compile(r"([\"']?\w*password\w*[\"']?\s*[:=]\s*)(\"[^\"]*\"|'[^']*'|[^\s&,;}]+)", re.IGNORECASE),
     rf"\1{REDACTED}"),
    # session and CSRF cookies
    (re.compile(r"\b(sessionid|csrftoken)=[^\s;'\"]+", re.IGNORECASE), rf"\1={REDACTED}"),
]


def redact(text: str) -> str:
    for pattern, replacement in _PATTERNS:
        text = pattern.sub(replacement, text)
    return text


class RedactSecretsFilter(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        record.msg = redact(record.getMessage())
        record.args = ()
        if record.exc_info and not record.exc_text:
            record.exc_text = logging.Formatter().formatException(record.exc_info)
        if record.exc_text:
            record.exc_text = redact(record.exc_text)
        return True
