"""Fake GitHub REST v3 and GitLab REST v4 servers on 127.0.0.1, for the PR/MR comment tests.

GitHub and GitLab cannot exist on this machine, so these stand in for them. They hold
to the documented contracts the `latencylab comment` command relies on, and
test_ci_comment.py checks that they do:

GitHub (docs.github.com/rest/issues/comments):
- `Authorization: Bearer TOKEN` or `token TOKEN`, else 401 {"message": "Bad credentials"};
  no User-Agent: 403; a token without write permission: 403 "Resource not accessible by integration".
- GET /repos/{owner}/{repo}/issues/{number}/comments: ascending by id, `per_page` (default
  30, at most 100) and `page`, a Link header with rel="next"/"last" (and "prev"/"first"),
  absolute URLs.
- POST the same path with {"body": …} → 201 and the comment; PATCH
  /repos/{owner}/{repo}/issues/comments/{comment_id} → 200; a missing body → 422
  "Validation Failed"; an unknown repository, issue or comment → 404 {"message": "Not Found"}.
GitLab (docs.gitlab.com/api/notes):
- `PRIVATE-TOKEN: TOKEN` (or `Authorization: Bearer TOKEN`), else 401 {"message": "401 Unauthorized"}.
- /api/v4/projects/{id or URL-encoded path}/merge_requests/{iid}/notes: GET sorted by
  created_at `desc` unless sort=asc, per_page default 20 (at most 100), X-Page, X-Per-Page,
  X-Total, X-Total-Pages, X-Next-Page, X-Prev-Page and a Link header; POST {"body"} → 201;
  PUT …/notes/{note_id} → 200; a missing body → 400 {"error": "body is missing"}; system
  notes cannot be edited (403); unknown → 404 {"message": "404 Not found"}.
"""

from __future__ import annotations

import datetime as dt
import itertools
import json
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, unquote, urlencode, urlsplit


@dataclass
class Seen:
    method: str
    path: str
    query: dict[str, list[str]]
    headers: dict[str, str]
    body: Any


def _now() -> str:
    return dt.datetime.now(dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _links(base: str, path: str, query: dict[str, str], page: int, last: int) -> str:
    def url(number: int) -> str:
        return f"{base}{path}?{urlencode({**query, 'page': number})}"

    parts = []
    if page < last:
        parts += [f'<{url(page + 1)}>; rel="next"', f'<{url(last)}>; rel="last"']
    if page > 1:
        parts += [f'<{url(1)}>; rel="first"', f'<{url(page - 1)}>; rel="prev"']
    return ", ".join(parts)


class _Server:
    name = "forge"

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.requests: list[Seen] = []
        self.ids = itertools.count(1_000_001)
        # Answers to give before the real one: [(method, status)], consumed in order (a 502 from a proxy).
        self.fail_next: list[tuple[str, int]] = []
        owner = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:
                pass

            def _handle(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length) if length else b""
                try:
                    body = json.loads(raw) if raw else None
                except ValueError:
                    body = raw.decode(errors="replace")
                parts = urlsplit(self.path)
                seen = Seen(self.command, parts.path, parse_qs(parts.query),
                            {k.lower(): v for k, v in self.headers.items()}, body)
                with owner.lock:
                    owner.requests.append(seen)
                    injected = next((i for i, (m, _) in enumerate(owner.fail_next) if m == self.command), None)
                    if injected is not None:
                        status, document, headers = owner.fail_next.pop(injected)[1], {"message": "Bad Gateway"}, {}
                    else:
                        base = f"http://{self.headers.get('Host')}"
                        status, document, headers = owner.route(seen, base)
                payload = json.dumps(document).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json; charset=utf-8")
                self.send_header("Content-Length", str(len(payload)))
                for key, value in headers.items():
                    self.send_header(key, value)
                self.end_headers()
                self.wfile.write(payload)

            do_GET = do_POST = do_PATCH = do_PUT = do_DELETE = _handle

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}"

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()

    def route(self, seen: Seen, base: str) -> tuple[int, Any, dict[str, str]]:
        raise NotImplementedError

    def writes(self) -> list[Seen]:
        return [r for r in self.requests if r.method in ("POST", "PATCH", "PUT")]


class FakeGitHub(_Server):
    name = "GitHub"

    def __init__(self, *, tokens: dict[str, str]) -> None:
        """tokens: token → "write" or "read"."""
        self.tokens = tokens
        self.issues: dict[tuple[str, int], list[dict[str, Any]]] = {}
        super().__init__()

    def add_pull_request(self, repo: str, number: int) -> None:
        self.issues.setdefault((repo, number), [])

    def add_comment(self, repo: str, number: int, body: str, *, login: str = "octocat",
                    base: str | None = None) -> dict[str, Any]:
        comment_id = next(self.ids)
        api = base or self.url
        comment = {
            "id": comment_id, "node_id": f"IC_kw{comment_id}",
            "url": f"{api}/repos/{repo}/issues/comments/{comment_id}",
            "html_url": f"https://github.com/{repo}/pull/{number}#issuecomment-{comment_id}", "body": body,
            "user": {"login": login, "id": 1 if login == "octocat" else 41898282,
                     "type": "Bot" if login.endswith("[bot]") else "User"},
            "created_at": _now(), "updated_at": _now(), "issue_url": f"{api}/repos/{repo}/issues/{number}",
            "author_association": "NONE" if login.endswith("[bot]") else "MEMBER", "performed_via_github_app": None,
        }
        self.issues[(repo, number)].append(comment)
        return comment

    def comments(self, repo: str, number: int) -> list[dict[str, Any]]:
        return self.issues[(repo, number)]

    def route(self, seen: Seen, base: str) -> tuple[int, Any, dict[str, str]]:
        not_found = (404, {"message": "Not Found", "documentation_url": "https://docs.github.com/rest"}, {})
        if not seen.headers.get("user-agent"):
            return 403, {"message": "Request forbidden by administrative rules. Please make sure your request has a "
                                    "User-Agent header"}, {}
        scheme, _, token = seen.headers.get("authorization", "").partition(" ")
        if scheme.lower() not in ("bearer", "token") or token not in self.tokens:
            return 401, {"message": "Bad credentials", "documentation_url": "https://docs.github.com/rest",
                         "status": "401"}, {}
        segments = seen.path.strip("/").split("/")
        if len(segments) < 5 or segments[0] != "repos" or segments[3] != "issues":
            return not_found
        repo = f"{segments[1]}/{segments[2]}"
        rest = segments[4:]
        if seen.method in ("POST", "PATCH") and self.tokens[token] != "write":
            return 403, {"message": "Resource not accessible by integration",
                         "documentation_url": "https://docs.github.com/rest/issues/comments", "status": "403"}, {}
        if len(rest) == 2 and rest[0].isdigit() and rest[1] == "comments":
            key = (repo, int(rest[0]))
            if key not in self.issues:
                return not_found
            if seen.method == "GET":
                query = {k: v[-1] for k, v in seen.query.items()}
                try:
                    per_page = min(max(int(query.get("per_page", 30)), 1), 100)
                    page = max(int(query.get("page", 1)), 1)
                except ValueError:
                    per_page, page = 30, 1
                items = sorted(self.issues[key], key=lambda c: c["id"])
                last = max(1, -(-len(items) // per_page))
                chunk = items[(page - 1) * per_page: page * per_page]
                links = _links(base, seen.path, {k: v for k, v in query.items() if k != "page"}, page, last)
                return 200, chunk, ({"Link": links} if links else {})
            if seen.method == "POST":
                problem = self._body_problem(seen.body)
                if problem:
                    return problem
                return 201, self.add_comment(repo, key[1], seen.body["body"], login="github-actions[bot]",
                                             base=base), {}
            return 404, {"message": "Not Found"}, {}
        if len(rest) == 2 and rest[0] == "comments" and rest[1].isdigit() and seen.method in ("GET", "PATCH"):
            for (owner_repo, _number), comments in self.issues.items():
                for comment in comments:
                    if owner_repo == repo and comment["id"] == int(rest[1]):
                        if seen.method == "GET":
                            return 200, comment, {}
                        problem = self._body_problem(seen.body)
                        if problem:
                            return problem
                        comment["body"] = seen.body["body"]
                        comment["updated_at"] = _now()
                        return 200, comment, {}
            return not_found
        return not_found

    @staticmethod
    def _body_problem(body: Any) -> tuple[int, Any, dict[str, str]] | None:
        if not isinstance(body, dict) or not isinstance(body.get("body"), str):
            return 422, {"message": "Validation Failed",
                         "errors": [{"resource": "IssueComment", "code": "missing_field", "field": "body"}],
                         "documentation_url": "https://docs.github.com/rest/issues/comments"}, {}
        if len(body["body"]) > 65536:
            return 422, {"message": "Validation Failed", "errors": [{"resource": "IssueComment", "code": "custom",
                                                                     "field": "body",
                                                                     "message": "body is too long (maximum is 65536 "
                                                                                "characters)"}]}, {}
        return None


@dataclass
class _MergeRequest:
    project_id: int
    path: str
    iid: int
    notes: list[dict[str, Any]] = field(default_factory=list)


class FakeGitLab(_Server):
    name = "GitLab"

    def __init__(self, *, tokens: set[str]) -> None:
        self.tokens = tokens
        self.mrs: dict[tuple[int, int], _MergeRequest] = {}
        super().__init__()

    @property
    def api(self) -> str:
        return f"{self.url}/api/v4"

    def add_merge_request(self, project_id: int, path: str, iid: int) -> None:
        self.mrs[(project_id, iid)] = _MergeRequest(project_id, path, iid)

    def add_note(self, project_id: int, iid: int, body: str, *, system: bool = False,
                 username: str = "alice") -> dict[str, Any]:
        note_id = next(self.ids)
        note = {"id": note_id, "type": None, "body": body, "attachment": None,
                "author": {"id": 7, "username": username, "name": username.title(), "state": "active"},
                "created_at": _now(), "updated_at": _now(), "system": system, "noteable_id": 90_000 + iid,
                "noteable_type": "MergeRequest", "project_id": project_id, "resolvable": False, "confidential": False,
                "internal": False, "noteable_iid": iid, "commands_changes": {}}
        self.mrs[(project_id, iid)].notes.append(note)
        return note

    def notes(self, project_id: int, iid: int) -> list[dict[str, Any]]:
        return self.mrs[(project_id, iid)].notes

    def _find(self, project: str, iid: str) -> _MergeRequest | None:
        if not iid.isdigit():
            return None
        for mr in self.mrs.values():
            if mr.iid == int(iid) and (project == str(mr.project_id) or project == mr.path):
                return mr
        return None

    def route(self, seen: Seen, base: str) -> tuple[int, Any, dict[str, str]]:
        not_found = (404, {"message": "404 Not found"}, {})
        scheme, _, bearer = seen.headers.get("authorization", "").partition(" ")
        token = seen.headers.get("private-token") or (bearer if scheme.lower() == "bearer" else "")
        if token not in self.tokens:
            return 401, {"message": "401 Unauthorized"}, {}
        # Split the raw path first: a project path arrives URL-encoded (group%2Fname).
        segments = [unquote(s) for s in seen.path.strip("/").split("/")]
        if segments[:3] != ["api", "v4", "projects"] or len(segments) < 7 or segments[4] != "merge_requests" \
                or segments[6] != "notes":
            return not_found
        mr = self._find(segments[3], segments[5])
        if mr is None:
            return not_found
        rest = segments[7:]
        if not rest and seen.method == "GET":
            query = {k: v[-1] for k, v in seen.query.items()}
            try:
                per_page = min(max(int(query.get("per_page", 20)), 1), 100)
                page = max(int(query.get("page", 1)), 1)
            except ValueError:
                return 400, {"error": "per_page is invalid"}, {}
            key = "updated_at" if query.get("order_by") == "updated_at" else "created_at"
            items = sorted(mr.notes, key=lambda n: (n[key], n["id"]), reverse=query.get("sort", "desc") != "asc")
            last = max(1, -(-len(items) // per_page))
            chunk = items[(page - 1) * per_page: page * per_page]
            headers = {"X-Page": str(page), "X-Per-Page": str(per_page), "X-Total": str(len(items)),
                       "X-Total-Pages": str(last), "X-Next-Page": str(page + 1) if page < last else "",
                       "X-Prev-Page": str(page - 1) if page > 1 else ""}
            links = _links(base, seen.path, {k: v for k, v in query.items() if k != "page"}, page, last)
            if links:
                headers["Link"] = links
            return 200, chunk, headers
        if not rest and seen.method == "POST":
            if not isinstance(seen.body, dict) or not isinstance(seen.body.get("body"), str) or not seen.body["body"]:
                return 400, {"error": "body is missing"}, {}
            return 201, self.add_note(mr.project_id, mr.iid, seen.body["body"], username="project_bot"), {}
        if len(rest) == 1 and rest[0].isdigit() and seen.method in ("GET", "PUT"):
            note = next((n for n in mr.notes if n["id"] == int(rest[0])), None)
            if note is None:
                return not_found
            if seen.method == "GET":
                return 200, note, {}
            if note["system"]:
                return 403, {"message": "403 Forbidden"}, {}
            if not isinstance(seen.body, dict) or not isinstance(seen.body.get("body"), str):
                return 400, {"error": "body is missing"}, {}
            note["body"] = seen.body["body"]
            note["updated_at"] = _now()
            return 200, note, {}
        return not_found
