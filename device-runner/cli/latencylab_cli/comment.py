"""`latencylab comment`: keep ONE pull-request / merge-request comment with the verdict, updated in place.

The comment starts with a hidden marker, `<!-- latencylab:KEY -->`. Every run lists the
PR's comments (all pages), edits the first one that starts with its marker, and creates
one only when there is none; two specs gating the same PR use two keys and keep two
comments.

GitHub: REST API v3 issue comments (a pull request is an issue).
    GET   {api}/repos/{owner}/{repo}/issues/{number}/comments?per_page=100   (Link: rel="next")
    PATCH {api}/repos/{owner}/{repo}/issues/comments/{comment_id}           {"body": …} → 200
    POST  {api}/repos/{owner}/{repo}/issues/{number}/comments               {"body": …} → 201
    Authorization: Bearer $GITHUB_TOKEN; API base $GITHUB_API_URL (GitHub Enterprise) or api.github.com.
GitLab: REST API v4 merge request notes.
    GET   {api}/projects/{id}/merge_requests/{iid}/notes?per_page=100&sort=asc&order_by=created_at
    PUT   {api}/projects/{id}/merge_requests/{iid}/notes/{note_id}          {"body": …} → 200
    POST  {api}/projects/{id}/merge_requests/{iid}/notes                    {"body": …} → 201
    PRIVATE-TOKEN: $GITLAB_TOKEN (a project or personal access token with scope api; CI_JOB_TOKEN
    cannot write notes); API base $CI_API_V4_URL.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote

import httpx

from .errors import InfraError, UsageError

GITHUB_API = "https://api.github.com"
# GitHub refuses bodies over 65,536 characters; GitLab's limit is 1,000,000.
BODY_LIMIT = {"github": 65_536, "gitlab": 1_000_000}
MAX_PAGES = 100  # 10,000 comments: beyond that something is wrong with the PR or the server
# "Not processed, try again" even for a POST; other server errors only for requests safe to repeat.
RETRY_ALWAYS = {429, 503}
RETRY_IF_IDEMPOTENT = {500, 502, 504}
_KEY = re.compile(r"^[A-Za-z0-9._/][A-Za-z0-9._/:@+ -]{0,199}$")  # a spec's path, e.g. .latencylab/gate.yaml
_NEXT_LINK = re.compile(r'<([^>]+)>\s*;\s*rel="?next"?')
_REPO = re.compile(r"^[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+$")
TRUNCATED = "\n\n… (truncated: the full report is in the job summary / artifacts)\n"


def marker(key: str) -> str:
    if not _KEY.match(key) or "--" in key:
        raise UsageError(f"--key {key!r} must be 1–200 letters, digits, spaces or ._/:@+- (no '--'), not starting "
                         "with '-': it goes into an HTML comment")
    return f"<!-- latencylab:{key} -->"


def compose(key: str, markdown: str, *, limit: int) -> str:
    """The comment body: the marker on the first line, then the report, cut to the host's limit."""
    head = marker(key) + "\n"
    body = head + markdown.rstrip("\n") + "\n"
    if len(body) > limit:
        body = body[: limit - len(TRUNCATED)] + TRUNCATED
    return body


def next_link(header: str | None) -> str | None:
    """The rel="next" URL of an RFC 8288 Link header, as GitHub and GitLab send it."""
    if not header:
        return None
    for part in header.split(","):
        if match := _NEXT_LINK.search(part):
            return match.group(1)
    return None


@dataclass
class Outcome:
    action: str  # "created" or "updated"
    id: Any
    url: str | None


class _Http:
    """A few requests with retries on 429/5xx and connection errors (a POST only when nothing was sent)."""

    def __init__(self, base: str, headers: dict[str, str], *, host: str, retries: int,
                 sleep: Callable[[float], None] = time.sleep, warn: Callable[[str], None] | None = None) -> None:
        self.host = host
        self.retries = max(0, retries)
        self._sleep = sleep
        self._warn = warn or (lambda message: None)
        self._http = httpx.Client(base_url=base.rstrip("/"), headers=headers, timeout=httpx.Timeout(30.0, connect=10.0))

    def close(self) -> None:
        self._http.close()

    def send(self, method: str, url: str, *, what: str, **kwargs: Any) -> httpx.Response:
        idempotent = method in ("GET", "PUT", "PATCH")  # the same body twice leaves the same comment
        problem = ""
        for attempt in range(self.retries + 1):
            try:
                response = self._http.request(method, url, **kwargs)
            except (httpx.ConnectError, httpx.ConnectTimeout) as exc:
                problem = f"cannot connect to the {self.host} API: {exc}"
            except httpx.TransportError as exc:
                if not idempotent:
                    raise InfraError(f"{what}: connection lost ({exc}); not retried: the comment may exist") from exc
                problem = f"{what}: {type(exc).__name__}: {exc}"
            else:
                code = response.status_code
                if code not in RETRY_ALWAYS and not (idempotent and code in RETRY_IF_IDEMPOTENT):
                    return self._check(response, what=what)
                problem = f"{what}: {self.host} answered {response.status_code}"
            if attempt < self.retries:
                delay = min(2.0 ** attempt, 30.0)
                self._warn(f"{problem}; retrying in {delay:.0f} s ({attempt + 1}/{self.retries})")
                self._sleep(delay)
        raise InfraError(f"{problem} (gave up after {self.retries + 1} attempts)")

    def _check(self, response: httpx.Response, *, what: str) -> httpx.Response:
        code = response.status_code
        if code < 400:
            return response
        try:
            body = response.json()
            detail = body.get("message") or body.get("error") or body if isinstance(body, dict) else body
        except ValueError:
            detail = " ".join(response.text.split())[:200] or response.reason_phrase
        if code in (401, 403):
            hint = ("the token needs permission to write pull-request comments (workflow permissions: "
                    "pull-requests: write)" if self.host == "GitHub" else
                    "the token needs scope api and at least the Reporter role (CI_JOB_TOKEN cannot write notes)")
            raise UsageError(f"{what}: not authorised ({code}): {detail}", details=[hint])
        if code == 404:
            raise UsageError(f"{what}: not found (404): {detail}",
                             details=["check the repository/project and the PR/MR number, and that the token can "
                                      "see them"])
        if code >= 500 or code == 429:
            raise InfraError(f"{what}: {self.host} answered {code}: {detail}")
        raise UsageError(f"{what}: {self.host} answered {code}: {detail}")


class GitHub:
    host = "GitHub"

    def __init__(self, api: str, token: str, repo: str, number: int, **kwargs: Any) -> None:
        if not _REPO.match(repo):
            raise UsageError(f"--repo {repo!r} must be OWNER/NAME")
        self.repo, self.number = repo, number
        self.http = _Http(api, {"Authorization": f"Bearer {token}", "Accept": "application/vnd.github+json",
                                "X-GitHub-Api-Version": "2022-11-28"}, host=self.host, **kwargs)

    def comments(self) -> Iterator[dict[str, Any]]:
        url: str | None = f"/repos/{self.repo}/issues/{self.number}/comments"
        params: dict[str, Any] | None = {"per_page": 100}
        for _ in range(MAX_PAGES):
            if url is None:
                return
            response = self.http.send("GET", url, what="list the pull request's comments", params=params)
            yield from _list_of_objects(response, "comments")
            url, params = next_link(response.headers.get("Link")), None
        raise InfraError(f"more than {MAX_PAGES} pages of comments; not searching further")

    def update(self, comment: dict[str, Any], body: str) -> Outcome:
        response = self.http.send("PATCH", f"/repos/{self.repo}/issues/comments/{comment['id']}",
                                  what="update the comment", json={"body": body})
        document = _object(response)
        return Outcome("updated", document.get("id", comment["id"]), document.get("html_url"))

    def create(self, body: str) -> Outcome:
        response = self.http.send("POST", f"/repos/{self.repo}/issues/{self.number}/comments",
                                  what="create the comment", json={"body": body})
        document = _object(response)
        return Outcome("created", document.get("id"), document.get("html_url"))


class GitLab:
    host = "GitLab"

    def __init__(self, api: str, token: str, project: str, iid: int, **kwargs: Any) -> None:
        if not project.strip():
            raise UsageError("--project must be the project's id or its path (group/name)")
        # A path goes URL-encoded (group%2Fname), as the API wants it.
        self.project = project if project.isdigit() else quote(project, safe="")
        self.iid = iid
        self.http = _Http(api, {"PRIVATE-TOKEN": token, "Accept": "application/json"}, host=self.host, **kwargs)

    def _notes(self) -> str:
        return f"/projects/{self.project}/merge_requests/{self.iid}/notes"

    def comments(self) -> Iterator[dict[str, Any]]:
        url: str | None = self._notes()
        params: dict[str, Any] | None = {"per_page": 100, "sort": "asc", "order_by": "created_at"}
        for _ in range(MAX_PAGES):
            if url is None:
                return
            response = self.http.send("GET", url, what="list the merge request's notes", params=params)
            yield from _list_of_objects(response, "notes")
            following = next_link(response.headers.get("Link"))
            if following is None and (page := response.headers.get("X-Next-Page", "").strip()):
                # Without a Link header (very large lists), GitLab still says which page is next.
                following, params = self._notes(), {"per_page": 100, "sort": "asc", "order_by": "created_at",
                                                     "page": page}
            else:
                params = None
            url = following
        raise InfraError(f"more than {MAX_PAGES} pages of notes; not searching further")

    def update(self, comment: dict[str, Any], body: str) -> Outcome:
        response = self.http.send("PUT", f"{self._notes()}/{comment['id']}", what="update the note",
                                  json={"body": body})
        document = _object(response)
        return Outcome("updated", document.get("id", comment["id"]), None)

    def create(self, body: str) -> Outcome:
        response = self.http.send("POST", self._notes(), what="create the note", json={"body": body})
        document = _object(response)
        return Outcome("created", document.get("id"), None)


def _list_of_objects(response: httpx.Response, what: str) -> list[dict[str, Any]]:
    try:
        items = response.json()
    except ValueError as exc:
        raise InfraError(f"the {what} list is not JSON") from exc
    if not isinstance(items, list):
        raise InfraError(f"the {what} list is not a JSON array")
    return [item for item in items if isinstance(item, dict)]


def _object(response: httpx.Response) -> dict[str, Any]:
    try:
        document = response.json()
    except ValueError as exc:
        raise InfraError(f"answer {response.status_code} without JSON") from exc
    if not isinstance(document, dict):
        raise InfraError(f"answer {response.status_code} is not a JSON object")
    return document


def upsert(target: GitHub | GitLab, key: str, markdown: str) -> Outcome:
    """Edit the first comment that starts with the key's marker, or create one."""
    head = marker(key)
    body = compose(key, markdown, limit=BODY_LIMIT["github" if isinstance(target, GitHub) else "gitlab"])
    try:
        for comment in target.comments():
            text = comment.get("body")
            if isinstance(text, str) and text.lstrip().startswith(head) and comment.get("id") is not None:
                if text == body:
                    return Outcome("unchanged", comment["id"], comment.get("html_url"))
                return target.update(comment, body)
        return target.create(body)
    finally:
        target.http.close()


__all__ = ["GITHUB_API", "GitHub", "GitLab", "Outcome", "compose", "marker", "next_link", "upsert"]
