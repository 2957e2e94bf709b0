"""A real regression through the whole service with the default spec on one host device:
two reference target workers, the second with the Nagle/delayed-ACK trap on (seeds/004),
measured by the real agent over real sockets as two customer endpoints. With the default
8 blocks the verdict must be `regression` and the CLI must exit 1 on it (the rank test
this gate used before could not go below p = 0.031 on 6 blocks: "inconclusive")."""

import pytest
from latencylab_cli.main import main as latencylab
from latencylab_tools.target import start_target

from apps.accounts.services import api_token_create
from apps.comparisons.models import Comparison
from testing.host_agent import reference_of, run_on_host_agent


@pytest.fixture
def target(tmp_path):
    with start_target("127.0.0.1", plain_port=0, tls_port=0, tls_dir=tmp_path / "tls") as running:
        yield running


@pytest.fixture
def trap_target(target, tmp_path):
    """A second reference target with the Nagle trap, sharing the first one's CA."""
    with start_target("127.0.0.1", plain_port=0, tls_port=0, tls_dir=tmp_path / "tls", nagle_trap=True,
                      h3=False) as running:
        yield running


# Its verdict rests on latencies measured here: run with the timing tests, nothing else beside them.
@pytest.mark.timing
@pytest.mark.django_db(transaction=True)
def test_nagle_trap_is_a_regression_with_the_default_spec(live_server, api, org, pool, target, trap_target,
                                                          capsys):
    ca = target.ca_file.read_text()
    spec = {
        "name": "Nagle trap vs the same server",
        # Only what the comparison is about: everything else (8 blocks, one host device, the gate's
        # 5 % margin and α 0.01) is the default spec. The sweep's repetitions are spread over the
        # blocks: 16 give each of the 8 blocks 2 requests per size and arm (12 left some blocks one,
        # and blocks of unequal make-up widened the spread of the per-block ratios).
        "workload": {"kind": "payload_sweep", "sizes": [1000, 35000], "repetitions": 16},
        "arms": [{"label": "build-a", "protocol": "h1", "endpoint": f"https://127.0.0.1:{target.tls_port}",
                  "ca_bundle": ca},
                 {"label": "build-b", "protocol": "h1", "endpoint": f"https://127.0.0.1:{trap_target.tls_port}",
                  "ca_bundle": ca}],
        "baseline_arm": "build-a",
    }
    created = api.post("/api/v1/comparisons", spec, format="json")
    assert created.status_code == 201, created.content
    comparison_id = created.json()["id"]
    assert created.json()["spec"]["blocks"] == 8
    finished = run_on_host_agent(live_server.url, pool, [comparison_id], name="nagle-runner", timeout_s=180,
                                 target=reference_of(target))
    comparison = Comparison.objects.get(pk=comparison_id)
    assert finished, (comparison.status, comparison.error)
    assert comparison.status == "finished", (comparison.status, comparison.error)

    verdict = api.get(f"/api/v1/comparisons/{comparison_id}/verdict").json()
    (row,) = verdict["verdicts"]
    assert (row["arm"], row["baseline_arm"], row["blocks"], row["devices"]) == ("build-b", "build-a", 8, 1)
    assert row["outcome"] == "regression", (row["summary"], row["reason"], row["ci95"])
    assert verdict["outcome"] == "regression"
    assert row["p_adjusted"] < 0.01
    assert row["ci95"][0] > 1.05
    assert row["cliffs_delta"] >= 0.147

    _, token = api_token_create(organization=org, name="ci", scopes=["ci"])
    code = latencylab(["--server", live_server.url, "--token", token, "verdict", comparison_id,
                       "--fail-on", "regression"])
    assert code == 1, capsys.readouterr().out
