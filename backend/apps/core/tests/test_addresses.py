"""The address policy every customer-directed fetch goes through (SSRF): the shared test
vectors the runner's copy is held to as well, one lookup per check, and the address a
caller must then connect to. Names are answered by a fake resolver: no test sends a packet
to the addresses it checks."""

import json
import socket

import pytest
from latencylab_contract import contract_dir

from apps.core import addresses

VECTORS = json.loads((contract_dir() / "target-policy-vectors.json").read_text())


class FakeResolver:
    def __init__(self, table: dict[str, list[str]]):
        self.table = table
        self.lookups: list[str] = []

    def __call__(self, host: str, port: int) -> list[str]:
        self.lookups.append(host)
        if host not in self.table:
            raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")
        return self.table[host]


@pytest.fixture
def resolver(monkeypatch):
    fake = FakeResolver({})
    monkeypatch.setattr(addresses, "resolve", fake)
    return fake


@pytest.mark.parametrize("case", VECTORS["cases"], ids=[c["host"] for c in VECTORS["cases"]])
def test_shared_vectors(case, resolver):
    if case["resolves_to"] is not None:
        resolver.table[case["host"]] = case["resolves_to"]
    if case["refused"] is None:
        assert addresses.check_host(case["host"], 443).address == (case["resolves_to"] or [case["host"].strip("[]")])[0]
    else:
        with pytest.raises(addresses.BlockedAddress) as refused:
            addresses.check_host(case["host"], 443)
        assert case["refused"] in str(refused.value)
    if case["resolves_to"] is None:
        assert resolver.lookups == [], "an address literal is never looked up"


def test_decimal_octal_and_hex_hosts_are_read_as_a_client_reads_them():
    for host in ("2130706433", "0177.0.0.1", "0x7f.0.0.1", "0x7f000001", "127.1"):
        assert str(addresses.literal_address(host)) == "127.0.0.1", host
    assert addresses.literal_address("[::ffff:7f00:1]") is not None
    for name in ("api.example.com", "0x", "1.2.3.4.5", "08.0.0.1", "deadbeef"):
        assert addresses.literal_address(name) is None, name


def test_one_lookup_per_check_and_every_answer_must_pass(resolver):
    resolver.table["api.example.test"] = ["93.184.216.34", "2606:4700::1111"]
    assert addresses.check_host("api.example.test", 443).address == "93.184.216.34"
    assert resolver.lookups == ["api.example.test"]
    resolver.table["split.example.test"] = ["93.184.216.34", "10.1.2.3"]
    with pytest.raises(addresses.BlockedAddress, match="resolves to 10.1.2.3, a private address"):
        addresses.check_host("split.example.test", 443)


def test_a_name_that_does_not_resolve_is_an_os_error_not_a_pass(resolver):
    with pytest.raises(OSError, match="cannot resolve nowhere.example.test"):
        addresses.check_host("nowhere.example.test", 443)


def test_loopback_may_be_allowed_for_development_receivers_and_nothing_else(resolver):
    resolver.table["localhost"] = ["127.0.0.1", "::1"]
    assert addresses.check_host("localhost", 80, allow_loopback=True).address == "127.0.0.1"
    assert addresses.check_host("[::ffff:127.0.0.1]", 80, allow_loopback=True)
    with pytest.raises(addresses.BlockedAddress, match="private"):
        addresses.check_host("10.0.0.1", 80, allow_loopback=True)
    with pytest.raises(addresses.BlockedAddress, match="metadata"):
        addresses.check_host("169.254.169.254", 80, allow_loopback=True)
