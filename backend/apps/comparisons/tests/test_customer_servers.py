"""Acceptance against servers nobody here wrote: a customer's "two builds" are Debian's
nginx and Caddy serving the customer's own paths. The seed experiments — the MID image
series, a payload sweep, a delay sweep and API calls with downloads — and a 50-request HAR replay through h1, h2 and
h3 run through the service with the real runner agent and host probe, and every sample
must be what those servers really sent: the recorded status and the file's exact size,
over the arm's protocol. The reference target is not involved at all."""

import json
import shutil
import tempfile
from pathlib import Path

import pytest
from latencylab_tools.target.content import file_bytes, file_sizes
from latencylab_tools.tls import ensure_tls

from apps.comparisons.models import Comparison
from apps.results.models import Sample
from testing.customer_servers import ECHO_MODULE, start_caddy, start_nginx
from testing.host_agent import run_on_host_agent

pytestmark = pytest.mark.skipif(not ECHO_MODULE.exists(), reason=f"nginx's echo module is missing: {ECHO_MODULE}")

IMAGES = [f"mid-{i:02d}" for i in range(1, 25)]
PAYLOADS = [1_000, 64_000, 300_000]
DELAYS_MS = [0, 40, 80]
VERDICTS = {"regression", "improvement", "equivalent", "inconclusive"}


def _customer_root(root: Path) -> dict[str, int]:
    """The customer's files: the 24 MID images under /img/ and payloads under /payload/.
    Returns path → size."""
    sizes: dict[str, int] = {}
    (root / "img").mkdir(parents=True)
    (root / "payload").mkdir()
    for name in IMAGES:
        (root / "img" / f"{name}.jpg").write_bytes(file_bytes(name))
        sizes[f"/img/{name}.jpg"] = file_sizes()[name]
    for size in PAYLOADS:
        (root / "payload" / f"{size}.bin").write_bytes(bytes(size))
        sizes[f"/payload/{size}.bin"] = size
    root.chmod(0o755)
    return sizes


def _har(origin: str, sizes: dict[str, int]) -> dict:
    """A 50-entry recording of an app browsing the customer's server, as DevTools exports it."""
    paths = list(sizes)
    entries = []
    for i in range(50):
        path = paths[i % len(paths)]
        entries.append({
            "startedDateTime": f"2026-11-20T10:00:{i // 10:02d}.{(i % 10) * 100:03d}Z", "time": 20,
            "request": {"method": "GET", "url": f"{origin}{path}", "httpVersion": "h2",
                        "headers": [{"name": "accept", "value": "*/*"},
                                    {"name": "cookie", "value": "session=dropped-by-the-import"}],
                        "queryString": [], "cookies": [], "headersSize": -1, "bodySize": 0},
            "response": {"status": 200, "statusText": "OK", "httpVersion": "h2", "headers": [], "cookies": [],
                         "content": {"size": sizes[path], "mimeType": "application/octet-stream"},
                         "redirectURL": "", "headersSize": -1, "bodySize": sizes[path]},
            "cache": {}, "timings": {"send": 0, "wait": 10, "receive": 10},
        })
    return {"log": {"version": "1.2", "creator": {"name": "WebInspector", "version": "537.36"}, "pages": [],
                    "entries": entries}}


@pytest.fixture
def customer(tmp_path):
    tls = ensure_tls(tmp_path / "tls")
    # nginx's workers drop root for `nobody`: the files live where they can read them
    # (pytest's tmp_path is private to root).
    public = Path(tempfile.mkdtemp(prefix="latencylab-customer-"))
    public.chmod(0o755)
    sizes = _customer_root(public / "root")
    build_a = start_nginx(tmp_path / "nginx-a", public / "root", cert=tls.server_cert, key=tls.server_key,
                          delays_ms=DELAYS_MS)
    build_b = start_nginx(tmp_path / "nginx-b", public / "root", cert=tls.server_cert, key=tls.server_key,
                          delays_ms=DELAYS_MS)
    try:
        caddy = start_caddy(tmp_path / "caddy", public / "root", cert=tls.server_cert, key=tls.server_key)
    except FileNotFoundError as exc:
        build_a.stop()
        build_b.stop()
        pytest.skip(str(exc))
    yield {"a": build_a, "b": build_b, "caddy": caddy, "ca": tls.ca_cert.read_text(), "sizes": sizes}
    for server in (build_a, build_b, caddy):
        server.stop()
    shutil.rmtree(public, ignore_errors=True)


def _arm(label: str, protocol: str, server, ca: str) -> dict:
    return {"label": label, "protocol": protocol, "endpoint": server.endpoint(), "ca_bundle": ca}


def _submit(api, spec: dict) -> str:
    response = api.post("/api/v1/comparisons", {"blocks": 2, "seed": 5, **spec}, format="json")
    assert response.status_code == 201, response.content
    return response.json()["id"]


def _assert_finished_with_verdict(api, comparison_id: str, arms: list[str]) -> None:
    comparison = Comparison.objects.get(pk=comparison_id)
    assert comparison.status == "finished", (comparison.name, comparison.status, comparison.error,
                                             list(comparison.runs.values("status", "error")))
    verdict = api.get(f"/api/v1/comparisons/{comparison_id}/verdict")
    assert verdict.status_code == 200, verdict.content
    assert verdict.json()["outcome"] in VERDICTS, (comparison.name, json.dumps(verdict.json())[:3000])
    results = api.get(f"/api/v1/comparisons/{comparison_id}/results").json()
    for arm in arms:
        assert results["groups"][0]["requests"][arm]["errors"] == 0, (comparison.name, results["groups"][0])


def _measured(comparison_id: str):
    return Sample.objects.filter(comparison_id=comparison_id, phase="measure").select_related("arm")


@pytest.mark.django_db(transaction=True)
def test_seed_experiments_and_a_har_replay_against_nginx_and_caddy(live_server, api, pool, customer):
    a, b, caddy, ca, sizes = customer["a"], customer["b"], customer["caddy"], customer["ca"], customer["sizes"]
    preview = api.post("/api/v1/har-import?repetitions=2", json.dumps(_har(a.endpoint(), sizes)),
                       content_type="application/json")
    assert preview.status_code == 200, preview.content
    har_workload = preview.json()["workload"]
    assert len(har_workload["requests"]) == 50
    assert all("cookie" not in {h.lower() for h in r.get("headers", {})} for r in har_workload["requests"])

    ids = {
        "series": _submit(api, {
            "name": "MID series: build A vs build B",
            "workload": {"kind": "series", "periods": [24], "repetitions": 2,
                         "object_paths": [f"/img/{name}.jpg" for name in IMAGES]},
            "arms": [_arm("build-a", "h2", a, ca), _arm("build-b", "h2", b, ca)]}),
        "payload": _submit(api, {
            "name": "payload sweep: nginx vs caddy",
            "workload": {"kind": "payload_sweep", "sizes": PAYLOADS, "repetitions": 3, "method": "GET",
                         "path": "/payload/{size}.bin"},
            "arms": [_arm("nginx", "h2", a, ca), _arm("caddy", "h2", caddy, ca)]}),
        "delay": _submit(api, {
            "name": "delay sweep: build A vs build B",
            "workload": {"kind": "delay_sweep", "start_ms": DELAYS_MS[0], "stop_ms": DELAYS_MS[-1],
                         "step_ms": DELAYS_MS[1] - DELAYS_MS[0], "trials": 2, "path": "/slow/{delay_ms}"},
            "arms": [_arm("build-a", "h1", a, ca), _arm("build-b", "h2", b, ca)]}),
        "api": _submit(api, {
            "name": "API calls and downloads: build A vs build B",
            "workload": {"kind": "mixed", "rounds": 2, "calls": 3, "path": "/api/ping?v=1",
                         "file_paths": [f"/img/{name}.jpg" for name in IMAGES[:5]]},
            "arms": [_arm("build-a", "h1", a, ca), _arm("build-b", "h2", b, ca)]}),
        "har": _submit(api, {
            "name": "HAR replay over h1, h2 and h3",
            "workload": {**har_workload, "warmup": 1},
            "arms": [_arm("h1-nginx", "h1", a, ca), _arm("h2-nginx", "h2", a, ca), _arm("h3-caddy", "h3", caddy, ca)],
            "baseline_arm": "h2-nginx"}),
    }
    run_on_host_agent(live_server.url, pool, list(ids.values()), name="customer-runner", timeout_s=240)

    _assert_finished_with_verdict(api, ids["series"], ["build-a", "build-b"])
    series = list(_measured(ids["series"]))
    assert len(series) == 2 * 2 * 24  # arms × repetitions × period (2 blocks share the repetitions)
    for sample in series:
        assert (sample.status, sample.alpn, sample.resp_bytes) == (200, "h2", sizes[sample.path]), sample.path

    _assert_finished_with_verdict(api, ids["payload"], ["nginx", "caddy"])
    for sample in _measured(ids["payload"]):
        assert (sample.status, sample.resp_bytes) == (200, sizes[sample.path]), (sample.arm.label, sample.path)

    _assert_finished_with_verdict(api, ids["delay"], ["build-a", "build-b"])
    delay = list(_measured(ids["delay"]))
    assert {s.path for s in delay} == {f"/slow/{ms}" for ms in DELAYS_MS}
    for sample in delay:
        assert sample.status == 200
        assert sample.server_delay_ms == float(sample.path.rsplit("/", 1)[1])
        # nginx really waited: the response cannot come before the requested delay. Counted from
        # req_start, stamped before the request is written, so the server cannot have had it earlier;
        # req_end is stamped after the write returns, which a descheduled probe thread can stamp late
        # (make test's load once put it 5.9 ms late and the gap at 34.6 ms for a 40 ms delay).
        assert sample.resp_first_byte - sample.req_start >= sample.server_delay_ms * 1000 * 0.9, sample.path

    _assert_finished_with_verdict(api, ids["api"], ["build-a", "build-b"])
    calls_and_files = list(_measured(ids["api"]))
    assert len(calls_and_files) == 2 * 2 * (3 + 5 + 3)  # arms × rounds × (part A calls + part B files and calls)
    for sample in calls_and_files:
        if sample.op == "echo":  # the customer's API call: POSTed to its own path
            assert (sample.path, sample.status, sample.resp_bytes) == ("/api/ping?v=1", 200, 4), sample.arm.label
        else:
            assert (sample.status, sample.resp_bytes) == (200, sizes[sample.path]), sample.path

    _assert_finished_with_verdict(api, ids["har"], ["h1-nginx", "h2-nginx", "h3-caddy"])
    har = list(_measured(ids["har"]))
    expected_alpn = {"h1-nginx": "http/1.1", "h2-nginx": "h2", "h3-caddy": "h3"}
    assert sorted({s.arm.label for s in har}) == sorted(expected_alpn)
    for label in expected_alpn:
        assert sum(s.arm.label == label for s in har) == 50 * 2, label
    recorded = {i: entry for i, entry in enumerate(_har(a.endpoint(), sizes)["log"]["entries"])}
    for sample in har:
        entry = recorded[sample.step]
        assert sample.alpn == expected_alpn[sample.arm.label]
        assert sample.status == entry["response"]["status"]
        assert sample.resp_bytes == entry["response"]["bodySize"], (sample.arm.label, sample.step)
    # Per request: each of the 50 listed requests has its own statistics, named as the HAR import named them.
    group = api.get(f"/api/v1/comparisons/{ids['har']}/results").json()["groups"][0]
    names = [r["name"] for r in har_workload["requests"]]
    assert group["per_request"]["names"] == names
    for label in expected_alpn:
        per_arm = group["per_request"]["arms"][label]
        assert per_arm["n"] == [2] * 50, label
        assert per_arm["errors"] == [0] * 50
        assert all(m is not None and m > 0 for m in per_arm["median_ms"])
