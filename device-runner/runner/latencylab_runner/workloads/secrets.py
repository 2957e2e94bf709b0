"""Organization secrets in a leased run: the lease's `secrets` map ({NAME: value}, only the
names the spec references) is substituted for `{{secret.NAME}}` in the job's header values
in memory, right before the block runs, and redacted from whatever goes back to the server
(samples' error_detail, the finish report's error). The job with the values never touches a
disk: the host probe runs it in this process, the block worker reads it on stdin. The host
driver drops the map when the run ends."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

REFERENCE = re.compile(r"\{\{secret\.([A-Z][A-Z0-9_]{0,63})\}\}")
REDACTED = "[redacted secret]"


class MissingSecret(Exception):
    """The spec references a secret the lease does not carry (deleted after submission)."""


def substitute_headers(job: dict[str, Any], secrets: Mapping[str, str]) -> None:
    """Replace every `{{secret.NAME}}` in the job's header values with its value, in place."""

    def value_of(match: re.Match[str]) -> str:
        name = match.group(1)
        if name not in secrets:
            raise MissingSecret(f"the spec references {{{{secret.{name}}}}}, which this lease does not carry: the "
                                f"secret was deleted after the comparison was submitted (or the server can no "
                                f"longer decrypt it)")
        return secrets[name]

    for request in job["requests"]:
        headers = request.get("headers")
        if not headers:
            continue
        for name, value in headers.items():
            if "{{secret." in value:
                headers[name] = REFERENCE.sub(value_of, value)


def redact(text: str, secrets: Mapping[str, str]) -> str:
    """`text` with every secret value replaced by a marker (longest first, so a value that
    contains another is replaced whole)."""
    if not text or not secrets:
        return text
    for value in sorted(secrets.values(), key=len, reverse=True):
        if value:
            text = text.replace(value, REDACTED)
    return text


def redact_samples(samples: list[dict[str, Any]], secrets: Mapping[str, str]) -> None:
    """A client or server error message may echo a header back: never upload a value."""
    if not secrets:
        return
    for sample in samples:
        if sample.get("error_detail"):
            sample["error_detail"] = redact(sample["error_detail"], secrets)
