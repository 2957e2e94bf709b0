"""Which server answered each arm (result.schema.json `server_stacks`): the probe reads the
`Server` header of real responses (nginx sends one, the reference target does not), and
the host driver's finish names the reference target's software from what the runner
ships, or the customer's server by its header."""

from __future__ import annotations

import threading
from pathlib import Path

from latencylab_contract.validation import validate
from latencylab_tools.target import start_target

from latencylab_runner import __version__
from latencylab_runner.agent.client import RunnerClient
from latencylab_runner.drivers.host import HostDriver
from latencylab_runner.drivers.probe_harness import client_stacks, execute_job
from latencylab_runner.drivers.server_stacks import (
    MAX_SERVER_HEADER_LENGTH,
    TARGET_LIBRARY,
    library_version,
    merge_observed,
    reference_target_software,
    server_stacks,
)
from latencylab_runner.drivers.targets import ReferenceTarget
from latencylab_runner.workloads.job import RESULT_CONTRACT, build_job

WORKLOAD = {"kind": "series", "objects": "seed-mid-24", "periods": [3], "repetitions": 1, "warmup": 1, "gap_ms": 0}


def _spec(arms: list[dict]) -> dict:
    return {"name": "stacks", "seed": 3, "blocks": 1, "timeout_s": 10, "baseline_arm": arms[0]["label"],
            "workload": WORKLOAD, "arms": arms}


def _reference(target_server) -> ReferenceTarget:
    return ReferenceTarget("127.0.0.1", target_server.plain_port, target_server.tls_port, "localhost",
                           str(target_server.ca_file))


def _nginx_arm(nginx_server, tls_dir) -> dict:
    return {"label": "mine", "protocol": "h2", "connection": "warm", "endpoint": f"https://localhost:{nginx_server.port}",
            "ca_bundle": Path(tls_dir.ca_cert).read_text()}


def test_the_probe_reads_each_arms_server_header(target_server, nginx_server, tls_dir):
    arms = [{"label": "ref-h1", "protocol": "h1", "connection": "warm", "endpoint": None, "ca_bundle": None},
            {"label": "ref-h3", "protocol": "h3", "connection": "cold", "endpoint": None, "ca_bundle": None},
            _nginx_arm(nginx_server, tls_dir),
            {**_nginx_arm(nginx_server, tls_dir), "label": "mine-h1", "protocol": "h1", "connection": "cold"}]
    job = build_job(_spec(arms), run_id="r", block=0, attempt=1, target=_reference(target_server))
    result = execute_job(job)
    validate(result, "result")
    assert [s["error_detail"] for s in result["samples"] if s["error_class"]] == []
    observed = result["fingerprint"]["server_stacks"]
    assert observed["ref-h1"] == {"server_headers": []}  # the reference target sends no Server header
    # The reference target sends none over HTTP/3 either; null while the probe's HTTP/3 client cannot read them.
    assert observed["ref-h3"]["server_headers"] in (None, [])
    for label in ("mine", "mine-h1"):  # warm (one connection) and cold (one per request): one value
        assert len(observed[label]["server_headers"]) == 1
        assert observed[label]["server_headers"][0].startswith("nginx/"), observed[label]


def test_the_host_runs_finish_names_reference_and_customer_servers(target_server, nginx_server, tls_dir, backend):
    arms = [{"label": "https-h1", "protocol": "h1", "connection": "warm", "endpoint": None, "ca_bundle": None},
            {"label": "grpc", "protocol": "grpc", "connection": "warm", "endpoint": None, "ca_bundle": None},
            {"label": "h3", "protocol": "h3", "connection": "warm", "endpoint": None, "ca_bundle": None},
            _nginx_arm(nginx_server, tls_dir)]
    run_id = backend.enqueue(serial="host-1", spec=_spec(arms))
    lease = backend.queue.pop()
    client = RunnerClient(backend.url, backend.runner_token, retry_budget_s=0)
    try:
        HostDriver(_reference(target_server)).execute(lease, client, threading.Event())
    finally:
        client.close()
    finish = backend.finishes[run_id]
    assert finish["status"] == "ok", finish
    assert backend.violations == []
    stacks = finish["fingerprint"]["server_stacks"]
    assert stacks["https-h1"] == {"target": "reference", "software": reference_target_software("h1"),
                                  "server_headers": []}
    assert stacks["grpc"] == {"target": "reference", "software": reference_target_software("grpc"),
                              "server_headers": []}
    assert (stacks["h3"]["target"], stacks["h3"]["software"]) == ("reference", reference_target_software("h3"))
    assert stacks["h3"]["server_headers"] in (None, [])
    assert stacks["h3"]["software"].startswith("latencylab-target 0.")
    assert f"({TARGET_LIBRARY['h3']} " in stacks["h3"]["software"]
    assert (stacks["mine"]["target"], stacks["mine"]["software"]) == ("customer", None)
    assert [h.split("/")[0] for h in stacks["mine"]["server_headers"]] == ["nginx"]
    # The finish's fingerprint is a contract fingerprint like any harness's.
    validate({"contract": RESULT_CONTRACT, "run_id": run_id, "block": 0, "attempt": 1, "status": "ok",
              "samples": [], "fingerprint": finish["fingerprint"]}, "result")


def test_the_runners_knowledge_of_the_h3_target_matches_the_target_it_starts(tmp_path):
    """The reference target's HTTP/3 server says what it is when it starts (quic-go and the
    version it was built with); the runner names the same without asking it."""
    with start_target("127.0.0.1", plain_port=None, tls_port=0, tls_dir=tmp_path / "tls") as target:
        announced = target.h3_server
    assert announced == f"{TARGET_LIBRARY['h3']} {library_version(TARGET_LIBRARY['h3'])}"
    assert reference_target_software("h3").endswith(f"({announced})")


def test_the_probe_names_its_native_http3_client_by_the_quic_go_it_is_built_with():
    version = library_version("quic-go")
    assert version != "unknown"  # a checkout has the native sources' go.mod
    assert client_stacks({"h3"}) == {"h3": f"latencylab-probe {__version__} (quic-go {version})"}


def test_blocks_add_up_and_stay_within_the_contracts_bounds():
    servers: dict = {}
    merge_observed(servers, {"a": {"server_headers": None}, "b": {"server_headers": ["nginx/1.25"]}})
    assert servers == {"a": {"server_headers": None}, "b": {"server_headers": ["nginx/1.25"]}}
    long = "x" * (MAX_SERVER_HEADER_LENGTH + 50)
    merge_observed(servers, {"a": {"server_headers": ["caddy"]},
                             "b": {"server_headers": ["nginx/1.25", "envoy", long, "one too many"]}})
    assert servers["a"] == {"server_headers": ["caddy"]}  # one block could read it: no longer null
    assert servers["b"] == {"server_headers": ["nginx/1.25", "envoy", "x" * MAX_SERVER_HEADER_LENGTH]}
    merge_observed(servers, {"a": {"server_headers": None}})
    assert servers["a"] == {"server_headers": ["caddy"]}


def test_an_older_harness_that_reports_no_servers_leaves_the_headers_unknown():
    arms = [{"label": "h2", "protocol": "h2", "endpoint": None},
            {"label": "mine", "protocol": "h3", "endpoint": "https://api.example.com"}]
    assert server_stacks(arms, None) == {
        "h2": {"target": "reference", "software": reference_target_software("h2"), "server_headers": None},
        "mine": {"target": "customer", "software": None, "server_headers": None},
    }
