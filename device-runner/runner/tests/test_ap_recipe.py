"""The lab Wi-Fi recipe (runner/deploy/ap/), run as far as network namespaces allow: the
access point is a namespace whose `wlan0` is one end of a veth pair (a phone's namespace holds
the other end), its uplink another veth to an "internet" namespace. There the recipe's own
files run for real: `latencylab-ap-up` (address, forwarding, the nftables NAT), dnsmasq with
`dnsmasq.conf` (only the lab's addresses are moved into 198.18.0.0/15, and the lease file into
the test's folder), a DHCP exchange from the phone sending what an iPhone sends (its device
name as host name, a private MAC as client id), the lease read back by the runner's
dhcp_leases.py, and the phone's traffic NATed to the uplink. hostapd needs a Wi-Fi device:
its parser reads `hostapd.conf` (every line accepted) and stops at the driver, nl80211,
which finds no Wi-Fi card in a namespace."""

from __future__ import annotations

import os
import re
import secrets
import socket
import struct
import subprocess
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from conditions import poll_until
from device_lab import scenario
from latencylab_tools.netlab.nsutil import NS_PREFIX, in_netns
from latencylab_tools.netlab.shaping_probe import ShapingProbe, probe_shaping
from latencylab_tools.netlab.wifi import WifiInterfaces, WifiShaper

from latencylab_runner.drivers.dhcp_leases import find_lease, lease_address, parse_leases
from latencylab_runner.drivers.job_exchange import JobExchange
from latencylab_runner.drivers.targets import ReferenceTarget

AP_DIR = Path(__file__).resolve().parent.parent / "deploy" / "ap"
PHONE_MAC = "ba:dd:ad:10:00:01"  # a private (locally administered) Wi-Fi address, as iOS uses
DEVICE_NAME = "John's iPhone"
DHCP_HOST_NAME = "Johns-iPhone"  # what an iPhone named so sends in DHCP option 12
AP_ADDRESS, UPLINK_AP, UPLINK_SERVER = "198.18.10.1", "198.19.0.1", "198.19.0.2"


@dataclass
class WifiLab:
    ap: str
    phone: str
    uplink: str
    dir: Path


def sh(*cmd: str, ns: str | None = None, **kwargs) -> subprocess.CompletedProcess[str]:
    argv = ["ip", "netns", "exec", ns, *cmd] if ns else list(cmd)
    return subprocess.run(argv, capture_output=True, text=True, check=True, timeout=60, **kwargs)


@pytest.fixture
def wifi(tmp_path: Path) -> Iterator[WifiLab]:
    tag = f"{NS_PREFIX}{os.getpid()}-{secrets.token_hex(2)}"
    spaces = WifiLab(f"{tag}-ap", f"{tag}-phone", f"{tag}-uplink", tmp_path)
    made = []
    try:
        for ns in (spaces.ap, spaces.phone, spaces.uplink):
            sh("ip", "netns", "add", ns)
            made.append(ns)
        # The Wi-Fi: the AP's wlan0 and the phone's wlan0, a veth pair.
        sh("ip", "-n", spaces.ap, "link", "add", "wlan0", "type", "veth", "peer", "name", "wlan0", "netns",
           spaces.phone)
        sh("ip", "-n", spaces.phone, "link", "set", "wlan0", "address", PHONE_MAC)
        sh("ip", "-n", spaces.phone, "link", "set", "wlan0", "up")
        # The uplink: the AP host's eth0 to an "internet" host that has no route back to the phones.
        sh("ip", "-n", spaces.ap, "link", "add", "eth0", "type", "veth", "peer", "name", "eth0", "netns",
           spaces.uplink)
        sh("ip", "-n", spaces.ap, "addr", "add", f"{UPLINK_AP}/24", "dev", "eth0")
        sh("ip", "-n", spaces.ap, "link", "set", "eth0", "up")
        sh("ip", "-n", spaces.uplink, "addr", "add", f"{UPLINK_SERVER}/24", "dev", "eth0")
        sh("ip", "-n", spaces.uplink, "link", "set", "eth0", "up")
        yield spaces
    finally:
        for ns in made:
            subprocess.run(["ip", "netns", "del", ns], check=False)


def recipe_dnsmasq_conf(wifi: WifiLab) -> tuple[Path, Path]:
    """dnsmasq.conf as shipped, with the lab's 192.168.10.0/24 moved into 198.18.10.0/24 and
    the lease file into the test's folder: every other line is the recipe's own."""
    leases = wifi.dir / "dnsmasq.leases"
    text = (AP_DIR / "dnsmasq.conf").read_text()
    assert "dhcp-leasefile=/var/lib/misc/dnsmasq.leases\n" in text
    moved = text.replace("192.168.10.", "198.18.10.").replace(
        "dhcp-leasefile=/var/lib/misc/dnsmasq.leases", f"dhcp-leasefile={leases}")
    assert "192.168." not in moved
    conf = wifi.dir / "dnsmasq.conf"
    conf.write_text(moved)
    return conf, leases


# -- a DHCP client as an iPhone speaks it (RFC 2131/2132) -------------------------------------
def _packet(kind: int, xid: int, mac: bytes, options: list[tuple[int, bytes]]) -> bytes:
    # op, htype, hlen, hops, xid, secs, flags (broadcast: the client has no address yet),
    # ciaddr, yiaddr, siaddr, giaddr, chaddr, sname, file; then the magic cookie and options.
    head = struct.pack("!BBBBIHHIIII16s64s128s", 1, 1, 6, 0, xid, 0, 0x8000, 0, 0, 0, 0, mac, b"", b"")
    body = b"".join(bytes([code, len(value)]) + value for code, value in [(53, bytes([kind])), *options])
    return head + b"\x63\x82\x53\x63" + body + b"\xff"


def _options(reply: bytes) -> dict[int, bytes]:
    out, i = {}, 240
    while i < len(reply) and reply[i] != 0xFF:
        if reply[i] == 0:
            i += 1
            continue
        out[reply[i]] = reply[i + 2:i + 2 + reply[i + 1]]
        i += 2 + reply[i + 1]
    return out


def _answer(sock: socket.socket, xid: int, kind: int) -> tuple[str, dict[int, bytes]]:
    while True:
        data = sock.recv(2048)
        if len(data) > 240 and struct.unpack("!I", data[4:8])[0] == xid and _options(data).get(53) == bytes([kind]):
            return socket.inet_ntoa(data[16:20]), _options(data)


def dhcp_lease(netns: str, mac: str, hostname: str) -> tuple[str, dict[int, bytes]]:
    """DISCOVER → OFFER → REQUEST → ACK from the phone's namespace; the address and the ACK's options."""
    raw_mac = bytes.fromhex(mac.replace(":", ""))
    common = [(61, b"\x01" + raw_mac), (12, hostname.encode()), (55, bytes([1, 3, 6]))]
    xid = secrets.randbits(32)
    with in_netns(netns):
        sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    with sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_BROADCAST, 1)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_BINDTODEVICE, b"wlan0")
        sock.bind(("0.0.0.0", 68))
        sock.settimeout(20)  # a server that never answers fails the test, not hangs it
        sock.sendto(_packet(1, xid, raw_mac, common), ("255.255.255.255", 67))
        offered, offer = _answer(sock, xid, 2)
        sock.sendto(_packet(3, xid, raw_mac, [(50, socket.inet_aton(offered)), (54, offer[54]), *common]),
                    ("255.255.255.255", 67))
        return _answer(sock, xid, 5)


@pytest.fixture
def dnsmasq(wifi: WifiLab) -> Iterator[Path]:
    conf, leases = recipe_dnsmasq_conf(wifi)
    proc = subprocess.Popen(["ip", "netns", "exec", wifi.ap, "dnsmasq", f"--conf-file={conf}", "--keep-in-foreground",
                             "--log-facility=-", "--user=root", f"--pid-file={wifi.dir / 'dnsmasq.pid'}"],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        assert proc.stdout is not None
        for line in proc.stdout:  # ready once it says which range it serves
            if "DHCP, IP range 198.18.10.50 -- 198.18.10.250" in line:
                break
        else:
            pytest.fail(f"dnsmasq stopped before serving DHCP (exit {proc.wait()})")
        threading.Thread(target=proc.stdout.read, daemon=True).start()  # keep its log pipe drained
        yield leases
    finally:
        proc.terminate()
        proc.wait(10)


def test_the_recipe_gives_the_phone_a_lease_the_runner_finds_and_nats_its_traffic(wifi, dnsmasq):
    sh(str(AP_DIR / "latencylab-ap-up"), ns=wifi.ap,
       env={**os.environ, "AP_IF": "wlan0", "AP_ADDRESS": f"{AP_ADDRESS}/24"})
    assert f"inet {AP_ADDRESS}/24" in sh("ip", "-o", "addr", "show", "dev", "wlan0", ns=wifi.ap).stdout
    assert sh("sysctl", "-n", "net.ipv4.ip_forward", ns=wifi.ap).stdout.strip() == "1"

    address, ack = dhcp_lease(wifi.phone, PHONE_MAC, DHCP_HOST_NAME)
    assert address.startswith("198.18.10.")
    assert socket.inet_ntoa(ack[3]) == AP_ADDRESS  # the AP is the phone's router …
    assert socket.inet_ntoa(ack[6]) == AP_ADDRESS  # … and its DNS server

    # The lease file as dnsmasq wrote it, read as the runner reads it.
    assert poll_until(lambda: PHONE_MAC in (dnsmasq.read_text() if dnsmasq.exists() else ""), 20), \
        "dnsmasq wrote no lease"
    (lease,) = parse_leases(dnsmasq.read_text())
    assert (lease.mac, lease.address, lease.hostname) == (PHONE_MAC, address, DHCP_HOST_NAME)
    assert lease.client_id == f"01:{PHONE_MAC}"
    assert lease_address(dnsmasq, device_name=DEVICE_NAME) == address  # private address on: by its name
    assert lease_address(dnsmasq, mac="f0:18:98:00:00:01", device_name=DEVICE_NAME) == address
    assert find_lease([lease], mac="f0:18:98:00:00:01", device_name="Other iPhone") is None

    # The phone on its address reaches the uplink, which sees the AP's uplink address (NAT).
    sh("ip", "addr", "add", f"{address}/24", "dev", "wlan0", ns=wifi.phone)
    sh("ip", "route", "add", "default", "via", AP_ADDRESS, ns=wifi.phone)
    with in_netns(wifi.uplink):
        server = socket.create_server((UPLINK_SERVER, 0))
    with server:
        with in_netns(wifi.phone):
            client = socket.create_connection((UPLINK_SERVER, server.getsockname()[1]), timeout=10)
        with client:
            server.settimeout(10)
            conn, peer = server.accept()
            conn.close()
    assert peer[0] == UPLINK_AP
    rules = sh("nft", "list", "table", "ip", "latencylab_ap", ns=wifi.ap).stdout
    assert re.search(r'ip saddr 198\.18\.10\.0/24 oifname != "wlan0" masquerade', rules), rules


def test_an_unknown_phone_is_not_found_and_the_error_says_what_was_looked_for(tmp_path):
    leases = tmp_path / "dnsmasq.leases"
    leases.write_text(f"1764500000 {PHONE_MAC} 198.18.10.77 {DHCP_HOST_NAME} 01:{PHONE_MAC}\n"
                      "duid 00:01:00:01:2c:aa:bb:cc:dd:ee:ff:00:11:22\n")
    with pytest.raises(RuntimeError, match=r"no DHCP lease in .* for MAC f0:18:98:00:00:01 or host name "
                                           r"Other iPhone: is the phone on the lab Wi-Fi"):
        lease_address(leases, mac="f0:18:98:00:00:01", device_name="Other iPhone")


def test_a_phone_that_rejoined_is_found_at_its_newest_lease():
    text = (f"1764500000 {PHONE_MAC} 198.18.10.60 {DHCP_HOST_NAME} *\n"
            f"1764503600 ba:dd:ad:10:00:99 198.18.10.61 {DHCP_HOST_NAME} *\n"
            "1764500000 00:11:22:33:44:55 198.18.10.62 * *\n")
    leases = parse_leases(text)
    assert find_lease(leases, device_name=DEVICE_NAME).address == "198.18.10.61"
    assert find_lease(leases, mac="00:11:22:33:44:55").hostname is None


def test_an_iphone_with_a_private_wifi_address_is_addressed_by_its_lease(lab, tmp_path):
    """The ios driver with `link.leases`: the lease of the iPhone's device name, although the
    MAC that ideviceinfo reports (the hardware one) is not the one it joined with."""
    udid = "00008130-001A2C3E0E38001C"
    lab.set(ios=[scenario.ios_device(udid, device_name=DEVICE_NAME)])
    leases = tmp_path / "dnsmasq.leases"
    leases.write_text(f"1764500000 {PHONE_MAC} 198.18.10.77 {DHCP_HOST_NAME} 01:{PHONE_MAC}\n")
    shaper = WifiShaper(WifiInterfaces("wlan0"), probe=lambda _ap: ShapingProbe(True))
    reference = ReferenceTarget("198.18.10.1", 8080, 8443, "localhost", None)
    driver = lab.ios_driver(reference, JobExchange(), shaper=shaper, leases_file=leases)
    assert driver.device_address(udid) == "198.18.10.77"
    leases.write_text("")
    with pytest.raises(RuntimeError, match="no DHCP lease in .* for MAC a4:83:e7:12:34:56 or host name John's "
                                           "iPhone"):
        driver.device_address(udid)


def _unit_capabilities(key: str) -> list[str]:
    unit = (AP_DIR.parent / "latencylab-runner.service").read_text()
    (line,) = [line for line in unit.splitlines() if line.startswith(f"{key}=")]
    return [cap.removeprefix("CAP_").lower() for cap in line.split("=", 1)[1].split()]


def test_the_runner_unit_s_capabilities_let_an_unprivileged_agent_shape(wifi):
    """The shaping probe as the systemd unit runs the agent: a user that is not root, with the
    unit's AmbientCapabilities and CapabilityBoundingSet (setpriv applies them as systemd does),
    in the AP's namespace. The capability is then never the cause; without it, it is."""
    ambient = ",".join(["-all", *(f"+{cap}" for cap in _unit_capabilities("AmbientCapabilities"))])
    bounding = ",".join(["-all", *(f"+{cap}" for cap in _unit_capabilities("CapabilityBoundingSet"))])
    assert ambient == "-all,+net_admin"
    as_user = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"]

    def runner(prefix: list[str]):
        def run(cmd):
            done = subprocess.run(["ip", "netns", "exec", wifi.ap, *prefix, "--", *cmd], capture_output=True,
                                  text=True, timeout=30)
            return done.returncode, (done.stderr or done.stdout).strip()
        return run

    with_unit = probe_shaping("wlan0", runner=runner([*as_user, f"--inh-caps={ambient}", f"--ambient-caps={ambient}",
                                                      f"--bounding-set={bounding}"]))
    assert with_unit.can_shape or with_unit.cause == "module", with_unit.reason
    without = probe_shaping("wlan0", runner=runner(as_user))
    assert without.cause == "capability", without.reason


def test_hostapd_reads_the_recipe_and_stops_only_at_the_missing_wifi_device(wifi):
    conf = wifi.dir / "hostapd.conf"
    conf.write_text((AP_DIR / "hostapd.conf").read_text().replace("ctrl_interface=/run/hostapd",
                                                                  f"ctrl_interface={wifi.dir / 'hostapd'}"))
    done = subprocess.run(["ip", "netns", "exec", wifi.ap, "hostapd", "-d", str(conf)], capture_output=True, text=True,
                          timeout=60)
    out = done.stdout + done.stderr
    assert done.returncode != 0
    assert "errors found in configuration file" not in out, out
    assert not re.search(r"^Line \d+:", out, re.MULTILINE), out
    assert "nl80211" in out, out  # it went on to the driver, which needs a Wi-Fi card
