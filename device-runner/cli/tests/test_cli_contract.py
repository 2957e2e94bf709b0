"""The `latencylab` CLI against a small real HTTP server speaking the public API v1 contract.

The server returns canned documents: this tests the client's handling of the contract
(exit codes, formats, progress output, errors, retries), not the service itself. Every
verdict document it serves is shaped exactly like the real server's: it is checked against
the OpenAPI component ComparisonVerdict of the committed schema (backend/openapi.yaml),
strictly (no field the schema does not document, none it requires missing). The backend's
test_cli_gate.py drives the same CLI against the real service.
"""

from __future__ import annotations

import copy
import json
import os
import pty
import re
import select
import shutil
import subprocess
import sys
import threading
import uuid
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import cache
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import jsonschema
import pytest
import yaml
from latencylab_cli import client as cli_client
from latencylab_cli import main as cli_main
from latencylab_cli.main import main

TOKEN = "ll_test_token"
OPENAPI = Path(__file__).resolve().parents[3] / "backend" / "openapi.yaml"


def _strict(node: Any) -> Any:
    """OpenAPI 3.0 schema object → JSON Schema: `nullable` becomes a null type, component
    references point into $defs, objects with properties admit no others."""
    if isinstance(node, list):
        return [_strict(item) for item in node]
    if not isinstance(node, dict):
        return node
    out = {key: _strict(value) for key, value in node.items() if key != "nullable"}
    if "$ref" in out:
        out["$ref"] = out["$ref"].replace("#/components/schemas/", "#/$defs/")
    if node.get("type") == "object" and "properties" in node and "additionalProperties" not in node:
        out["additionalProperties"] = False
    if node.get("nullable"):
        if "type" in out:
            out["type"] = [out["type"], "null"]
        else:
            out = {"anyOf": [out, {"type": "null"}]}
    return out


@cache
def components() -> dict[str, Any]:
    # libyaml's loader: the pure-Python one takes seconds over the 300 kB schema.
    return _strict(yaml.load(OPENAPI.read_text(), Loader=yaml.CSafeLoader)["components"]["schemas"])


@cache
def validator_of(component: str) -> jsonschema.Draft202012Validator:
    return jsonschema.Draft202012Validator({"$ref": f"#/$defs/{component}", "$defs": components()})


def server_shaped(component: str, document: dict[str, Any]) -> dict[str, Any]:
    validator = validator_of(component)
    errors = [f"{'/'.join(map(str, e.absolute_path))}: {e.message}" for e in validator.iter_errors(document)]
    assert not errors, f"not what the server sends as {component}: {errors}"
    return document


def verdict_row(arm: str, outcome: str, *, device: str = "Pixel 8", profile: str = "lte", ratio: float = 1.0,
                baseline_arm: str = "https-h1", baseline_comparison: str | None = None, **extra: Any) -> dict[str, Any]:
    change = (ratio - 1) * 100
    row = {
        "arm": arm, "baseline_arm": baseline_arm, "baseline_comparison": baseline_comparison, "metric": "total_ms",
        "device": device, "network_profile": profile, "outcome": outcome,
        "reason": {"regression": "95 % CI above +5.0 %, p < α, δ ≥ 0.147",
                   "improvement": "95 % CI below −5.0 %, p < α, δ ≤ −0.147", "equivalent": "90 % CI inside ±5.0 %",
                   "inconclusive": "would likely be regression: need ≥20 blocks per device (8 more)"}[outcome],
        "margin": 0.05, "ratio": ratio, "ci95": [ratio * 0.95, ratio * 1.05], "ci90": [ratio * 0.96, ratio * 1.04],
        "p_value": 0.0001, "p_adjusted": 0.0004, "p_mann_whitney": 0.0002, "cliffs_delta": -0.93 if ratio < 1 else 0.41,
        "cliffs_label": "large" if ratio < 1 else "medium", "cohens_d": -2.1, "cohens_label": "huge",
        "gain_pct": (1 / ratio - 1) * 100, "speedup": 1 / ratio, "change_pct": change,
        "median_ms": 48.4 * ratio, "baseline_median_ms": 48.4, "blocks": 12, "devices": 3,
        "more_blocks_needed": 8 if outcome == "inconclusive" else None,
        "blocks_to_decide": ({"regression": 20, "improvement": None, "equivalent": None}
                             if outcome == "inconclusive" else None),
        "scope": "pooled", "device_label": None, "devices_disagree": False, "periods_disagree": False,
        "summary": f"{arm} vs {baseline_arm}, {device} / {profile}: median {change:+.0f} %, 12 blocks × 3 devices",
    }
    row.update(extra)
    return row


def verdict_document(comparison: str, base_url: str, verdicts: list[dict[str, Any]], *, outcome: str,
                     baseline: dict[str, Any] | None = None,
                     name: str = "MID series: HTTPS/1.1 vs HTTP/2",
                     history: list[dict[str, Any]] | None = None,
                     gate: dict[str, Any] | None = None,
                     beside: dict[str, Any] | None = None) -> dict[str, Any]:
    """A verdict as the server sends it; `outcome` is the server's overall outcome; `gate`
    replaces the gate's fields (per-request time by default)."""
    reason = (f"the worst of {len(verdicts)} verdicts on total_ms (regression > inconclusive > improvement > "
              "equivalent)" if verdicts else "no arm was compared with the baseline arm 'https-h1' on total_ms: no "
              "block has measured, successful requests of both")
    return server_shaped("ComparisonVerdict", {
        "comparison": comparison, "name": name, "status": "finished", "url": f"{base_url}/comparisons/{comparison}",
        "gate": {"statistic": "median", "metric": "total_ms", "metric_label": "per-request time", "margin_pct": 5.0,
                 "alpha": 0.01, **(gate or {})},
        "baseline": baseline or {"kind": "arm", "comparison": None, "arm": "https-h1", "ref": None},
        "verdicts": verdicts, "outcome": outcome, "outcome_reason": reason, "history": history or [],
        "partial": False, "blocks_planned": None, "blocks_stored": None, "beside": beside,
    })


def look(number: int, blocks: int, alpha: float, outcome: str, decision: str, *, ratio: float = 1.02,
         p: float = 0.4) -> dict[str, Any]:
    """One look of a run-until-decided comparison, as the server stores it."""
    return server_shaped("VerdictLook", {
        "look": number, "blocks_per_device": blocks, "alpha": alpha, "outcome": outcome, "decision": decision,
        "ratio": ratio, "ci95": [ratio * 0.9, ratio * 1.1], "p_value": p,
        "verdicts": [{"arm": "h2", "device": "Pixel 8", "network_profile": "lte", "outcome": outcome,
                      "ratio": ratio, "ci95": [ratio * 0.9, ratio * 1.1], "p_value": p}],
        "at": "2025-01-01T00:00:00Z"})


@dataclass
class Scenario:
    """One comparison: the states successive GETs walk through, and its verdicts by baseline."""

    steps: list[tuple[str, int]] = field(default_factory=lambda: [("queued", 0), ("running", 4), ("finished", 10)])
    blocks_total: int = 10
    verdicts: dict[str | None, dict[str, Any]] = field(default_factory=dict)
    error: str = ""
    samples_csv: bytes = b"run,arm,block,total_ms\n1,h2,0,12.1\n"
    polls: int = 0
    # Run until decided: (min, max) blocks, and the looks taken by the time of each status step.
    blocks_range: tuple[int, int] | None = None
    looks: list[list[dict[str, Any]]] = field(default_factory=list)


@dataclass
class Recorded:
    method: str
    path: str
    query: dict[str, list[str]]
    headers: dict[str, str]
    body: bytes


class FakeApi:
    def __init__(self) -> None:
        self.scenarios: dict[str, Scenario] = {}
        self.by_name: dict[str, str] = {}
        self.requests: list[Recorded] = []
        # (method, path regex, status, body) answered once, in order, before routing.
        self.faults: list[tuple[str, str, int, Any]] = []
        self.lock = threading.Lock()
        self.base_url = ""

    def add(self, scenario: Scenario, *, name: str | None = None) -> str:
        comparison = str(uuid.uuid4())
        self.scenarios[comparison] = scenario
        if name:
            self.by_name[name] = comparison
        return comparison

    def paths(self, method: str | None = None) -> list[str]:
        return [r.path for r in self.requests if method is None or r.method == method]

    # -- request handling (called from the server thread) --

    def handle(self, method: str, raw_path: str, headers: dict[str, str], body: bytes) -> tuple[int, Any, str]:
        url = urlsplit(raw_path)
        query = parse_qs(url.query)
        with self.lock:
            self.requests.append(Recorded(method, url.path, query, headers, body))
            for index, (f_method, pattern, status, payload) in enumerate(self.faults):
                if f_method == method and re.search(pattern, url.path):
                    del self.faults[index]
                    return status, payload, "application/json"
        if headers.get("authorization") != f"Bearer {TOKEN}":
            return 401, {"detail": "Invalid token."}, "application/json"
        if method == "POST" and url.path == "/api/v1/comparisons":
            return self.create(headers, body)
        match = re.fullmatch(r"/api/v1/comparisons/([0-9a-f-]{36})(/[a-z./]+)?", url.path)
        if not match or match.group(1) not in self.scenarios:
            return 404, {"detail": "Not found."}, "application/json"
        comparison, tail = match.group(1), match.group(2) or ""
        scenario = self.scenarios[comparison]
        if method == "GET" and tail == "":
            with self.lock:
                step = scenario.steps[min(scenario.polls, len(scenario.steps) - 1)]
                scenario.polls += 1
            return 200, self.detail(comparison, scenario, step), "application/json"
        if method == "POST" and tail == "/cancel":
            scenario.steps = [("cancelled", scenario.steps[0][1])]
            return 200, self.detail(comparison, scenario, scenario.steps[0]), "application/json"
        if method == "GET" and tail == "/verdict":
            status = scenario.steps[min(max(scenario.polls - 1, 0), len(scenario.steps) - 1)][0]
            if status != "finished":
                return 409, {"detail": f"The comparison is {status}; no verdict yet."}, "application/json"
            baseline = query.get("baseline", [None])[0]
            if baseline not in scenario.verdicts:
                return 404, {"detail": f"No finished comparison matches {baseline}."}, "application/json"
            return 200, scenario.verdicts[baseline], "application/json"
        if method == "GET" and tail == "/verdict/history":
            step = min(max(scenario.polls - 1, 0), len(scenario.steps) - 1)
            low, high = scenario.blocks_range or (None, None)
            history = scenario.looks[min(step, len(scenario.looks) - 1)] if scenario.looks else []
            return 200, server_shaped("VerdictHistory", {
                "comparison": comparison, "status": scenario.steps[step][0], "blocks_min": low, "blocks_max": high,
                "history": history}), "application/json"
        if method == "GET" and tail == "/samples.csv":
            return 200, scenario.samples_csv, "text/csv"
        if method == "GET" and tail == "/samples.json":
            return 200, b'{"samples": [{"arm": "h2", "total_ms": 12.1}]}', "application/json"
        return 405, {"detail": "Method not allowed."}, "application/json"

    def create(self, headers: dict[str, str], body: bytes) -> tuple[int, Any, str]:
        content_type = headers.get("content-type", "")
        spec = yaml.safe_load(body) if "yaml" in content_type else json.loads(body)
        errors: dict[str, Any] = {}
        for index, arm in enumerate(spec.get("arms") or []):
            if arm.get("protocol") not in components()["Protocol"]["enum"]:
                errors.setdefault("arms", {})[str(index)] = {
                    "protocol": [f'"{arm.get("protocol")}" is not a valid choice.']}
        if not spec.get("name"):
            errors["name"] = ["This field is required."]
        if errors:
            return 400, errors, "application/json"
        comparison = self.by_name.get(spec["name"]) or self.add(Scenario())
        scenario = self.scenarios[comparison]
        detail = self.detail(comparison, scenario, ("queued", 0), name=spec["name"], tags=spec.get("tags"))
        # As the service warns: a host of the reserved `.invalid` TLD never resolves.
        arms = enumerate(spec.get("arms") or [])
        detail["warnings"] = [{"field": f"arms.{index}.endpoint", "message": f"{arm['endpoint']} does not resolve"}
                              for index, arm in arms if ".invalid" in arm.get("endpoint", "")]
        return 201, detail, "application/json"

    def detail(self, comparison: str, scenario: Scenario, step: tuple[str, int], *, name: str = "spec",
               tags: dict[str, str] | None = None) -> dict[str, Any]:
        status, done = step
        total = scenario.blocks_total
        return {
            "id": comparison, "name": name, "preset": None, "status": status, "tags": tags or {},
            "progress": {"runs_total": 1, "runs_done": int(status == "finished"), "blocks_total": total,
                         "blocks_done": done,
                         "percent": round(100.0 * done / total, 1) if status != "finished" else 100.0,
                         "blocks_min": scenario.blocks_range[0] if scenario.blocks_range else total,
                         "blocks_max": scenario.blocks_range[1] if scenario.blocks_range else total},
            "created_at": "2025-01-01T00:00:00Z", "finished_at": None, "spec": {}, "baseline_arm": "https-h1",
            "arms": [], "runs": [], "error": scenario.error if status in ("failed", "cancelled") else "",
        }


def _handler_for(api: FakeApi) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args: Any) -> None:
            pass

        def _serve(self, method: str) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(length) if length else b""
            headers = {k.lower(): v for k, v in self.headers.items()}
            status, payload, content_type = api.handle(method, self.path, headers, body)
            data = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
            self.send_response(status)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(data)))
            if status in (429, 503):
                self.send_header("Retry-After", "0")
            self.end_headers()
            self.wfile.write(data)

        def do_GET(self) -> None:
            self._serve("GET")

        def do_POST(self) -> None:
            self._serve("POST")

    return Handler


@pytest.fixture
def api(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeApi]:
    fake = FakeApi()
    server = ThreadingHTTPServer(("127.0.0.1", 0), _handler_for(fake))
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True)
    thread.start()
    fake.base_url = f"http://127.0.0.1:{server.server_address[1]}"
    monkeypatch.setenv("LATENCYLAB_SERVER", fake.base_url)
    monkeypatch.setenv("LATENCYLAB_TOKEN", TOKEN)
    monkeypatch.setattr(cli_client, "BACKOFF_BASE_S", 0.01)
    try:
        yield fake
    finally:
        server.shutdown()
        server.server_close()


SPEC_YAML = """\
name: "MID series: HTTPS/1.1 vs HTTP/2"
workload: {kind: series, periods: [3, 6], repetitions: 4}
arms:
  - {label: https-h1, protocol: h1}
  - {label: h2, protocol: h2}
baseline_arm: https-h1
blocks: 10
tags: {branch: old, version: 2.2.1, date: 2025-01-31}
"""


@pytest.fixture
def spec_file(tmp_path: Path) -> Path:
    path = tmp_path / "latencylab.yaml"
    path.write_text(SPEC_YAML)
    return path


def finished(api: FakeApi, verdicts: list[dict[str, Any]], **kwargs: Any) -> str:
    """A finished comparison; the server's overall outcome is the verdicts' one when they
    agree, else given as `outcome=`."""
    scenario = Scenario(steps=[("finished", 10)])
    comparison = api.add(scenario)
    outcomes = {v["outcome"] for v in verdicts} or {"no_data"}
    kwargs.setdefault("outcome", outcomes.pop() if len(outcomes) == 1 else None)
    scenario.verdicts[None] = verdict_document(comparison, api.base_url, verdicts, **kwargs)
    return comparison


# --- exit codes ------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "outcome, fail_on, expected",
    [
        ("improvement", "regression", 0), ("equivalent", "regression", 0),
        ("regression", "regression", 1), ("inconclusive", "regression", 0), ("no_data", "regression", 0),
        ("improvement", "inconclusive", 0), ("regression", "inconclusive", 1), ("inconclusive", "inconclusive", 2),
        ("no_data", "inconclusive", 2),
        ("regression", "never", 0), ("inconclusive", "never", 0),
    ],
)
def test_exit_code_follows_the_servers_outcome_and_fail_on(api: FakeApi, outcome: str, fail_on: str, expected: int,
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    rows = [] if outcome == "no_data" else [verdict_row("h2", outcome, ratio=1.08)]
    comparison = finished(api, rows)
    assert main(["verdict", comparison, "--fail-on", fail_on]) == expected
    last = capsys.readouterr().out.strip().splitlines()[-1]
    assert last.startswith(f"verdict: {outcome} (exit {expected}")


def test_the_outcome_is_the_servers_not_recomputed(api: FakeApi, capsys: pytest.CaptureFixture[str]) -> None:
    """The CLI shows what the server decided: the overall outcome and, first, the
    verdicts that decided it; it does not rank outcomes itself."""
    comparison = finished(api, [verdict_row("h2", "improvement", ratio=0.5), verdict_row("h3", "equivalent"),
                                verdict_row("grpc", "regression", ratio=1.1)], outcome="regression")
    assert main(["verdict", comparison]) == 1
    lines = capsys.readouterr().out.splitlines()
    assert [line.split()[0] for line in lines[2:5]] == ["regression", "improvement", "equivalent"]
    assert lines[-1] == "verdict: regression (exit 1)"


def test_default_fail_on_passes_inconclusive_but_says_so(api: FakeApi, capsys: pytest.CaptureFixture[str]) -> None:
    comparison = finished(api, [verdict_row("h2", "inconclusive")])
    assert main(["verdict", comparison]) == 0
    out = capsys.readouterr().out
    assert "verdict: inconclusive (exit 0; --fail-on inconclusive would exit 2)" in out
    assert "about 8 more blocks needed; regression at 20 blocks per device" in out


def test_no_data_shows_the_servers_reason(api: FakeApi, capsys: pytest.CaptureFixture[str]) -> None:
    comparison = finished(api, [])
    assert main(["verdict", comparison, "--fail-on", "inconclusive"]) == 2
    out = capsys.readouterr().out
    assert "no verdicts: no arm was compared with the baseline arm 'https-h1' on total_ms" in out
    assert "verdict: no_data (exit 2)" in out


def test_an_outcome_this_cli_does_not_know_fails_safe(api: FakeApi, capsys: pytest.CaptureFixture[str]) -> None:
    """A newer server's outcome (not in this schema) is treated as inconclusive, and said."""
    comparison = finished(api, [verdict_row("h2", "equivalent")])
    api.scenarios[comparison].verdicts[None]["outcome"] = "too_noisy"
    assert main(["verdict", comparison, "--fail-on", "inconclusive"]) == 2
    assert "unknown overall outcome 'too_noisy' from the server; treated as inconclusive" in capsys.readouterr().out


# --- run --wait --------------------------------------------------------------------------------------------


def test_run_wait_posts_spec_with_tags_polls_and_gates(api: FakeApi, spec_file: Path,
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    scenario = Scenario(steps=[("queued", 0), ("running", 4), ("running", 4), ("analysing", 10), ("finished", 10)])
    comparison = api.add(scenario, name="MID series: HTTPS/1.1 vs HTTP/2")
    scenario.verdicts[None] = verdict_document(comparison, api.base_url, [verdict_row("h2", "regression", ratio=1.2)],
                                               outcome="regression")
    code = main(["run", str(spec_file), "--wait", "--poll-interval", "0.01",
                 "--tag", "branch=feature/x", "--tag", "commit=3f2a9c1"])
    assert code == 1
    captured = capsys.readouterr()
    created = next(r for r in api.requests if r.method == "POST")
    assert created.headers["content-type"] == "application/json"
    sent = json.loads(created.body)
    assert sent["tags"] == {"branch": "feature/x", "version": "2.2.1", "date": "2025-01-31", "commit": "3f2a9c1"}
    assert sent["arms"][1] == {"label": "h2", "protocol": "h2"}
    assert f"created comparison {comparison}" in captured.err
    assert f"dashboard: {api.base_url}/comparisons/{comparison}" in captured.err
    # Not a TTY: one plain line per change, no carriage returns.
    assert ("queued 0% (0/10 blocks)\nrunning 40% (4/10 blocks)\nanalysing 100% (10/10 blocks)\n"
            "finished 100% (10/10 blocks)\n") in captured.err
    assert "\r" not in captured.err
    assert captured.out.strip().endswith("verdict: regression (exit 1)")
    assert api.paths("GET")[-1] == f"/api/v1/comparisons/{comparison}/verdict"


RUD_LOOKS = [look(1, 6, 0.000625, "inconclusive", "continue"), look(2, 12, 0.001875, "inconclusive", "continue"),
             look(3, 24, 0.0075, "inconclusive", "stop", ratio=1.03, p=0.2)]


@pytest.mark.parametrize("fail_on, expected", [("regression", 0), ("inconclusive", 2)])
def test_run_until_decided_shows_each_look_while_waiting_and_gates_on_the_last(
        api: FakeApi, fail_on: str, expected: int, capsys: pytest.CaptureFixture[str]) -> None:
    """Inconclusive at every look up to max: the looks appear as they are taken, the report
    lists them, and the exit code follows the final (last look's) verdict."""
    scenario = Scenario(steps=[("running", 3), ("running", 6), ("running", 12), ("finished", 24)], blocks_total=24,
                        blocks_range=(6, 24), looks=[[], RUD_LOOKS[:1], RUD_LOOKS[:2], RUD_LOOKS])
    comparison = api.add(scenario)
    scenario.verdicts[None] = verdict_document(comparison, api.base_url, [verdict_row("h2", "inconclusive")],
                                               outcome="inconclusive", history=RUD_LOOKS)
    code = main(["verdict", comparison, "--wait", "--poll-interval", "0.01", "--fail-on", fail_on])
    assert code == expected
    captured = capsys.readouterr()
    assert "running 25% (6/24 blocks; run until decided: 6–24)" in captured.err
    assert captured.err.index("look 1 at 6 blocks/device (α 0.00063): inconclusive, ratio 1.020 [0.918, 1.122], "
                              "p 0.400 → more blocks") < captured.err.index("look 2 at 12 blocks/device")
    assert "look 3 at 24 blocks/device (α 0.0075): inconclusive" in captured.err
    assert "run until decided, 3 looks:" in captured.out
    assert "  look 3 at 24 blocks/device (α 0.0075): inconclusive, ratio 1.030 [0.927, 1.133], p 0.200 → stopped" \
        in captured.out
    assert captured.out.strip().splitlines()[-1].startswith(f"verdict: inconclusive (exit {expected}")


def test_run_until_decided_stopped_early_by_a_regression_exits_1(api: FakeApi,
                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    looks = [look(1, 6, 0.000625, "regression", "stop", ratio=1.6, p=0.0001)]
    comparison = finished(api, [verdict_row("h2", "regression", ratio=1.6)], history=looks)
    assert main(["verdict", comparison, "--format", "markdown"]) == 1
    out = capsys.readouterr().out
    assert "Run until decided: 1 look." in out
    assert "- look 1 at 6 blocks/device (α 0.00063): regression, ratio 1.600" in out
    assert main(["verdict", comparison, "--format", "json"]) == 1
    assert json.loads(capsys.readouterr().out)["history"] == looks


def test_run_without_wait_prints_the_id_only(api: FakeApi, spec_file: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["run", str(spec_file)]) == 0
    captured = capsys.readouterr()
    comparison = captured.out.strip()
    assert uuid.UUID(comparison)
    assert f"{api.base_url}/comparisons/{comparison}" in captured.err
    assert api.paths() == ["/api/v1/comparisons"]


def test_run_json_spec_from_stdin(api: FakeApi, monkeypatch: pytest.MonkeyPatch,
                                  capsys: pytest.CaptureFixture[str]) -> None:
    import io

    spec = {"name": "stdin spec", "arms": [{"label": "a", "protocol": "h2"}]}
    monkeypatch.setattr(sys, "stdin", io.StringIO(json.dumps(spec)))
    assert main(["run", "-", "--format", "json"]) == 0
    document = json.loads(capsys.readouterr().out)
    assert document["schema"] == "latencylab.comparison/1"
    assert document["name"] == "stdin spec"


def test_run_baseline_branch_is_passed_and_labelled(api: FakeApi, spec_file: Path, tmp_path: Path,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    scenario = Scenario(steps=[("running", 5), ("finished", 10)])
    comparison = api.add(scenario, name="MID series: HTTPS/1.1 vs HTTP/2")
    main_id = str(uuid.uuid4())
    rows = [verdict_row(arm, "equivalent", baseline_arm=arm, baseline_comparison=main_id) for arm in ("https-h1", "h2")]
    scenario.verdicts["branch:main"] = verdict_document(
        comparison, api.base_url, rows, outcome="equivalent",
        baseline={"kind": "comparison", "comparison": main_id, "arm": None, "ref": "branch:main"})
    report = tmp_path / "out" / "junit.xml"
    code = main(["run", str(spec_file), "--wait", "--poll-interval", "0.01", "--baseline", "branch:main",
                 "--fail-on", "inconclusive", "--format", "junit", "--output", str(report)])
    assert code == 0
    verdict_request = next(r for r in api.requests if r.path.endswith("/verdict"))
    assert verdict_request.query == {"baseline": ["branch:main"]}
    suite = ET.parse(report).getroot()
    names = [case.get("name") for case in suite.iter("testcase")]
    assert names == ["https-h1 vs https-h1 (branch:main) total_ms", "h2 vs h2 (branch:main) total_ms"]
    out = capsys.readouterr().out
    assert "baseline: branch:main, comparison" in out
    assert out.strip().endswith("verdict: equivalent (exit 0)")


def test_unresolvable_baseline_is_a_usage_error(api: FakeApi, capsys: pytest.CaptureFixture[str]) -> None:
    comparison = finished(api, [verdict_row("h2", "improvement")])
    assert main(["verdict", comparison, "--baseline", "branch:nope"]) == 4
    assert "No finished comparison matches branch:nope." in capsys.readouterr().err


# --- infrastructure failures (exit 3) -------------------------------------------------------------------


def test_failed_comparison_is_infrastructure_failure_with_report(api: FakeApi, spec_file: Path, tmp_path: Path,
                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    scenario = Scenario(steps=[("running", 2), ("failed", 2)], error="run 3: device Pixel 8 went offline 3 times")
    api.add(scenario, name="MID series: HTTPS/1.1 vs HTTP/2")
    report = tmp_path / "verdict.json"
    code = main(["run", str(spec_file), "--wait", "--poll-interval", "0.01", "--format", "json", "-o", str(report)])
    assert code == 3
    assert "went offline 3 times" in capsys.readouterr().err
    document = json.loads(report.read_text())
    assert document["schema"] == "latencylab.verdict/1"
    assert document["exit_code"] == 3
    assert document["outcome"] == "error"
    assert "offline" in document["error"]


def test_cancelled_comparison_is_infrastructure_failure(api: FakeApi, capsys: pytest.CaptureFixture[str]) -> None:
    comparison = api.add(Scenario(steps=[("cancelled", 3)]))
    assert main(["verdict", comparison, "--wait", "--poll-interval", "0.01", "--format", "junit"]) == 3
    captured = capsys.readouterr()
    suite = ET.fromstring(captured.out)
    assert suite.get("errors") == "1"
    assert suite.find("testcase/error") is not None
    assert "cancelled" in captured.err


def test_timeout_while_waiting(api: FakeApi, capsys: pytest.CaptureFixture[str]) -> None:
    comparison = api.add(Scenario(steps=[("running", 3)]))
    assert main(["verdict", comparison, "--wait", "--poll-interval", "0.05", "--timeout", "0.3"]) == 3
    err = capsys.readouterr().err
    assert "gave up waiting after 0.3 s" in err
    assert f"latencylab cancel {comparison}" in err


def test_verdict_of_unfinished_comparison_without_wait(api: FakeApi, capsys: pytest.CaptureFixture[str]) -> None:
    comparison = api.add(Scenario(steps=[("running", 3)]))
    assert main(["status", comparison]) == 0
    assert "running 30% (3/10 blocks)" in capsys.readouterr().out
    assert main(["verdict", comparison]) == 3
    assert "no verdict yet" in capsys.readouterr().err


def test_transient_server_errors_are_retried(api: FakeApi, capsys: pytest.CaptureFixture[str]) -> None:
    comparison = finished(api, [verdict_row("h2", "improvement", ratio=0.5)])
    api.faults += [("GET", "/verdict$", 503, {"detail": "Service unavailable"}),
                   ("GET", "/verdict$", 502, {"detail": "Bad gateway"})]
    assert main(["verdict", comparison]) == 0
    # Two of four retries spent: the budget is not in danger, so nothing is said.
    assert "retrying in" not in capsys.readouterr().err
    assert len([p for p in api.paths() if p.endswith("/verdict")]) == 3


def test_a_retry_is_reported_once_half_the_budget_is_spent(api: FakeApi, capsys: pytest.CaptureFixture[str]) -> None:
    comparison = finished(api, [verdict_row("h2", "improvement", ratio=0.5)])
    api.faults += [("GET", "/verdict$", 503, {"detail": "Service unavailable"})] * 3
    assert main(["verdict", comparison]) == 0
    err = capsys.readouterr().err
    assert err.count("retrying in") == 1
    assert "server answered 503: Service unavailable; retrying in " in err
    assert err.rstrip().endswith("(3/4)")


def test_persistent_5xx_is_infrastructure_failure(api: FakeApi, capsys: pytest.CaptureFixture[str]) -> None:
    comparison = finished(api, [verdict_row("h2", "improvement")])
    api.faults += [("GET", "/verdict$", 500, {"detail": "boom"})] * 3
    assert main(["--retries", "2", "verdict", comparison]) == 3
    assert "gave up after 3 attempts" in capsys.readouterr().err


def test_the_specs_warnings_are_said_on_stderr(api: FakeApi, tmp_path: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    spec = tmp_path / "typo.yaml"
    spec.write_text(SPEC_YAML.replace("{label: h2, protocol: h2}",
                                      "{label: h2, protocol: h2, endpoint: 'https://api.typo.invalid'}"))
    assert main(["run", str(spec)]) == 0
    assert "warning: arms.1.endpoint: https://api.typo.invalid does not resolve" in capsys.readouterr().err


def test_create_is_not_retried_after_a_500(api: FakeApi, spec_file: Path, capsys: pytest.CaptureFixture[str]) -> None:
    api.faults.append(("POST", "^/api/v1/comparisons$", 500, {"detail": "Internal error"}))
    assert main(["run", str(spec_file)]) == 3
    assert api.paths("POST") == ["/api/v1/comparisons"]
    assert "server error 500" in capsys.readouterr().err


def test_create_is_retried_after_a_503(api: FakeApi, spec_file: Path) -> None:
    api.faults.append(("POST", "^/api/v1/comparisons$", 503, {"detail": "Maintenance"}))
    assert main(["run", str(spec_file)]) == 0
    assert api.paths("POST") == ["/api/v1/comparisons"] * 2


def test_unreachable_server(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    monkeypatch.setattr(cli_client, "BACKOFF_BASE_S", 0.01)
    code = main(["--server", f"http://127.0.0.1:{port}", "--token", TOKEN, "--retries", "2",
                 "status", str(uuid.uuid4())])
    assert code == 3
    assert "gave up after 3 attempts" in capsys.readouterr().err


def test_server_outage_while_waiting_is_ridden_out(api: FakeApi, capsys: pytest.CaptureFixture[str]) -> None:
    scenario = Scenario(steps=[("running", 3), ("running", 6), ("finished", 10)])
    comparison = api.add(scenario)
    scenario.verdicts[None] = verdict_document(comparison, api.base_url, [verdict_row("h2", "improvement")],
                                               outcome="improvement")
    # The first two polls fail on every attempt (1 + 1 retry each); the wait goes on.
    api.faults += [("GET", f"/{comparison}$", 504, {"detail": "Gateway timeout"})] * 4
    assert main(["--retries", "1", "verdict", comparison, "--wait", "--poll-interval", "0.01"]) == 0
    assert "still waiting" in capsys.readouterr().err


# --- usage errors (exit 4) --------------------------------------------------------------------------------


def test_spec_rejected_by_server_prints_field_paths(api: FakeApi, tmp_path: Path,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    spec = tmp_path / "bad.yaml"
    spec.write_text("name: bad\narms:\n  - {label: a, protocol: h1}\n  - {label: b, protocol: spdy}\n")
    assert main(["run", str(spec), "--wait"]) == 4
    err = capsys.readouterr().err
    assert '  arms[1].protocol: "spdy" is not a valid choice.' in err
    assert len(api.paths()) == 1


def test_field_errors_in_list_shape_too() -> None:
    body = {"arms": [{}, {"protocol": ['"spdy" is not a valid choice.']}],
            "workload": {"periods": {"0": ["Ensure this value is less than or equal to 240."]}},
            "non_field_errors": ["A spec must be a JSON/YAML object."]}
    assert cli_client.format_field_errors(body) == [
        'arms[1].protocol: "spdy" is not a valid choice.',
        "workload.periods[0]: Ensure this value is less than or equal to 240.",
        "A spec must be a JSON/YAML object.",
    ]


def test_bad_token_is_a_usage_error(api: FakeApi, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--token", "wrong", "status", str(uuid.uuid4())]) == 4
    err = capsys.readouterr().err
    assert "not authorised (401): Invalid token." in err
    assert "LATENCYLAB_TOKEN" in err


def test_missing_token_sends_nothing(api: FakeApi, monkeypatch: pytest.MonkeyPatch, spec_file: Path,
                                     capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.delenv("LATENCYLAB_TOKEN")
    assert main(["run", str(spec_file), "--wait"]) == 4
    assert "no API token" in capsys.readouterr().err
    assert api.requests == []


@pytest.mark.parametrize(
    "argv",
    [
        ["run"], ["run", "spec.yaml", "--fail-on", "sometimes"], ["verdict", "not-a-uuid"], ["frobnicate"],
        ["verdict", str(uuid.uuid4()), "--baseline", "main"], ["run", "missing.yaml"],
        ["run", "x.yaml", "--format", "junit"], ["export", str(uuid.uuid4())],
    ],
)
def test_bad_arguments_exit_4(api: FakeApi, argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    assert main(argv) == 4
    assert capsys.readouterr().err.startswith("error: ")
    assert api.requests == []


def test_bad_yaml_and_bad_tag(api: FakeApi, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    spec = tmp_path / "s.yaml"
    spec.write_text("name: [unclosed\n")
    assert main(["run", str(spec)]) == 4
    assert "not valid YAML/JSON" in capsys.readouterr().err
    spec.write_text(SPEC_YAML)
    assert main(["run", str(spec), "--tag", "novalue"]) == 4
    assert "--tag 'novalue' must be KEY=VALUE" in capsys.readouterr().err


# --- formats ----------------------------------------------------------------------------------------------

AWKWARD_DEVICE = 'Pixel | 8 <Pro> & "Fold"\x07'


def mixed_verdicts(api: FakeApi) -> str:
    return finished(api, [
        verdict_row("h2", "improvement", ratio=0.25),
        verdict_row("h3", "regression", ratio=1.12, device=AWKWARD_DEVICE),
        verdict_row("grpc", "inconclusive", ratio=1.02, profile="3g"),
        verdict_row("h2c", "equivalent", ratio=1.01),
    ], outcome="regression")


def test_json_format(api: FakeApi, capsys: pytest.CaptureFixture[str]) -> None:
    comparison = mixed_verdicts(api)
    assert main(["verdict", comparison, "--format", "json", "--fail-on", "inconclusive"]) == 1
    captured = capsys.readouterr()
    document = json.loads(captured.out)
    assert document["schema"] == "latencylab.verdict/1"
    assert document["exit_code"] == 1
    assert document["outcome"] == "regression"
    assert document["fail_on"] == "inconclusive"
    assert document["counts"] == {"regression": 1, "inconclusive": 1, "improvement": 1, "equivalent": 1, "no_data": 0}
    assert len(document["verdicts"]) == 4
    assert document["comparison"] == comparison
    assert "verdict: regression (exit 1)" in captured.err


@pytest.mark.parametrize("fail_on, failures, skipped", [("regression", 1, 1), ("inconclusive", 2, 0)])
def test_junit_format(api: FakeApi, fail_on: str, failures: int, skipped: int,
                      capsys: pytest.CaptureFixture[str]) -> None:
    comparison = mixed_verdicts(api)
    main(["verdict", comparison, "--format", "junit", "--fail-on", fail_on])
    out = capsys.readouterr().out
    assert out.startswith('<?xml version="1.0" encoding="UTF-8"?>')
    suite = ET.fromstring(out.encode())
    assert suite.tag == "testsuite"
    assert suite.get("name") == "latencylab"
    cases = suite.findall("testcase")
    assert len(cases) == 4 == int(suite.get("tests"))
    assert int(suite.get("failures")) == failures == len(suite.findall("testcase/failure"))
    assert int(suite.get("skipped")) == skipped == len(suite.findall("testcase/skipped"))
    by_name = {case.get("name"): case for case in cases}
    regression = by_name["h3 vs https-h1 total_ms"]
    assert regression.get("classname") == 'Pixel | 8 <Pro> & "Fold"\ufffd/lte'
    assert regression.find("failure").get("type") == "regression"
    assert regression.find("failure").get("message").startswith("h3 vs https-h1, Pixel | 8 <Pro>")
    assert by_name["grpc vs https-h1 total_ms"].get("classname") == "Pixel 8/3g"
    assert by_name["h2 vs https-h1 total_ms"].find("system-out").text.startswith("improvement: ")


def markdown_table(text: str) -> list[list[str]]:
    rows = [line for line in text.splitlines() if line.startswith("|")]
    return [[cell.strip().replace("\u00a0", " ") for cell in re.split(r"(?<!\\)\|", row)[1:-1]] for row in rows]


def test_markdown_format(api: FakeApi, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    comparison = mixed_verdicts(api)
    report = tmp_path / "summary.md"
    assert main(["verdict", comparison, "--format", "markdown", "--output", str(report)]) == 1
    captured = capsys.readouterr()
    assert "verdict: regression (exit 1)" in captured.out  # the log still gets the text verdict
    text = report.read_text()
    assert text.splitlines()[1] == "## LatencyLab: regression"
    table = markdown_table(text)
    assert table[0] == ["arm", "device / network", "median", "change (95 % CI)", "Cliff's δ", "p", "verdict"]
    assert all(re.fullmatch(r":?-+:?", cell) for cell in table[1])
    assert len(table) == 2 + 4
    assert all(len(row) == 7 for row in table)
    assert [row[0] for row in table[2:]] == ["`h3`", "`h2`", "`grpc`", "`h2c`"]  # what decided first
    assert table[2][1] == r'Pixel \| 8 \<Pro\> & "Fold" / lte'
    # Each number by the server's rule (the contract's verdict-format-vectors.json): one decimal below 10 %.
    assert table[2][3] == "+12 % [+6.4 %, +18 %]"
    assert table[2][6] == "**regression**"
    assert table[3][3].startswith("\u221275 %")
    assert table[2][2] == "54.2 vs 48.4 ms"
    assert f"]({api.base_url}/comparisons/{comparison})" in text
    assert "How to read this" in text
    assert "\x07" not in text


def test_markdown_escapes_cells(api: FakeApi, capsys: pytest.CaptureFixture[str]) -> None:
    comparison = finished(api, [verdict_row("h3", "regression", ratio=1.1, device=AWKWARD_DEVICE)])
    main(["verdict", comparison, "--format", "markdown"])
    table = markdown_table(capsys.readouterr().out)
    assert len(table[2]) == 7
    assert table[2][1].startswith(r"Pixel \| 8 \<Pro\> &")


def test_text_format(api: FakeApi, capsys: pytest.CaptureFixture[str]) -> None:
    comparison = mixed_verdicts(api)
    assert main(["verdict", comparison]) == 1
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == f"LatencyLab: MID series: HTTPS/1.1 vs HTTP/2 (comparison {comparison})"
    assert lines[2].split()[0] == "regression"
    assert lines[5].split()[0] == "equivalent"
    assert lines[5].endswith("h2c vs https-h1, Pixel 8 / lte: median +1 %, 12 blocks × 3 devices")
    assert lines[-1] == "verdict: regression (exit 1)"


# --- export and status ------------------------------------------------------------------------------------


def test_export_csv_to_file_and_json_to_stdout(api: FakeApi, tmp_path: Path,
                                               capsysbinary: pytest.CaptureFixture[bytes]) -> None:
    comparison = api.add(Scenario(samples_csv=b"run,arm,block,total_ms\n" + b"1,h2,0,12.1\n" * 20000))
    target = tmp_path / "samples.csv"
    assert main(["export", comparison, "--csv", "-o", str(target)]) == 0
    assert target.read_bytes().count(b"\n") == 20001
    assert main(["export", comparison, "--json"]) == 0
    assert json.loads(capsysbinary.readouterr().out) == {"samples": [{"arm": "h2", "total_ms": 12.1}]}
    assert main(["export", str(uuid.uuid4()), "--csv", "-o", str(tmp_path / "nope.csv")]) == 4
    assert not (tmp_path / "nope.csv").exists()
    assert [p.name for p in tmp_path.iterdir()] == ["samples.csv"]


def test_status_json_and_cancel(api: FakeApi, capsys: pytest.CaptureFixture[str]) -> None:
    comparison = api.add(Scenario(steps=[("running", 5)]))
    assert main(["status", comparison, "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["progress"]["percent"] == 50.0
    assert main(["cancel", comparison]) == 0
    assert capsys.readouterr().out.strip() == f"{comparison}: cancelled 50% (5/10 blocks)"


# --- the installed entry point ----------------------------------------------------------------------------


def entry_point() -> str:
    found = shutil.which("latencylab", path=str(Path(sys.executable).parent)) or shutil.which("latencylab")
    if not found:
        pytest.skip("the latencylab entry point is not installed (pip install ./device-runner/cli)")
    return found


def test_entry_point_gates_in_a_ci_like_log(api: FakeApi, spec_file: Path, tmp_path: Path) -> None:
    scenario = Scenario(steps=[("queued", 0), ("running", 4), ("finished", 10)])
    comparison = api.add(scenario, name="MID series: HTTPS/1.1 vs HTTP/2")
    scenario.verdicts[None] = verdict_document(comparison, api.base_url, [verdict_row("h2", "inconclusive")],
                                               outcome="inconclusive")
    env = {**os.environ, "LATENCYLAB_SERVER": api.base_url, "LATENCYLAB_TOKEN": TOKEN, "LC_ALL": "C", "LANG": "C"}
    report = tmp_path / "report.xml"
    result = subprocess.run(
        [entry_point(), "run", "-", "--wait", "--poll-interval", "0.05", "--fail-on", "inconclusive",
         "--format", "junit", "-o", str(report), "--tag", "commit=abc"],
        input=SPEC_YAML, capture_output=True, text=True, env=env, timeout=20, check=False,
    )
    assert result.returncode == 2, result.stderr
    assert "running 40% (4/10 blocks)\n" in result.stderr
    assert "\r" not in result.stderr
    assert result.stdout.strip().endswith("verdict: inconclusive (exit 2)")
    assert ET.parse(report).getroot().find("testcase/failure").get("type") == "inconclusive"
    usage = subprocess.run([entry_point(), "verdict"], capture_output=True, text=True, env=env, timeout=20,
                           check=False)
    assert usage.returncode == 4
    assert "usage:" in usage.stderr


def test_entry_point_draws_a_progress_bar_on_a_terminal(api: FakeApi) -> None:
    scenario = Scenario(steps=[("running", 2), ("running", 5), ("finished", 10)])
    comparison = api.add(scenario)
    scenario.verdicts[None] = verdict_document(comparison, api.base_url, [verdict_row("h2", "improvement")],
                                               outcome="improvement")
    env = {**os.environ, "LATENCYLAB_SERVER": api.base_url, "LATENCYLAB_TOKEN": TOKEN, "TERM": "xterm"}
    env.pop("CI", None)  # CI=true means a log, even behind a pseudo-terminal
    leader, follower = pty.openpty()
    try:
        process = subprocess.Popen([entry_point(), "verdict", comparison, "--wait", "--poll-interval", "0.05"],
                                   stdout=subprocess.PIPE, stderr=follower, env=env)
        os.close(follower)
        chunks = []
        while True:
            ready, _, _ = select.select([leader], [], [], 10)
            if not ready:
                break
            try:
                chunk = os.read(leader, 4096)
            except OSError:  # EIO once the process has closed the terminal
                break
            if not chunk:
                break
            chunks.append(chunk)
        out, _ = process.communicate(timeout=10)
    finally:
        os.close(leader)
    terminal = b"".join(chunks).decode()
    assert process.returncode == 0
    assert "\r\x1b[K[#####" in terminal
    assert "running 50% (5/10 blocks)" in terminal
    assert "[########################] finished 100%" in terminal
    assert "ETA " in terminal
    assert "elapsed " in terminal
    assert out.decode().strip().endswith("verdict: improvement (exit 0)")


def test_version_and_help_exit_0(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--version"]) == 0
    assert main(["run", "--help"]) == 0
    assert "--fail-on" in capsys.readouterr().out


def test_verdict_document_is_not_mutated(api: FakeApi) -> None:
    rows = [verdict_row("h2", "improvement")]
    snapshot = copy.deepcopy(rows)
    comparison = finished(api, rows)
    assert main(["verdict", comparison, "--format", "json"]) == 0
    assert rows == snapshot
    assert cli_main.DEFAULT_SERVER == "http://127.0.0.1:8000"


def test_a_margin_widened_by_the_2ms_floor_is_said_in_text_and_markdown():
    from latencylab_cli.render import widened_margin

    gate = {"metric": "total_ms", "margin_pct": 5.0, "alpha": 0.01}
    assert widened_margin({"margin": 3.88}, gate) == "margin widened to ±388 % by the 2 ms floor"
    assert widened_margin({"margin": 0.05}, gate) == ""
    assert widened_margin({}, gate) == ""


def test_pooled_rows_decide_and_device_rows_sit_beneath(api: FakeApi, capsys: pytest.CaptureFixture[str]) -> None:
    pooled = verdict_row("h2", "inconclusive", devices_disagree=True,
                         reason="devices disagree: p8-a regress, p8-b improve; the pooled estimate would average "
                                "that away")
    worse = verdict_row("h2", "regression", ratio=1.3, scope="device", device_label="p8-a")
    better = verdict_row("h2", "improvement", ratio=0.7, scope="device", device_label="p8-b")
    comparison = finished(api, [worse, pooled, better], outcome="inconclusive")
    assert main(["verdict", comparison]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[2].startswith("  inconclusive")
    assert "devices disagree; see the rows beneath" in lines[2]
    assert lines[3].startswith("    └ regression")
    assert lines[4].startswith("    └ improvement")


# --- the gate's metric, and the other one beside it ----------------------------------------------------------


SERIES_GATE = {"metric": "series_ms", "metric_label": "series time, periods 3–30"}


def series_gated(api: FakeApi) -> str:
    """The MID series with parallel 4: series time (the gate) improves, per-request time (beside
    it) regresses, one period row beneath the pooled one."""
    series = verdict_row("h2", "improvement", ratio=0.67, metric="series_ms", device="host", profile="none",
                         summary="h2 (series time) vs https-h1, host / none: median −33 % [−36 %, −30 %], Cliff's δ "
                                 "−1.00, p < 0.001, 8 blocks × 1 device")
    period = verdict_row("h2", "improvement", ratio=0.5, metric="series_ms", device="host", profile="none",
                         scope="period", summary="h2 (series time) vs https-h1, host / none, period 30: median −50 %")
    per_request = verdict_row("h2", "regression", ratio=2.3, device="host", profile="none",
                              summary="h2 vs https-h1, host / none: median +130 % [+120 %, +140 %], Cliff's δ +0.90, "
                                      "p < 0.001, 8 blocks × 1 device")
    return finished(api, [series, period], outcome="improvement", gate=SERIES_GATE,
                    beside={"metric": "total_ms", "metric_label": "per-request time", "outcome": "regression",
                            "disagrees": True, "verdicts": [per_request]})


def test_the_gate_names_its_metric_and_shows_the_other_beside_it(api: FakeApi,
                                                                  capsys: pytest.CaptureFixture[str]) -> None:
    comparison = series_gated(api)
    assert main(["verdict", comparison]) == 0  # the series' improvement gates, not the per-request regression
    lines = capsys.readouterr().out.splitlines()
    assert lines[1].startswith("gate: median series time, periods 3–30 (series_ms), margin ±5 %")
    assert lines[2].startswith("  improvement   h2 (series time) vs https-h1")
    assert lines[3].startswith("    └ improvement")  # a period row sits beneath
    assert lines[4] == ("per-request time (total_ms), beside it, says regression; not gating: the gate judged "
                        "series time, periods 3–30:")
    assert lines[5].startswith("  regression    h2 vs https-h1, host / none: median +130 %")
    assert lines[-1] == "verdict: improvement (exit 0)"


def test_json_junit_and_markdown_carry_the_metric_beside(api: FakeApi, capsys: pytest.CaptureFixture[str]) -> None:
    comparison = series_gated(api)
    main(["verdict", comparison, "--format", "json"])
    document = json.loads(capsys.readouterr().out)
    assert (document["gate"]["metric"], document["beside"]["outcome"]) == ("series_ms", "regression")
    main(["verdict", comparison, "--format", "junit"])
    suite = ET.fromstring(capsys.readouterr().out.encode())
    properties = {p.get("name"): p.get("value") for p in suite.findall("properties/property")}
    assert properties["gate"].startswith("median series time, periods 3–30 (series_ms)")
    assert properties["beside"].startswith("per-request time (total_ms), beside it, says regression; not gating")
    assert not suite.findall("testcase/failure")  # the rows beside never fail the suite
    main(["verdict", comparison, "--format", "markdown"])
    text = capsys.readouterr().out
    assert "Gate: median of **series time, periods 3–30** (`series_ms`)" in text
    assert "Per-request time (total\\_ms), beside it, says regression; not gating" in text
    assert "- regression: `h2 vs https-h1, host / none: median +130 %" in text


def test_a_summary_that_states_its_margin_is_not_told_twice() -> None:
    from latencylab_cli.render import widened_margin

    gate = {"metric": "total_ms", "margin_pct": 5.0}
    row = {"margin": 0.44, "summary": "h2 vs h1, host / none: median +13 %; margin ±44 %: the 2 ms floor on a 4.5 ms "
           "baseline median"}
    assert widened_margin(row, gate) == ""
    assert widened_margin({**row, "summary": "h2 vs h1"}, gate) == "margin widened to ±44 % by the 2 ms floor"
