"""The userspace emulator over real network namespaces (needs root).

Functional checks with generous bounds; precise figures are in
benchmarks/bench_netlab.py.  All traffic stays between the two llab-*
namespaces of each link, on 198.18.0.0/15.
"""
import os
import signal
import subprocess
import sys
import textwrap

import pytest
from conditions import poll_until
from latencylab_tools.netlab import PRESETS, EmulatedLink, LinkProfile, emulation_unavailable, sweep_leftovers
from latencylab_tools.netlab.measure import measure_connect_rtt
from latencylab_tools.netlab.nsutil import NetnsError, list_link_namespaces, netns_exists

pytestmark = [pytest.mark.timing, pytest.mark.skipif(os.geteuid() != 0,
                                reason="netlab link tests need root (network namespaces and TUN devices)")]


def test_rtt_100ms_crosses_the_handshake():
    with EmulatedLink(LinkProfile.symmetric("rtt100", rtt_ms=100), backend="userspace") as link:
        assert netns_exists(link.client_netns)
        assert netns_exists(link.server_netns)
        m = link.measure(rtt_samples=10, loss_packets=0, rate_seconds=0)
    assert m.rtt_ms.n == 10
    assert m.rtt_ms.failures == 0
    assert 95 <= m.rtt_ms.p50 <= 130


def test_loss_profile_drops_packets():
    with EmulatedLink(LinkProfile.symmetric("loss20", loss_pct=20), backend="userspace") as link:
        m = link.measure(rtt_samples=0, loss_packets=1000, rate_seconds=0)
    for direction in ("up", "down"):
        assert 14 <= m.loss_pct(direction) <= 26, m.loss[direction]


def test_rate_limit_caps_throughput():
    p = LinkProfile.symmetric("r2m", rtt_ms=10, rate_down_kbit=2000, rate_up_kbit=1000, queue_packets=20)
    with EmulatedLink(p, backend="userspace") as link:
        m = link.measure(rtt_samples=0, loss_packets=0, rate_seconds=3)
    assert 1500 <= m.goodput_kbit["down"] <= 2050
    assert 700 <= m.goodput_kbit["up"] <= 1030


def test_processes_run_in_namespaces_and_reach_each_other():
    server = textwrap.dedent("""
        import socket, sys
        s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        s.bind((sys.argv[1], 8080)); s.listen(); print("listening", flush=True)
        c, a = s.accept(); c.sendall(("hello " + a[0]).encode()); c.close()
    """)
    client = textwrap.dedent("""
        import socket, sys
        print(socket.create_connection((sys.argv[1], 8080), timeout=5).recv(100).decode())
    """)
    with EmulatedLink(LinkProfile.symmetric("r20", rtt_ms=20), backend="userspace") as link:
        srv = link.spawn_in_server([sys.executable, "-c", server, link.server_addr],
                                   stdout=subprocess.PIPE, text=True)
        assert srv.stdout.readline().strip() == "listening"
        out = link.run_in_client([sys.executable, "-c", client, link.server_addr], timeout=10)
        assert out.stdout.strip() == f"hello {link.client_addr}"
        # The server side has no route anywhere but the client half of the range.
        routes = link.run_in_server(["ip", "route"], timeout=5).stdout
        assert "default" not in routes
        assert "198.18.0.0/16" in routes
        srv.wait(timeout=5)


def test_namespaces_removed_on_exit_and_guard_refuses_after():
    link = EmulatedLink(PRESETS["none"], backend="userspace")
    with link:
        names = link.namespaces
        assert all(netns_exists(n) for n in names)
        pid = link._backend.proc.pid
    assert not any(netns_exists(n) for n in names)
    assert not os.path.exists(f"/proc/{pid}") or open(f"/proc/{pid}/stat").read().split()[2] == "Z"
    # The traffic guard checks the namespace before sending.
    with pytest.raises(NetnsError, match="does not exist"):
        measure_connect_rtt(link.client_netns, link.server_netns, link.client_addr, link.server_addr, 1, 1)
    with pytest.raises(NetnsError, match="outside 198.18.0.0/15"):
        measure_connect_rtt(link.client_netns, link.server_netns, link.client_addr, "127.0.0.1", 1, 1)


def test_sigkill_of_owner_then_sweep_removes_everything():
    owner_code = textwrap.dedent("""
        import signal, sys
        from latencylab_tools.netlab import EmulatedLink, PRESETS
        link = EmulatedLink(PRESETS["lte"], backend="userspace").start()
        link.spawn_in_server(["sleep", "60"])
        print(" ".join(link.namespaces), link._backend.proc.pid, flush=True)
        signal.pause()  # until the test kills it
    """)
    owner = subprocess.Popen([sys.executable, "-c", owner_code], stdout=subprocess.PIPE, text=True)
    try:
        *names, emu_pid = owner.stdout.readline().split()
        assert all(netns_exists(n) for n in names)
    finally:
        owner.send_signal(signal.SIGKILL)
        owner.wait()
    # The emulator notices its owner is gone on its own (pidfd / PDEATHSIG).
    assert poll_until(lambda: not os.path.exists(f"/proc/{emu_pid}"), 5), "the emulator outlived its owner"
    # Namespaces (and the sleeper inside) outlive the crash until a sweep: this one, or the one
    # any other process's new link begins with (make test runs the timing tests in two halves
    # side by side), which is the sweep doing its job too. Either way, afterwards none is left.
    sweep_leftovers()
    assert not any(netns_exists(n) for n in names)
    assert not set(names) & set(list_link_namespaces())


def test_sweep_spares_links_of_live_owners():
    with EmulatedLink(PRESETS["none"], backend="userspace") as link:
        sweep_leftovers()
        assert netns_exists(link.client_netns)
        assert netns_exists(link.server_netns)


def test_blackout_windows_drop_everything_while_active():
    # Half of every second is dark; ~2 s of paced datagrams see about half lost.
    p = LinkProfile.from_dict({"name": "blink", "up": {"rate_kbit": 400}, "down": {"rate_kbit": 400},
                               "blackouts": [{"every_s": 1.0, "duration_s": 0.5}]})
    with EmulatedLink(p, backend="userspace") as link:
        m = link.measure(rtt_samples=0, loss_packets=870, rate_seconds=0, time_budget_s=8)
        stats = link.stats()
    assert 35 <= m.loss_pct("up") <= 65, m.loss["up"]
    assert stats["up"]["dropped_blackout"] > 0
    assert stats["up"]["dropped_loss"] == 0


def test_auto_backend_falls_back_and_netem_request_fails_clearly():
    from latencylab_tools.netlab import netem_available
    if netem_available():
        pytest.skip("this kernel has sch_netem")  # allowed under CI: infra/testing/no_skips_under_ci.py
    assert EmulatedLink(PRESETS["none"]).backend_name == "userspace"
    with pytest.raises(RuntimeError, match="no sch_netem"):
        EmulatedLink(PRESETS["none"], backend="netem")


def test_emulation_available_here_is_tried_and_leaves_no_namespace():
    # What `make up` asks before choosing its demo's network: on this root host with TUN, a
    # link can start; the throwaway namespace it tried with is gone again.
    assert emulation_unavailable() is None
    # Only this process's own names: other links may come and go on a shared host meanwhile.
    assert [n for n in list_link_namespaces() if n.startswith(f"llab-{os.getpid()}-")] == []
