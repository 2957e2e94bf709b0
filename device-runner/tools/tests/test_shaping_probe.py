"""The shaping probe names the real cause, read from what the kernel answers through iproute2
(latencylab_tools.netlab.shaping_probe). Run for real in a network namespace created here
(the probe's commands go through `ip netns exec`, so the host's interfaces are never touched),
with an "AP" interface of its own: once with CAP_NET_ADMIN, once without it — `setpriv`
drops it from the bounding and inheritable sets before iproute2 starts, as a service without
AmbientCapabilities=CAP_NET_ADMIN would run it."""

from __future__ import annotations

import os
import secrets
import subprocess
from collections.abc import Iterator, Sequence

import pytest
from latencylab_tools.netlab.nsutil import NS_PREFIX
from latencylab_tools.netlab.shaping_probe import PROBE_IFB_PREFIX, judge_answer, probe_shaping

AP = "llab-ap0"
DROP_NET_ADMIN = ["setpriv", "--bounding-set", "-net_admin", "--inh-caps", "-net_admin", "--"]


@pytest.fixture
def netns() -> Iterator[str]:
    name = f"{NS_PREFIX}{os.getpid()}-{secrets.token_hex(3)}-probe-test"
    subprocess.run(["ip", "netns", "add", name], check=True)
    try:
        subprocess.run(["ip", "-n", name, "link", "add", AP, "type", "veth", "peer", "name", "llab-ap1"], check=True)
        yield name
    finally:
        subprocess.run(["ip", "netns", "del", name], check=True)


def in_netns(name: str, *, prefix: Sequence[str] = ()):
    def runner(cmd: Sequence[str]) -> tuple[int, str]:
        done = subprocess.run(["ip", "netns", "exec", name, *prefix, *cmd], capture_output=True, text=True,
                              timeout=30)
        return done.returncode, (done.stderr or done.stdout).strip()
    return runner


def leftovers(name: str) -> list[str]:
    out = subprocess.run(["ip", "-n", name, "-o", "link", "show"], capture_output=True, text=True, check=True).stdout
    return [line.split(": ")[1].split("@")[0] for line in out.splitlines() if PROBE_IFB_PREFIX in line]


def test_without_cap_net_admin_the_capability_is_blamed_not_a_module(netns):
    verdict = probe_shaping(AP, runner=in_netns(netns, prefix=DROP_NET_ADMIN))
    assert (verdict.can_shape, verdict.cause) == (False, "capability")
    assert verdict.reason is not None
    assert verdict.reason.startswith(f"the runner lacks CAP_NET_ADMIN: `ip link add {PROBE_IFB_PREFIX}")
    assert "answered EPERM (RTNETLINK answers: Operation not permitted)" in verdict.reason
    assert "AmbientCapabilities=CAP_NET_ADMIN" in verdict.reason
    assert verdict.capabilities() == {"can_shape": False, "cannot_shape_reason": verdict.reason}
    assert leftovers(netns) == []


def test_with_it_the_probe_shapes_or_names_the_module_the_kernel_lacks(netns):
    verdict = probe_shaping(AP, runner=in_netns(netns))
    assert leftovers(netns) == []
    if verdict.can_shape:
        assert verdict.capabilities() == {"can_shape": True}
        return
    assert verdict.cause == "module", verdict.reason
    module = verdict.reason.split("the kernel lacks ", 1)[1].split(":", 1)[0]
    assert f"`modprobe {module}`" in verdict.reason
    # The kernel does lack it: the same step fails the same way when tried alone.
    step = verdict.reason.split("`", 2)[1]
    assert module in {"ifb", "sch_htb", "sch_netem", "cls_u32", "sch_ingress"}
    assert step.split()[:2] in (["ip", "link"], ["tc", "qdisc"], ["tc", "class"], ["tc", "filter"])


def test_an_ap_interface_that_does_not_exist_is_named(netns):
    verdict = probe_shaping("llab-nowifi0", runner=in_netns(netns))
    assert (verdict.can_shape, verdict.cause) == (False, "interface")
    assert verdict.reason.startswith("link.interface 'llab-nowifi0': Device \"llab-nowifi0\" does not exist.")


def test_a_mac_lab_cannot_shape():
    verdict = probe_shaping("en0", system="Darwin")
    assert (verdict.can_shape, verdict.cause) == (False, "platform")
    assert verdict.reason.startswith("Darwin has no tc/netem: this lab cannot shape its phones")


@pytest.mark.parametrize("answer, cause", [
    ("RTNETLINK answers: Operation not permitted", "capability"),
    ("Error: Specified qdisc kind is unknown.", "module"),
    ("Error: Unknown device type.", "module"),
    ("RTNETLINK answers: No such file or directory", "module"),
    ("RTNETLINK answers: Operation not supported", "module"),
    ("RTNETLINK answers: File exists", "other"),
])
def test_iproute2_s_answers_map_to_their_cause(answer, cause):
    """The answers iproute2 prints for EPERM, ENOENT and EOPNOTSUPP (strerror, or the kernel's
    extack message); the first two are also produced for real above."""
    verdict = judge_answer(["tc", "qdisc", "add", "dev", "llab-p1", "root", "netem"], answer, "sch_netem")
    assert verdict.cause == cause
    assert " ".join(answer.split()) in verdict.reason
