"""tc/netem command generation (the kernel here has no sch_netem, so only the
commands are checked; netem_available() must detect that, not assume)."""
import os

import pytest
from latencylab_tools.netlab import PRESETS, LinkProfile, netem_available
from latencylab_tools.netlab.netem import blackout_commands, link_commands, netem_args, shaping_commands, tbf_args


def test_qir_default_commands():
    cmds = shaping_commands("llab-1-a-r", "llab-rc", PRESETS["qir-default"].down)
    assert cmds == [
        ["tc", "-n", "llab-1-a-r", "qdisc", "add", "dev", "llab-rc", "root", "handle", "1:", "netem",
         "delay", "15ms", "limit", "1000"],
        ["tc", "-n", "llab-1-a-r", "qdisc", "add", "dev", "llab-rc", "parent", "1:1", "handle", "10:", "tbf",
         "rate", "10000kbit", "burst", "1540", "limit", "37500"],
    ]


def test_jitter_loss_and_gemodel_args():
    p = LinkProfile.from_dict({"seed": 42, "down": {"delay_ms": 60, "jitter_ms": 20, "jitter_correlation_pct": 25,
                                                    "loss_pct": 2}})
    assert netem_args(p.down, p.seed) == ["delay", "60ms", "20ms", "25%", "distribution", "normal",
                                          "loss", "random", "2%", "limit", "12000", "seed", "42"]
    ge = LinkProfile.from_dict({"up": {"gilbert": {"p": 1, "r": 25, "h": 10, "k": 99.5}}}).up
    args = netem_args(ge)
    i = args.index("gemodel")
    # netem takes 1-h and 1-k.
    assert args[i:i + 5] == ["gemodel", "1%", "25%", "90%", "0.5%"]


def test_unlimited_rate_has_no_tbf_and_blackout_is_total_loss():
    assert tbf_args(PRESETS["transatlantic"].down) is None
    on = blackout_commands("r", PRESETS["train"], on=True)
    assert [c[4:7] for c in on] == [["change", "dev", "llab-rc"], ["change", "dev", "llab-rs"]]
    assert all("loss random 100%" in " ".join(c) for c in on)
    off = blackout_commands("r", PRESETS["train"], on=False)
    assert all("loss gemodel" in " ".join(c) for c in off)


def test_link_commands_route_only_benchmark_range_and_disable_offloads():
    cmds = link_commands(PRESETS["lte"], "c", "r", "s")
    text = [" ".join(c) for c in cmds]
    assert "ip -n c route add 198.19.0.0/16 via 198.18.0.254" in text
    assert "ip -n s route add 198.18.0.0/16 via 198.19.0.254" in text
    assert not any("default" in t for t in text)
    assert sum("ethtool -K" in t for t in text) == 4
    assert sum(t.startswith("tc ") for t in text) == 4


@pytest.mark.skipif(os.geteuid() != 0, reason="probing netem needs root (creates a throwaway namespace)")
def test_netem_available_detects_and_is_bool():
    assert isinstance(netem_available(), bool)
    leftovers = os.listdir("/var/run/netns") if os.path.isdir("/var/run/netns") else []
    assert not any(n.endswith("-probe") for n in leftovers)
