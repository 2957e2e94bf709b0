"""Per-device Wi-Fi shaping (netlab/wifi.py): the tc commands for one phone, the
refusal where the kernel lacks netem, and — for real, in a namespace — that the kernel
accepts the htb/ifb/u32 structure (netem itself swapped for pfifo, since this kernel has
no sch_netem; its arguments are the host backend's, tested in test_netlab_netem.py)."""

import os
import secrets
import shutil
import subprocess

import pytest
from latencylab_tools.netlab import PRESETS
from latencylab_tools.netlab.nsutil import NS_PREFIX
from latencylab_tools.netlab.shaping_probe import ShapingProbe
from latencylab_tools.netlab.wifi import (
    ShapingUnavailable,
    WifiInterfaces,
    WifiShaper,
    device_blackout_commands,
    device_commands,
    device_removal_commands,
    setup_commands,
)

IFACES = WifiInterfaces(ap="wlan0", ifb="llab-ifb0")


# The probe's verdicts (shaping_probe.py, tested in namespaces of its own in test_shaping_probe.py).
def shapes_here(_ap: str) -> ShapingProbe:
    return ShapingProbe(True)


def netem_missing_here(_ap: str) -> ShapingProbe:
    return ShapingProbe(False, "the kernel lacks sch_netem: `tc qdisc add dev llab-p1 parent 1:1 handle 1001: netem "
                               "delay 1ms` answered Error: Specified qdisc kind is unknown.; `modprobe sch_netem`",
                        "module")


def find(cmds, *words):
    """The one command containing every word, in order of appearance."""
    hits = [c for c in cmds if all(w in c for w in words)]
    assert len(hits) == 1, (words, hits)
    return hits[0]


def after(cmd, word, n=1):
    i = cmd.index(word)
    return cmd[i + 1:i + 1 + n] if n > 1 else cmd[i + 1]


def test_each_direction_is_shaped_on_its_own_device_keyed_by_the_phone_address():
    profile = PRESETS["3g"]
    cmds = device_commands(IFACES, 7, "198.18.5.20", profile)
    down_class = find(cmds, "class", "wlan0")
    up_class = find(cmds, "class", "llab-ifb0")
    assert after(down_class, "classid") == "1:7"
    assert after(down_class, "rate") == "1600kbit"
    assert after(up_class, "rate") == "768kbit"
    assert after(up_class, "ceil") == "768kbit"
    down_netem = find(cmds, "qdisc", "wlan0", "netem")
    assert after(down_netem, "delay") == "150ms"
    assert after(down_netem, "parent") == "1:7"
    assert after(down_netem, "handle") == "1007:"  # never 1: (the root) or ffff: (ingress)
    # Phone downstream = destination on the AP's egress; upstream = source on the ifb.
    down_filter = find(cmds, "filter", "wlan0")
    up_filter = find(cmds, "filter", "llab-ifb0")
    assert after(down_filter, "dst") == "198.18.5.20/32"
    assert after(down_filter, "flowid") == "1:7"
    assert after(up_filter, "src") == "198.18.5.20/32"
    assert after(up_filter, "prio") == "7"


def test_the_netem_queue_is_the_profile_queue_plus_the_delay_line_not_netems_default():
    profile = PRESETS["3g"]  # 1600 kbit/s down, 150 ms one way
    down = profile.down
    netem = find(device_commands(IFACES, 1, "198.18.5.20", profile), "qdisc", "wlan0", "netem")
    in_flight = -(-int(down.rate_kbit * 1000 / 8 * down.delay_ms / 1000) // 1500)  # ceil(BDP / MTU)
    assert int(after(netem, "limit")) == down.queue_packets + in_flight < 1000


def test_ipv6_phones_match_on_ip6():
    cmds = device_commands(IFACES, 2, "fd00::2", PRESETS["lte"])
    f = find(cmds, "filter", "wlan0")
    assert after(f, "protocol") == "ipv6"
    assert after(f, "dst") == "fd00::2/128"


def test_removal_deletes_the_filter_before_the_class_it_points_at():
    cmds = device_removal_commands(IFACES, 3)
    for dev in ("wlan0", "llab-ifb0"):
        f = cmds.index(find(cmds, "filter", "del", dev))
        c = cmds.index(find(cmds, "class", "del", dev))
        assert f < c


def test_blackout_switches_both_directions_to_total_loss_and_back():
    profile = PRESETS["train"]
    on = device_blackout_commands(IFACES, 4, profile, True)
    off = device_blackout_commands(IFACES, 4, profile, False)
    assert all(after(c, "loss", 2) == ["random", "100%"] for c in on)
    assert all(after(c, "loss") == "gemodel" for c in off)  # back to the profile's bursty loss
    assert all("change" in c for c in on + off)


class Recorder:
    def __init__(self):
        self.cmds = []

    def __call__(self, cmd):
        self.cmds.append(list(cmd))


def test_shaper_sets_up_once_gives_each_phone_its_own_slot_and_replaces_a_profile():
    rec = Recorder()
    shaper = WifiShaper(IFACES, runner=rec, probe=shapes_here)
    shaper.apply("R5CT1", "198.18.5.20", PRESETS["lte"])
    shaper.apply("R5CT2", "198.18.5.21", PRESETS["3g"])
    setup = len(setup_commands(IFACES))
    assert rec.cmds[:setup] == setup_commands(IFACES)
    assert sum("ingress" in c for c in rec.cmds) == 1
    prios = [after(c, "prio") for c in rec.cmds if "filter" in c and "add" in c and "prio" in c]
    assert prios == ["1", "1", "2", "2"]
    rec.cmds.clear()
    shaper.apply("R5CT1", "198.18.5.20", PRESETS["3g"])  # a new profile replaces the old one
    assert rec.cmds[:4] == device_removal_commands(IFACES, 1)
    assert rec.cmds[4:] == device_commands(IFACES, 1, "198.18.5.20", PRESETS["3g"])
    rec.cmds.clear()
    shaper.close()
    assert ["ip", "link", "del", "llab-ifb0"] in rec.cmds
    assert rec.cmds.index(["tc", "qdisc", "del", "dev", "wlan0", "root"]) > rec.cmds.index(
        ["tc", "filter", "del", "dev", "wlan0", "parent", "1:", "prio", "2"])


def test_without_netem_the_shaper_refuses_with_the_reason_and_touches_nothing():
    rec = Recorder()
    shaper = WifiShaper(IFACES, runner=rec, probe=netem_missing_here)
    with pytest.raises(ShapingUnavailable, match="sch_netem"):
        shaper.apply("R5CT1", "198.18.5.20", PRESETS["lte"])
    assert rec.cmds == []


def test_a_bad_address_is_refused_before_anything_runs():
    rec = Recorder()
    with pytest.raises(ValueError, match="not-an-ip"):
        WifiShaper(IFACES, runner=rec, probe=shapes_here).apply("R5CT1", "not-an-ip", PRESETS["lte"])
    assert rec.cmds == []


needs_root = pytest.mark.skipif(os.geteuid() != 0 or shutil.which("tc") is None,
                                reason="needs root and tc to build a namespace")


def test_the_shaper_passes_on_the_real_probe_s_reason_and_touches_nothing():
    """The default probe (shaping_probe.py), for an AP interface this host does not have: the
    shaper refuses with the probe's reason before any command of its own."""
    rec = Recorder()
    shaper = WifiShaper(WifiInterfaces(ap="llab-noap0", ifb="llab-ifb0"), runner=rec)
    with pytest.raises(ShapingUnavailable, match=r"^per-device Wi-Fi shaping is not available on this host: "
                                                 r"link\.interface 'llab-noap0': "):
        shaper.apply("R5CT1", "198.18.5.20", PRESETS["lte"])
    assert rec.cmds == []


@needs_root
def test_the_kernel_accepts_the_structure_with_pfifo_standing_in_for_netem():
    """setup, two phones (IPv4 and IPv6), replace one, remove, tear down — every command
    run by the real tc in a throwaway namespace on a veth standing in for the AP."""
    ns = f"{NS_PREFIX}{os.getpid()}-{secrets.token_hex(3)}-wifi"
    subprocess.run(["ip", "netns", "add", ns], check=True)
    try:
        subprocess.run(["ip", "-n", ns, "link", "add", "llab-ap", "type", "veth", "peer", "name", "llab-sta"],
                       check=True)
        subprocess.run(["ip", "-n", ns, "link", "set", "llab-ap", "up"], check=True)
        ran = []

        def in_namespace(cmd):
            cmd = list(cmd)
            if "netem" in cmd:  # no sch_netem here: the same leaf position, another qdisc
                cmd = cmd[:cmd.index("netem")] + ["pfifo", "limit", "100"]
            if cmd[0] == "tc":
                cmd = ["tc", "-n", ns, *cmd[1:]]
            else:
                cmd = ["ip", "-n", ns, *cmd[1:]]
            p = subprocess.run(cmd, capture_output=True, text=True)
            assert p.returncode == 0, f"{' '.join(cmd)}: {p.stderr}"
            ran.append(cmd)

        shaper = WifiShaper(WifiInterfaces(ap="llab-ap", ifb="llab-ifb0"), runner=in_namespace,
                            probe=shapes_here)
        shaper.apply("phone-a", "198.18.5.20", PRESETS["3g"])
        shaper.apply("phone-b", "fd00::2", PRESETS["lte"])
        shaper.apply("phone-a", "198.18.5.20", PRESETS["lte"])
        classes = subprocess.run(["tc", "-n", ns, "class", "show", "dev", "llab-ap"], capture_output=True,
                                 text=True, check=True).stdout
        assert "1:1 " in classes
        assert "1:2 " in classes
        assert "rate 12Mbit" in classes
        filters = subprocess.run(["tc", "-n", ns, "filter", "show", "dev", "llab-ifb0"], capture_output=True,
                                 text=True, check=True).stdout
        assert "flowid 1:1" in filters
        assert "flowid 1:2" in filters
        shaper.remove("phone-b")
        shaper.close()
        assert subprocess.run(["ip", "-n", ns, "link", "show", "llab-ifb0"], capture_output=True).returncode != 0
    finally:
        subprocess.run(["ip", "netns", "del", ns], check=False)
