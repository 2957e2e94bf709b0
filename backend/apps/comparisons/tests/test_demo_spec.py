"""The demo `make up` submits (infra/bin/demo_spec.py, sent by stack.py `demo`): a valid spec,
over an emulated mobile link where this host can emulate one, and on loopback saying so where
it cannot."""

import os
import sys
from pathlib import Path

import pytest

from apps.comparisons.models import Run
from apps.comparisons.services import comparison_plan
from latencylab_runner.drivers.emulated import link_profile

INFRA_BIN = Path(__file__).resolve().parents[4] / "infra" / "bin"
sys.path.insert(0, str(INFRA_BIN))
import demo_spec  # noqa: E402  (infra/bin is a directory of scripts, not a package)
import stack  # noqa: E402


@pytest.mark.django_db
@pytest.mark.parametrize("unavailable", [None, "the link emulator needs root (network namespaces, TUN devices)"])
def test_the_demo_spec_is_valid_and_plans_its_run_on_its_network(api, pool, unavailable):
    spec = demo_spec.demo_spec(unavailable)
    dry = api.post("/api/v1/comparisons/validate", spec, format="json")
    assert dry.status_code == 200, dry.content
    normalized = dry.json()["spec"]
    # The preset's MID series, with one connection per arm (the effect grows with the period).
    assert normalized["workload"]["objects"] == "seed-mid-24"
    assert normalized["workload"]["concurrency"] == {"parallel": 1}
    created = api.post("/api/v1/comparisons", spec, format="json")
    assert created.status_code == 201, created.content
    assert comparison_plan(comparison_id=created.json()["id"]) == 1
    run = Run.objects.get(comparison_id=created.json()["id"])
    if unavailable is None:
        assert run.network_profile == demo_spec.DEMO_PROFILE == "lte"
        # A profile the host runner can emulate: its link model knows it by name.
        assert link_profile({"name": run.network_profile}).down.delay_ms == 35.0
        assert "emulated LTE" in created.json()["tags"]["network"]
    else:
        assert run.network_profile == "none"
        # The comparison page shows the name and the tags: both say these are not a mobile network's numbers.
        assert "loopback (not a mobile network)" in created.json()["name"]
        assert "not a mobile network" in created.json()["tags"]["network"]
        assert unavailable in created.json()["tags"]["network"]


def test_the_demo_runs_over_the_emulated_link_where_this_host_can_emulate_one(tmp_path):
    """What `make up` decides on this host, asked the way stack.py asks (the runner's user and host)."""
    unavailable = stack.Stack(tmp_path).emulation_unavailable()
    if os.geteuid() == 0:  # the CI host: root, with network namespaces and a TUN device
        assert unavailable is None
        assert demo_spec.demo_spec(unavailable)["network_profiles"] == ["lte"]
    else:
        assert unavailable is not None
        assert "root" in unavailable
        assert demo_spec.demo_spec(unavailable)["network_profiles"] == ["none"]
