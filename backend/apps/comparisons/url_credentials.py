"""No credentials in a URL of a spec (`https://user:password@host/`, `https://TOKEN@host/`).

A spec is stored as written and every member of the organization reads it (the detail page,
the API, exports, a re-run): a password or token in a URL's userinfo would sit there in
plain text. Organization secrets exist for exactly this (apps.accounts; `{{secret.NAME}}` in
a request header, substituted by the runner in memory). So any URL a spec holds — an arm's
endpoint, a request list's `url`, a series' or mixed workload's object and file URLs, a tag
value that is a URL, a HAR import's URLs and origin — is refused when its authority carries
userinfo, with a 400 naming the field. The JSON Schema says the same (`SCHEMA_PATTERN`).
"""

import re

from rest_framework import serializers

# scheme://userinfo@…: an `@` before the authority ends (at the first /, ? or #), as
# urllib.parse.urlsplit reads the netloc. Written for both Python's re and ECMA-262 (the
# JSON Schema's `pattern`).
PATTERN = r"^[A-Za-z][A-Za-z0-9+.-]*://[^/?#]*@"
# What the JSON Schema puts on such a field: any string but a URL with userinfo.
SCHEMA_PATTERN = f"^(?!{PATTERN[1:]})"
_CREDENTIALS = re.compile(PATTERN)
MESSAGE = ("Must not carry credentials (user:password@ or a token as the user name): every member of the "
           "organization can read a spec. Store them as an organization secret (POST /api/v1/secrets) and send "
           "them in a header of a requests workload as {{secret.NAME}}, e.g. Authorization: Bearer "
           "{{secret.API_TOKEN}}.")


def url_credentials_problem(value: str) -> str | None:
    """MESSAGE when `value` is a URL whose authority carries userinfo; None otherwise."""
    return MESSAGE if _CREDENTIALS.match(value) else None


def refuse_url_credentials(value: str) -> None:
    """A DRF validator for any string field that may hold a URL (tag values, for one)."""
    if problem := url_credentials_problem(value):
        raise serializers.ValidationError(problem)
