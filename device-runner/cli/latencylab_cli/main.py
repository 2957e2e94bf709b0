"""`latencylab`: submit comparisons and gate CI pipelines on their verdicts (docs/ci.md).

Exit codes: 0 pass, 1 regression, 2 inconclusive, 3 infrastructure failure, 4 usage error.
Results go to stdout (or --output); ids, progress and diagnostics go to stderr.
"""

from __future__ import annotations

import argparse
import datetime as _dt
import io
import json
import os
import re
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any, NoReturn, TextIO

import yaml

from . import comment as comment_api
from .client import ApiClient
from .errors import EXIT_INFRA, EXIT_PASS, CliError, InfraError, UsageError
from .gate import FAIL_ON_CHOICES, GateResult, evaluate
from .progress import Progress, describe
from .render import FORMATS, history_line, render, render_error, render_text

DEFAULT_SERVER = "http://127.0.0.1:8000"
API = "/api/v1/comparisons"
ACTIVE_STATUSES = {"queued", "running", "analysing"}
FAILED_STATUSES = {"failed", "cancelled"}
# While waiting, ride out a server outage this long before calling it an infrastructure failure.
OUTAGE_LIMIT_S = 120.0
_BASELINE_REF = re.compile(r"^(branch:.+|tag:[^=]+=.*)$")


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("latencylab-cli")
    except PackageNotFoundError:  # pragma: no cover - running from a source tree without metadata
        return "0+unknown"


class _Parser(argparse.ArgumentParser):
    """Reports bad arguments as exit 4 (usage error) instead of argparse's 2, which means inconclusive here."""

    def error(self, message: str) -> NoReturn:
        raise UsageError(f"{self.prog}: {message}", details=[f"usage: {self.format_usage().strip()[7:]}"])


def _common_options(parser: argparse.ArgumentParser, *, suppress: bool) -> None:
    default = argparse.SUPPRESS if suppress else None
    group = parser.add_argument_group("server")
    group.add_argument("--server", default=default,
                       help=f"API base URL (env LATENCYLAB_SERVER, default {DEFAULT_SERVER})")
    group.add_argument("--token", default=default,
                       help="API token (env LATENCYLAB_TOKEN); sent as Authorization: Bearer")
    group.add_argument(
        "--retries", type=int, default=argparse.SUPPRESS if suppress else 4, metavar="N",
        help="retries for a request that failed to reach the server or got 429/5xx (default 4)",
    )


def _gate_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--baseline", metavar="REF",
                        help="compare with another comparison: its id, branch:NAME or tag:KEY=VALUE "
                        "(default: the spec's baseline_arm within this comparison)")
    parser.add_argument("--fail-on", choices=FAIL_ON_CHOICES, default=None,
                        help="which outcome fails the command (default regression; inconclusive then exits 0)")
    parser.add_argument("--format", choices=FORMATS, default="text", help="verdict format (default text)")
    parser.add_argument("--output", "-o", metavar="FILE",
                        help="write the verdict in --format to FILE; stdout then gets the text verdict")
    parser.add_argument("--timeout", type=float, default=None, metavar="SECONDS",
                        help="give up waiting after SECONDS (exit 3); default: wait as long as it takes")
    parser.add_argument("--poll-interval", type=float, default=2.0, metavar="SECONDS", help=argparse.SUPPRESS)


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="latencylab",
        description="Run LatencyLab comparisons and gate CI on their statistical verdicts.",
        epilog="exit codes: 0 pass, 1 regression, 2 inconclusive, 3 infrastructure failure, 4 usage error",
    )
    parser.add_argument("--version", action="version", version=f"latencylab {_version()}")
    _common_options(parser, suppress=False)
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)

    run = commands.add_parser("run", help="submit a comparison spec (and --wait for its verdict)",
                              description="Submit SPEC (YAML or JSON; - for stdin). Prints the comparison id "
                              "on stdout; with --wait, waits and prints the verdict instead.")
    run.add_argument("spec", metavar="SPEC", help="spec file (YAML or JSON), or - for stdin")
    run.add_argument("--wait", action="store_true", help="wait for the comparison to finish and print its verdict")
    run.add_argument("--tag", action="append", default=[], metavar="KEY=VALUE",
                     help="add or override a tag in spec.tags (repeatable), e.g. --tag branch=main --tag commit=$SHA")
    _gate_options(run)
    _common_options(run, suppress=True)

    verdict = commands.add_parser("verdict", help="print the verdict of a comparison",
                                  description="Print a comparison's verdict and exit with the gate's code.")
    verdict.add_argument("id", metavar="ID", help="comparison id")
    verdict.add_argument("--wait", action="store_true", help="wait if the comparison has not finished yet")
    _gate_options(verdict)
    _common_options(verdict, suppress=True)

    status = commands.add_parser("status", help="show a comparison's status and progress")
    status.add_argument("id", metavar="ID", help="comparison id")
    status.add_argument("--json", action="store_true", help="print the API's JSON document")
    _common_options(status, suppress=True)

    cancel = commands.add_parser("cancel", help="cancel a queued or running comparison")
    cancel.add_argument("id", metavar="ID", help="comparison id")
    _common_options(cancel, suppress=True)

    export = commands.add_parser("export", help="download every sample as CSV or JSON")
    export.add_argument("id", metavar="ID", help="comparison id")
    kind = export.add_mutually_exclusive_group(required=True)
    kind.add_argument("--csv", dest="export_format", action="store_const", const="csv", help="samples.csv")
    kind.add_argument("--json", dest="export_format", action="store_const", const="json", help="samples.json")
    export.add_argument("--output", "-o", metavar="FILE", help="write to FILE instead of stdout")
    _common_options(export, suppress=True)

    share = commands.add_parser(
        "share", help="create a share link to a comparison's public report",
        description="Print a new link to the comparison's read-only public report (no sign-in needed to open "
        "it). The link is shown only now: the service keeps its hash. Revoke it on the comparison's page.")
    share.add_argument("id", metavar="ID", help="comparison id")
    share.add_argument("--expires-in-days", type=int, default=None, metavar="N",
                       help="the link stops working after N days (1–365; default: until revoked)")
    _common_options(share, suppress=True)

    report = commands.add_parser("report", help="download the report as one offline HTML file or a PDF",
                                 description="The comparison's report (charts, verdict, method) as a "
                                 "self-contained HTML file that opens offline, or as a PDF.")
    report.add_argument("id", metavar="ID", help="comparison id")
    report_kind = report.add_mutually_exclusive_group(required=True)
    report_kind.add_argument("--html", dest="report_format", action="store_const", const="html", help="report.html")
    report_kind.add_argument("--pdf", dest="report_format", action="store_const", const="pdf", help="report.pdf")
    report.add_argument("--output", "-o", metavar="FILE", help="write to FILE instead of stdout")
    _common_options(report, suppress=True)

    comment = commands.add_parser(
        "comment", help="post the Markdown verdict as ONE pull/merge request comment, updated in place",
        description="Edit this key's comment on the PR/MR (found by a hidden marker) or create it. "
        "Exit 0 when posted, 3 when the host's API is down, 4 for a missing token or a refused request.")
    hosts = comment.add_subparsers(dest="host", metavar="HOST", required=True)
    github = hosts.add_parser("github", help="a GitHub pull request (token: env GITHUB_TOKEN)")
    github.add_argument("--repo", required=True, metavar="OWNER/NAME", help="e.g. $GITHUB_REPOSITORY")
    github.add_argument("--pr", required=True, type=int, metavar="N", help="the pull request's number")
    gitlab = hosts.add_parser("gitlab", help="a GitLab merge request (token: env GITLAB_TOKEN)")
    gitlab.add_argument("--project", required=True, metavar="ID", help="project id or path, e.g. $CI_PROJECT_ID")
    gitlab.add_argument("--mr", required=True, type=int, metavar="IID", help="e.g. $CI_MERGE_REQUEST_IID")
    for host, api_env, default in ((github, "GITHUB_API_URL", comment_api.GITHUB_API),
                                   (gitlab, "CI_API_V4_URL", None)):
        host.add_argument("--file", required=True, metavar="FILE",
                          help="the Markdown to post (latencylab run … --format markdown --output FILE)")
        host.add_argument("--key", default="default", metavar="KEY",
                          help="which comment: one per key (e.g. the spec's path); default 'default'")
        host.add_argument("--api-url", default=None, metavar="URL",
                          help=f"API base (env {api_env}{', default ' + default if default else ''})")
        host.add_argument("--retries", type=int, default=4, metavar="N",
                          help="retries for 429/5xx answers and connection failures (default 4)")
    return parser


# --- helpers -----------------------------------------------------------------------------


class Console:
    """Where output goes; captured at call time so tests and pipes see it."""

    def __init__(self) -> None:
        self.out: TextIO = sys.stdout
        self.err: TextIO = sys.stderr

    def print(self, text: str = "") -> None:
        self.out.write(text if text.endswith("\n") else text + "\n")
        self.out.flush()

    def warn(self, text: str) -> None:
        self.err.write(text + "\n")
        self.err.flush()


def _check_id(value: str) -> str:
    try:
        return str(uuid.UUID(value))
    except ValueError:
        raise UsageError(f"{value!r} is not a comparison id (a UUID such as 6f1c2a5e-…)") from None


def _check_baseline(ref: str | None) -> str | None:
    if ref is None:
        return None
    try:
        return str(uuid.UUID(ref))
    except ValueError:
        pass
    if _BASELINE_REF.match(ref):
        return ref
    hint = f"; did you mean branch:{ref}?" if ":" not in ref else ""
    raise UsageError(f"--baseline {ref!r} must be a comparison id, branch:NAME or tag:KEY=VALUE{hint}")


def _json_default(value: Any) -> Any:
    # YAML turns 2024-05-01 into a date; the API wants text.
    if isinstance(value, (_dt.date, _dt.datetime, _dt.time)):
        return value.isoformat()
    return str(value)


def load_spec(path: str, tags: list[str]) -> dict[str, Any]:
    try:
        if path == "-":
            text = sys.stdin.read()
            source = "stdin"
        else:
            text = Path(path).read_text(encoding="utf-8")
            source = path
    except OSError as exc:
        raise UsageError(f"cannot read the spec: {exc}") from exc
    except UnicodeDecodeError as exc:
        raise UsageError(f"{path}: not UTF-8 text: {exc}") from exc
    try:
        spec = yaml.safe_load(text)  # JSON is YAML too
    except yaml.YAMLError as exc:
        raise UsageError(f"{source}: not valid YAML/JSON:", details=str(exc).splitlines()) from exc
    if not isinstance(spec, dict):
        raise UsageError(f"{source}: a spec must be a mapping (name:, arms:, …), got {type(spec).__name__}")
    if tags:
        merged = spec.get("tags") or {}
        if not isinstance(merged, dict):
            raise UsageError(f"{source}: tags must be a mapping to add --tag values")
        merged = dict(merged)
        for item in tags:
            key, sep, value = item.partition("=")
            if not sep or not key.strip():
                raise UsageError(f"--tag {item!r} must be KEY=VALUE")
            merged[key.strip()] = value
        spec["tags"] = merged
    # Round-trip through JSON so dates and other YAML types become plain JSON values.
    plain: dict[str, Any] = json.loads(json.dumps(spec, default=_json_default))
    return plain


def _dashboard_url(server: str, detail: dict[str, Any]) -> str:
    return detail.get("url") or f"{server.rstrip('/')}/comparisons/{detail.get('id')}"


def _make_client(args: argparse.Namespace, console: Console) -> ApiClient:
    server = args.server or os.environ.get("LATENCYLAB_SERVER") or DEFAULT_SERVER
    if not re.match(r"^https?://[^/]+", server):
        raise UsageError(f"--server {server!r} must be an http:// or https:// URL")
    token = args.token or os.environ.get("LATENCYLAB_TOKEN")
    if not token:
        raise UsageError("no API token: pass --token or set LATENCYLAB_TOKEN "
                         "(a token with scope ci can create comparisons)")
    if args.retries < 0:
        raise UsageError("--retries must be ≥ 0")
    return ApiClient(server, token, retries=args.retries, user_agent=f"latencylab-cli/{_version()}", warn=console.warn)


def _write_file(path: str, text: str) -> None:
    """Writes atomically so a CI step never reads half a report."""
    target = Path(path)
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.")
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as handle:
            handle.write(text)
        os.replace(tmp, target)
    except OSError as exc:
        raise UsageError(f"cannot write {path}: {exc}") from exc


# --- waiting and gating ------------------------------------------------------------------


def wait_until_done(
    api: ApiClient, comparison_id: str, *, console: Console, poll_interval: float, timeout: float | None
) -> dict[str, Any]:
    started = time.monotonic()
    progress = Progress(console.err)
    unreachable_since: float | None = None
    detail: dict[str, Any] = {}
    shown_looks = 0
    try:
        while True:
            try:
                detail = api.get_json(f"{API}/{comparison_id}", what="status")
            except InfraError as exc:
                now = time.monotonic()
                unreachable_since = unreachable_since or now
                if now - unreachable_since >= OUTAGE_LIMIT_S:
                    raise
                progress.note(f"warning: {exc.message}; still waiting")
            else:
                unreachable_since = None
                progress.update(detail)
                shown_looks = _show_new_looks(api, comparison_id, detail, progress, shown_looks)
                status = detail.get("status")
                if status == "finished":
                    progress.finish_line()
                    return detail
                if status in FAILED_STATUSES:
                    progress.finish_line()
                    reason = detail.get("error") or "no reason given"
                    raise InfraError(f"comparison {comparison_id} {status}: {reason}")
            elapsed = time.monotonic() - started
            if timeout is not None and elapsed >= timeout:
                progress.finish_line()
                state = describe(detail) if detail else "unknown"
                raise InfraError(
                    f"gave up waiting after {timeout:g} s; comparison {comparison_id} is {state}",
                    details=[f"it keeps running; stop it with: latencylab cancel {comparison_id}"],
                )
            pause = poll_interval if timeout is None else min(poll_interval, max(0.0, timeout - elapsed))
            time.sleep(pause)
    finally:
        progress.finish_line()


def _show_new_looks(api: ApiClient, comparison_id: str, detail: dict[str, Any], progress: Progress,
                    shown: int) -> int:
    """Run until decided: print each look as it is taken (the verdict evolving block by block).
    Returns how many looks are shown so far; a failed read is tried again on the next poll."""
    counts = detail.get("progress") or {}
    if counts.get("blocks_min") == counts.get("blocks_max"):
        return shown
    try:
        body = api.get_json(f"{API}/{comparison_id}/verdict/history", what="verdict history")
    except CliError:  # a server without the endpoint, or a passing outage: the final verdict still has them
        return shown
    history = [h for h in (body.get("history") or []) if isinstance(h, dict)] if isinstance(body, dict) else []
    for look in history[shown:]:
        progress.note(history_line(look))
    return max(shown, len(history))


def fetch_verdict(
    api: ApiClient, comparison_id: str, *, baseline: str | None,
    poll_interval: float, timeout: float | None, started: float,
) -> dict[str, Any]:
    """GET the verdict; a 409 right after `finished` (analysis not stored yet) is waited out."""
    params = {"baseline": baseline} if baseline else None
    # Without --timeout, still bound the wait for a verdict that should follow `finished` at once.
    deadline = started + timeout if timeout is not None else time.monotonic() + OUTAGE_LIMIT_S
    while True:
        code, body = api.get_status(f"{API}/{comparison_id}/verdict", params=params)
        if code != 409:
            break
        detail = body.get("detail") if isinstance(body, dict) else body
        if time.monotonic() >= deadline:
            raise InfraError(f"no verdict yet for {comparison_id}: {detail}")
        time.sleep(poll_interval)
    if not isinstance(body, dict):
        raise InfraError("the verdict endpoint answered something other than a JSON object")
    status = body.get("status", "finished")
    if status in FAILED_STATUSES:
        reason = body.get("error") or body.get("detail") or "no reason given"
        raise InfraError(f"comparison {comparison_id} {status}: {reason}")
    if status in ACTIVE_STATUSES:
        raise InfraError(f"comparison {comparison_id} has not finished ({status}); no verdict yet "
                         "(use --wait to wait for it)")
    return body


def _gate_and_print(document: dict[str, Any], args: argparse.Namespace, console: Console) -> int:
    fail_on = args.fail_on or "regression"
    result: GateResult = evaluate(document, fail_on=fail_on, baseline_ref=args.baseline)
    rendered = render(result, args.format, version=_version())
    if args.output:
        _write_file(args.output, rendered)
        console.print(render_text(result))
        console.warn(f"wrote the {args.format} verdict to {args.output}")
    else:
        console.print(rendered)
    if args.format != "text" and not args.output:
        # stdout holds a machine format; keep the human line in the log.
        console.warn(f"verdict: {result.outcome} (exit {result.exit_code})")
    return result.exit_code


def _report_failure(args: argparse.Namespace, console: Console, error: CliError,
                    comparison_id: str | None, url: str | None) -> None:
    """With a machine format, also leave a report that says why there is no verdict."""
    if args.format == "text":
        return
    text = render_error(args.format, message=error.message, exit_code=error.exit_code, comparison=comparison_id,
                        url=url, version=_version(), fail_on=args.fail_on or "regression")
    try:
        if args.output:
            _write_file(args.output, text)
        else:
            console.print(text)
    except CliError:
        pass


# --- commands ----------------------------------------------------------------------------


def cmd_run(args: argparse.Namespace, console: Console) -> int:
    if not args.wait:
        misplaced = [flag for flag, value in (("--baseline", args.baseline), ("--fail-on", args.fail_on),
                                              ("--output", args.output), ("--timeout", args.timeout))
                     if value is not None]
        if args.format in ("junit", "markdown"):
            misplaced.append(f"--format {args.format}")
        if misplaced:
            raise UsageError(f"{', '.join(misplaced)} only apply with --wait (there is no verdict to report yet)")
    baseline = _check_baseline(args.baseline)
    spec = load_spec(args.spec, args.tag)
    with _make_client(args, console) as api:
        detail = api.request_json("POST", API, what="create comparison", idempotent=False, json=spec)
        comparison_id = str(detail.get("id"))
        url = _dashboard_url(api.server, detail)
        console.warn(f"created comparison {comparison_id}: {detail.get('name', '')}")
        console.warn(f"dashboard: {url}")
        # Accepted but probably wrong (an endpoint whose host does not resolve): said, not refused.
        for warning in detail.get("warnings") or []:
            console.warn(f"warning: {warning.get('field')}: {warning.get('message')}")
        if not args.wait:
            if args.format == "json":
                console.print(json.dumps({"schema": "latencylab.comparison/1", "id": comparison_id, "url": url,
                                          "status": detail.get("status"), "name": detail.get("name")}, indent=2))
            else:
                console.print(comparison_id)
            return EXIT_PASS
        started = time.monotonic()
        try:
            wait_until_done(api, comparison_id, console=console, poll_interval=args.poll_interval, timeout=args.timeout)
            document = fetch_verdict(api, comparison_id, baseline=baseline,
                                     poll_interval=args.poll_interval, timeout=args.timeout, started=started)
        except CliError as error:
            _report_failure(args, console, error, comparison_id, url)
            raise
        return _gate_and_print(document, args, console)


def cmd_verdict(args: argparse.Namespace, console: Console) -> int:
    comparison_id = _check_id(args.id)
    baseline = _check_baseline(args.baseline)
    with _make_client(args, console) as api:
        started = time.monotonic()
        try:
            if args.wait:
                wait_until_done(api, comparison_id, console=console, poll_interval=args.poll_interval,
                                timeout=args.timeout)
            document = fetch_verdict(api, comparison_id, baseline=baseline,
                                     poll_interval=args.poll_interval, timeout=args.timeout if args.wait else 0,
                                     started=started)
        except CliError as error:
            _report_failure(args, console, error, comparison_id, f"{api.server}/comparisons/{comparison_id}")
            raise
        return _gate_and_print(document, args, console)


def cmd_status(args: argparse.Namespace, console: Console) -> int:
    comparison_id = _check_id(args.id)
    with _make_client(args, console) as api:
        detail = api.get_json(f"{API}/{comparison_id}", what="status")
        if args.json:
            console.print(json.dumps(detail, indent=2, ensure_ascii=False))
            return EXIT_PASS
        progress = detail.get("progress") or {}
        rows = [
            ("comparison", detail.get("id")),
            ("name", detail.get("name")),
            ("status", describe(detail)),
            ("runs", f"{progress.get('runs_done', '?')}/{progress.get('runs_total', '?')} done"),
            ("tags", " ".join(f"{k}={v}" for k, v in (detail.get("tags") or {}).items()) or "–"),
            ("created", detail.get("created_at") or "–"),
            ("finished", detail.get("finished_at") or "–"),
            ("dashboard", _dashboard_url(api.server, detail)),
        ]
        if detail.get("error"):
            rows.append(("error", detail["error"]))
        console.print("\n".join(f"{name:<11}{value}" for name, value in rows))
        return EXIT_PASS


def cmd_cancel(args: argparse.Namespace, console: Console) -> int:
    comparison_id = _check_id(args.id)
    with _make_client(args, console) as api:
        detail = api.request_json("POST", f"{API}/{comparison_id}/cancel", what="cancel", idempotent=True)
        console.print(f"{comparison_id}: {describe(detail)}")
        return EXIT_PASS


def cmd_export(args: argparse.Namespace, console: Console) -> int:
    comparison_id = _check_id(args.id)
    return _download(args, console, f"{API}/{comparison_id}/samples.{args.export_format}", what="export")


def cmd_report(args: argparse.Namespace, console: Console) -> int:
    comparison_id = _check_id(args.id)
    return _download(args, console, f"{API}/{comparison_id}/report.{args.report_format}", what="report")


def cmd_share(args: argparse.Namespace, console: Console) -> int:
    comparison_id = _check_id(args.id)
    days = args.expires_in_days
    if days is not None and not 1 <= days <= 365:
        raise UsageError(f"--expires-in-days must be between 1 and 365, got {days}")
    with _make_client(args, console) as api:
        # Not retried: a retry after a lost answer would make a second link.
        link = api.request_json("POST", f"{API}/{comparison_id}/shares", what="share", idempotent=False,
                                json={"expires_in_days": days})
    console.print(link["url"])
    expiry = f"expires {link['expires_at']}" if link.get("expires_at") else "does not expire until revoked"
    console.warn(f"share link {link['prefix']}… to {link['comparison']['name']!r}: {expiry}; "
                 "this is the only time the link is shown")
    return EXIT_PASS


def _download(args: argparse.Namespace, console: Console, path: str, *, what: str) -> int:
    """GET path into --output (atomically: a failed download leaves no partial file) or stdout."""
    with _make_client(args, console) as api:
        if not args.output:
            console.out.flush()
            sink = getattr(console.out, "buffer", None)
            if sink is None:  # a text-only stream (rare): decode as we go
                buffer = io.BytesIO()
                api.download(path, buffer, what=what)
                console.out.write(buffer.getvalue().decode("utf-8", errors="replace"))
            else:
                api.download(path, sink, what=what)
                sink.flush()
            return EXIT_PASS
        target = Path(args.output)
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.")
        except OSError as exc:
            raise UsageError(f"cannot write {args.output}: {exc}") from exc
        try:
            with os.fdopen(fd, "wb") as handle:
                size = api.download(path, handle, what=what)
            os.replace(tmp, target)
        finally:
            if os.path.exists(tmp):
                os.unlink(tmp)
        console.warn(f"wrote {size} bytes to {args.output}")
        return EXIT_PASS


def cmd_comment(args: argparse.Namespace, console: Console) -> int:
    if args.retries < 0:
        raise UsageError("--retries must be ≥ 0")
    number = args.pr if args.host == "github" else args.mr
    if number <= 0:
        raise UsageError(f"--{'pr' if args.host == 'github' else 'mr'} must be a positive number, got {number}")
    token_env = "GITHUB_TOKEN" if args.host == "github" else "GITLAB_TOKEN"
    token = os.environ.get(token_env, "").strip()
    if not token:
        raise UsageError(f"no {args.host} token: set {token_env}")
    default_api = comment_api.GITHUB_API if args.host == "github" else None
    api_url = args.api_url or os.environ.get("GITHUB_API_URL" if args.host == "github" else "CI_API_V4_URL") \
        or default_api
    if not api_url or not re.match(r"^https?://[^/]+", api_url):
        raise UsageError(f"--api-url {api_url!r} must be an http:// or https:// URL"
                         + (" (or set CI_API_V4_URL)" if args.host == "gitlab" else ""))
    try:
        markdown = Path(args.file).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise UsageError(f"cannot read {args.file}: {exc}") from exc
    if not markdown.strip():
        raise UsageError(f"{args.file} is empty: nothing to post")
    options: dict[str, Any] = {"retries": args.retries, "warn": console.warn}
    target: comment_api.GitHub | comment_api.GitLab
    if args.host == "github":
        target = comment_api.GitHub(api_url, token, args.repo, number, **options)
        where = f"{args.repo}#{number}"
    else:
        target = comment_api.GitLab(api_url, token, args.project, number, **options)
        where = f"project {args.project} !{number}"
    outcome = comment_api.upsert(target, args.key, markdown)
    console.warn(f"{outcome.action} comment {outcome.id} on {where}" + (f": {outcome.url}" if outcome.url else ""))
    return EXIT_PASS


COMMANDS = {"run": cmd_run, "verdict": cmd_verdict, "status": cmd_status, "cancel": cmd_cancel, "export": cmd_export,
            "share": cmd_share, "report": cmd_report, "comment": cmd_comment}


def main(argv: list[str] | None = None) -> int:
    console = Console()
    for stream in (sys.stdout, sys.stderr):
        # A CI box with a non-UTF-8 locale must not crash on "δ" or "−".
        if isinstance(stream, io.TextIOWrapper) and (stream.encoding or "").lower().replace("-", "") != "utf8":
            stream.reconfigure(errors="replace")
    try:
        args = build_parser().parse_args(argv)
        if getattr(args, "poll_interval", 1.0) <= 0:
            raise UsageError("--poll-interval must be > 0")
        if getattr(args, "timeout", None) is not None and args.timeout <= 0:
            raise UsageError("--timeout must be > 0")
        return COMMANDS[args.command](args, console)
    except CliError as error:
        console.warn(error.render())
        return error.exit_code
    except SystemExit as exc:  # --help / --version
        return exc.code if isinstance(exc.code, int) else EXIT_PASS
    except KeyboardInterrupt:
        console.warn("interrupted; a submitted comparison keeps running (latencylab cancel ID stops it)")
        return 130
    except BrokenPipeError:
        return EXIT_INFRA


__all__ = ["build_parser", "main"]
