"""The stacks a results page shows come from real runs: a real host runner agent measures
one arm against its reference target and one against Debian's nginx (a customer's server,
which says so in its Server header), and the results API names both servers and the
probe's client stack for each arm."""

import shutil
import tempfile
from pathlib import Path

import pytest
from latencylab_tools.target import start_target
from latencylab_tools.target.content import file_bytes

from apps.comparisons.models import Comparison
from latencylab_runner.drivers.server_stacks import reference_target_software
from testing.customer_servers import start_nginx
from testing.host_agent import reference_of, run_on_host_agent


@pytest.fixture
def servers(tmp_path):
    """The reference target and nginx, sharing the target's test CA and certificate."""
    with start_target("127.0.0.1", plain_port=0, tls_port=0, tls_dir=tmp_path / "tls", h3=False) as target:
        # nginx's workers drop root for `nobody`: its files live where they can read them.
        public = Path(tempfile.mkdtemp(prefix="latencylab-stacks-"))
        (public / "files").mkdir(parents=True)
        (public / "files" / "mid-01").write_bytes(file_bytes("mid-01"))
        for path in (public, public / "files"):
            path.chmod(0o755)
        nginx = start_nginx(tmp_path / "nginx", public, cert=target.tls.server_cert, key=target.tls.server_key)
        try:
            yield target, nginx
        finally:
            nginx.stop()
            shutil.rmtree(public, ignore_errors=True)


@pytest.mark.django_db(transaction=True)
def test_a_finished_run_names_the_reference_target_and_the_customers_nginx(live_server, api, pool, servers):
    target, nginx = servers
    spec = {"name": "stacks", "blocks": 1, "seed": 2, "baseline_arm": "reference",
            "workload": {"kind": "series", "object_paths": ["/files/mid-01"], "periods": [2], "repetitions": 1},
            "arms": [{"label": "reference", "protocol": "h2"},
                     {"label": "nginx", "protocol": "h2", "endpoint": nginx.endpoint(),
                      "ca_bundle": Path(target.ca_file).read_text()}]}
    created = api.post("/api/v1/comparisons", spec, format="json")
    assert created.status_code == 201, created.content
    comparison_id = created.json()["id"]
    assert run_on_host_agent(live_server.url, pool, [comparison_id], name="stacks-runner",
                             target=reference_of(target))
    comparison = Comparison.objects.get(pk=comparison_id)
    assert comparison.status == "finished", (comparison.error, list(comparison.runs.values("status", "error")))

    stacks = {s["arm"]: s for s in api.get(f"/api/v1/comparisons/{comparison_id}/results").json()["stacks"]}
    for arm in ("reference", "nginx"):
        (client,) = stacks[arm]["clients"]
        assert (client["platform"], client["runs"]) == ("host", 1)
        assert client["stack"].startswith("latencylab-probe ")
        assert "(h2 " in client["stack"]
    assert stacks["reference"]["servers"] == [{"target": "reference", "software": reference_target_software("h2"),
                                               "server_headers": [], "runs": 1}]
    (customer,) = stacks["nginx"]["servers"]
    assert (customer["target"], customer["software"], customer["runs"]) == ("customer", None, 1)
    assert [header.split("/")[0] for header in customer["server_headers"]] == ["nginx"]
