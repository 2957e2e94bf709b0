"""`latencylab comment`: one PR/MR comment per key, found by its hidden marker and updated in place.

First the fake GitHub and GitLab (tests/forge_fakes.py) are held to the public APIs'
contracts the command relies on; then the command runs against them.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from forge_fakes import FakeGitHub, FakeGitLab
from latencylab_cli import comment as comment_api
from latencylab_cli.main import main

REPO, PR = "acme/shop", 7
PROJECT_ID, PROJECT_PATH, MR = 42, "acme/shop", 3
GH_HEADERS = {"Authorization": "Bearer gh-write", "User-Agent": "test"}


@pytest.fixture
def github() -> Iterator[FakeGitHub]:
    server = FakeGitHub(tokens={"gh-write": "write", "gh-read": "read"})
    server.add_pull_request(REPO, PR)
    yield server
    server.close()


@pytest.fixture
def gitlab() -> Iterator[FakeGitLab]:
    server = FakeGitLab(tokens={"gl-api"})
    server.add_merge_request(PROJECT_ID, PROJECT_PATH, MR)
    yield server
    server.close()


@pytest.fixture
def report(tmp_path: Path) -> Path:
    path = tmp_path / "verdict.md"
    path.write_text("<!-- latencylab-verdict -->\n## LatencyLab: improvement\n\nfirst run\n")
    return path


@pytest.fixture(autouse=True)
def fast_retries(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(comment_api.time, "sleep", lambda seconds: None)


# --- the fakes keep the contracts ---------------------------------------------------------


def test_fake_github_paginates_with_link_headers_and_checks_auth(github: FakeGitHub) -> None:
    for index in range(65):
        github.add_comment(REPO, PR, f"comment {index}")
    url = f"{github.url}/repos/{REPO}/issues/{PR}/comments"
    assert httpx.get(url, headers={"User-Agent": "test"}).status_code == 401
    assert httpx.get(url, headers={"Authorization": "Bearer nope", "User-Agent": "t"}).json()["message"] == \
        "Bad credentials"
    assert httpx.get(url, headers={"Authorization": "Bearer gh-write", "User-Agent": ""}).status_code == 403
    first = httpx.get(url, headers=GH_HEADERS)
    assert len(first.json()) == 30  # GitHub's default page size
    assert first.links["next"]["url"].endswith("page=2")
    assert first.links["last"]["url"].endswith("page=3")
    bodies = []
    following: str | None = f"{url}?per_page=50"
    while following:
        page = httpx.get(following, headers=GH_HEADERS)
        bodies += [c["body"] for c in page.json()]
        following = page.links.get("next", {}).get("url")
    assert bodies == [f"comment {i}" for i in range(65)]
    assert len(httpx.get(f"{url}?per_page=500", headers=GH_HEADERS).json()) == 65  # capped at 100


def test_fake_github_writes_like_github(github: FakeGitHub) -> None:
    url = f"{github.url}/repos/{REPO}/issues/{PR}/comments"
    created = httpx.post(url, headers=GH_HEADERS, json={"body": "hi"})
    assert created.status_code == 201
    assert {"id", "html_url", "body", "user", "created_at", "updated_at"} <= set(created.json())
    patch_url = f"{github.url}/repos/{REPO}/issues/comments/{created.json()['id']}"
    assert httpx.patch(patch_url, headers=GH_HEADERS, json={"body": "edited"}).json()["body"] == "edited"
    assert httpx.post(url, headers=GH_HEADERS, json={}).status_code == 422
    assert httpx.patch(f"{github.url}/repos/{REPO}/issues/comments/1", headers=GH_HEADERS,
                       json={"body": "x"}).status_code == 404
    assert httpx.post(f"{github.url}/repos/{REPO}/issues/999/comments", headers=GH_HEADERS,
                      json={"body": "x"}).status_code == 404
    read_only = {**GH_HEADERS, "Authorization": "token gh-read"}
    assert httpx.post(url, headers=read_only, json={"body": "x"}).status_code == 403
    assert httpx.get(url, headers=read_only).status_code == 200


def test_fake_gitlab_sorts_paginates_and_checks_auth(gitlab: FakeGitLab) -> None:
    for index in range(25):
        gitlab.add_note(PROJECT_ID, MR, f"note {index}")
    url = f"{gitlab.api}/projects/{PROJECT_ID}/merge_requests/{MR}/notes"
    assert httpx.get(url).status_code == 401
    newest_first = httpx.get(url, headers={"PRIVATE-TOKEN": "gl-api"})
    assert len(newest_first.json()) == 20  # GitLab's default page size
    assert newest_first.json()[0]["body"] == "note 24"  # default sort: desc
    assert newest_first.headers["X-Next-Page"] == "2"
    assert newest_first.headers["X-Total"] == "25"
    encoded = f"{gitlab.api}/projects/acme%2Fshop/merge_requests/{MR}/notes?sort=asc&per_page=10"
    page = httpx.get(encoded, headers={"Authorization": "Bearer gl-api"})
    assert [n["body"] for n in page.json()] == [f"note {i}" for i in range(10)]
    assert page.links["next"]["url"].endswith("page=2")
    created = httpx.post(url, headers={"PRIVATE-TOKEN": "gl-api"}, json={"body": "hi"})
    assert created.status_code == 201
    assert created.json()["noteable_type"] == "MergeRequest"
    assert httpx.post(url, headers={"PRIVATE-TOKEN": "gl-api"}, json={}).json() == {"error": "body is missing"}
    edited = httpx.put(f"{url}/{created.json()['id']}", headers={"PRIVATE-TOKEN": "gl-api"}, json={"body": "x"})
    assert edited.json()["body"] == "x"
    system = gitlab.add_note(PROJECT_ID, MR, "added 1 commit", system=True)
    assert httpx.put(f"{url}/{system['id']}", headers={"PRIVATE-TOKEN": "gl-api"},
                     json={"body": "x"}).status_code == 403
    assert httpx.get(f"{gitlab.api}/projects/{PROJECT_ID}/merge_requests/99/notes",
                     headers={"PRIVATE-TOKEN": "gl-api"}).status_code == 404


# --- the command ---------------------------------------------------------------------------


def github_comment(github: FakeGitHub, report: Path, monkeypatch: pytest.MonkeyPatch, *extra: str,
                   token: str = "gh-write") -> int:
    monkeypatch.setenv("GITHUB_TOKEN", token)
    monkeypatch.setenv("GITHUB_API_URL", github.url)
    return main(["comment", "github", "--repo", REPO, "--pr", str(PR), "--file", str(report), *extra])


def test_github_second_run_edits_the_same_comment_found_past_the_first_page(
        github: FakeGitHub, report: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for index in range(120):  # the PR's discussion: our comment lands on page 2 of 100
        github.add_comment(REPO, PR, f"review remark {index}")
    github.add_comment(REPO, PR, "> <!-- latencylab:gate.yaml -->\n> someone quoting our comment")
    assert github_comment(github, report, monkeypatch, "--key", "gate.yaml") == 0
    ours = [c for c in github.comments(REPO, PR) if c["body"].startswith("<!-- latencylab:gate.yaml -->")]
    assert len(ours) == 1
    assert ours[0]["body"] == "<!-- latencylab:gate.yaml -->\n" + report.read_text()
    first_id = ours[0]["id"]

    report.write_text("<!-- latencylab-verdict -->\n## LatencyLab: regression\n\nsecond run\n")
    github.requests.clear()
    assert github_comment(github, report, monkeypatch, "--key", "gate.yaml") == 0
    ours = [c for c in github.comments(REPO, PR) if "latencylab:gate.yaml -->\n" in c["body"]
            and not c["body"].startswith(">")]
    assert [c["id"] for c in ours] == [first_id]
    assert "second run" in ours[0]["body"]
    assert [(r.method, r.path) for r in github.writes()] == [
        ("PATCH", f"/repos/{REPO}/issues/comments/{first_id}")]
    pages = [r for r in github.requests if r.method == "GET"]
    assert len(pages) == 2  # per_page=100 and the Link header's next page
    assert pages[0].headers["authorization"] == "Bearer gh-write"
    assert pages[0].headers["accept"] == "application/vnd.github+json"

    # Another spec gating the same PR keeps its own comment.
    assert github_comment(github, report, monkeypatch, "--key", "api-gate.yaml") == 0
    assert len(github.comments(REPO, PR)) == 123


def test_github_a_read_only_token_is_a_usage_error_and_a_flaky_proxy_is_retried(
        github: FakeGitHub, report: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    assert github_comment(github, report, monkeypatch, token="gh-read") == 4
    assert "pull-requests: write" in capsys.readouterr().err
    assert github.comments(REPO, PR) == []
    github.fail_next = [("GET", 502)]
    assert github_comment(github, report, monkeypatch) == 0
    assert len(github.comments(REPO, PR)) == 1
    monkeypatch.delenv("GITHUB_TOKEN")
    assert main(["comment", "github", "--repo", REPO, "--pr", str(PR), "--file", str(report)]) == 4
    assert "set GITHUB_TOKEN" in capsys.readouterr().err


def test_github_body_is_cut_to_the_limit(github: FakeGitHub, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    big = tmp_path / "big.md"
    big.write_text("x" * 70_000)
    assert github_comment(github, big, monkeypatch) == 0
    body = github.comments(REPO, PR)[0]["body"]
    assert len(body) == 65_536
    assert body.endswith(comment_api.TRUNCATED)


def test_gitlab_second_run_edits_the_same_note(gitlab: FakeGitLab, report: Path,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    for index in range(130):
        gitlab.add_note(PROJECT_ID, MR, f"added {index} commits", system=True)
    monkeypatch.setenv("GITLAB_TOKEN", "gl-api")
    monkeypatch.setenv("CI_API_V4_URL", gitlab.api)
    args = ["comment", "gitlab", "--project", str(PROJECT_ID), "--mr", str(MR), "--file", str(report), "--key", "g"]
    assert main(args) == 0
    [ours] = [n for n in gitlab.notes(PROJECT_ID, MR) if not n["system"]]
    report.write_text("second run\n")
    gitlab.requests.clear()
    # By path this time: the same merge request, URL-encoded.
    assert main([*args[:3], PROJECT_PATH, *args[4:]]) == 0
    assert [n["id"] for n in gitlab.notes(PROJECT_ID, MR) if not n["system"]] == [ours["id"]]
    assert ours["body"] == "<!-- latencylab:g -->\nsecond run\n"
    assert [(r.method, r.path) for r in gitlab.writes()] == [
        ("PUT", f"/api/v4/projects/acme%2Fshop/merge_requests/{MR}/notes/{ours['id']}")]
    assert all(r.headers.get("private-token") == "gl-api" for r in gitlab.requests)
    monkeypatch.delenv("CI_API_V4_URL")
    assert main(args) == 4


def test_marker_keys_are_checked() -> None:
    assert comment_api.marker(".latencylab/gate.yaml") == "<!-- latencylab:.latencylab/gate.yaml -->"
    for bad in ("", "a-->b", "x>y", "-lead", "a" * 201):
        with pytest.raises(comment_api.UsageError):
            comment_api.marker(bad)
    assert comment_api.next_link('<https://x/a?page=2>; rel="next", <https://x/a?page=9>; rel="last"') == \
        "https://x/a?page=2"
    assert comment_api.next_link('<https://x/a?page=1>; rel="prev"') is None
