"""What the runner reports its lab can do, with every device (agent/lab_capabilities.py):
whether the reference target's certificate is publicly trusted (Android's h3 needs it:
drivers/target_certificate.py) and whether its devices can be shaped. The certificate is
judged against a trust store as a phone's would be — here the root of a chain made for the
test stands for a public root; the host's own store does not know it."""

from __future__ import annotations

import datetime as dt

import pytest
from device_lab import scenario
from lab_certificates import LAB_NAME, make_lab_chain

from latencylab_runner.agent.agent import Agent
from latencylab_runner.agent.client import RunnerClient
from latencylab_runner.agent.config import ConfigError, parse_config
from latencylab_runner.agent.lab_capabilities import lab_capabilities
from latencylab_runner.drivers.target_certificate import (
    CertificateProblem,
    default_trust_store,
    judge_target_certificate,
)
from latencylab_runner.drivers.targets import ReferenceTarget

CREDENTIALS = {"server": "https://latencylab.example.com", "runner_token": "llr_x", "name": "lab-a"}


def lab_target(chain, name: str = LAB_NAME, key=None) -> ReferenceTarget:
    return ReferenceTarget("192.168.10.1", 8080, 8443, name, None, str(chain.chain), str(key or chain.key))


@pytest.fixture
def chain(tmp_path):
    return make_lab_chain(tmp_path / "lab")


def test_a_chain_to_a_root_of_the_trust_store_is_public(chain):
    verdict = judge_target_certificate(lab_target(chain), trust_store=chain.root)
    assert verdict.trust == "public"
    assert verdict.reason == (f"target.cert_file's certificate for {LAB_NAME} chains to CN=Test Public Root "
                              f"({chain.root})")
    assert verdict.capabilities() == {"target_certificate": "public", "target_certificate_reason": verdict.reason}


def test_a_chain_the_trust_store_does_not_know_is_private_and_says_why(chain):
    verdict = judge_target_certificate(lab_target(chain), trust_store=default_trust_store())
    assert verdict.trust == "private"
    assert verdict.reason.startswith(f"target.cert_file's certificate for {LAB_NAME} does not chain to a root of "
                                     f"this host's trust store {default_trust_store()}: ")


def test_an_expired_chain_is_private(chain):
    later = dt.datetime.now(dt.UTC) + dt.timedelta(days=365)
    assert judge_target_certificate(lab_target(chain), trust_store=chain.root, now=later).trust == "private"


def test_without_a_certificate_the_private_ca_is_reported():
    verdict = judge_target_certificate(ReferenceTarget("192.168.10.1", 8080, 8443, "localhost", "/etc/ca.pem"))
    assert (verdict.trust, verdict.reason) == ("private", "target.cert_file is not set: the reference target serves "
                                                          "its own private CA's certificate")


def test_a_wrong_key_or_name_is_a_configuration_error_naming_the_field(chain, tmp_path):
    other = make_lab_chain(tmp_path / "other")
    with pytest.raises(CertificateProblem, match=r"^target\.key_file: not the key of target\.cert_file's "
                                                 r"certificate \(CN=lab-a\.latencylab\.test\)$"):
        judge_target_certificate(lab_target(chain, key=other.key), trust_store=chain.root)
    with pytest.raises(CertificateProblem, match=r"^target\.server_name: '192\.168\.10\.1' is not a name of "
                                                 r"target\.cert_file's certificate; it names: "
                                                 r"lab-a\.latencylab\.test$"):
        judge_target_certificate(lab_target(chain, name="192.168.10.1"), trust_store=chain.root)
    with pytest.raises(CertificateProblem, match=r"^target\.cert_file: cannot read /nonexistent/fullchain\.pem: "):
        judge_target_certificate(ReferenceTarget("h", 1, 2, LAB_NAME, None, "/nonexistent/fullchain.pem", "/k"))


def test_the_config_takes_both_files_or_neither(chain):
    config = parse_config({**CREDENTIALS, "target": {"host": "192.168.10.1", "server_name": LAB_NAME,
                                                     "cert_file": str(chain.chain), "key_file": str(chain.key)}})
    assert (config.target.cert_file, config.target.key_file) == (str(chain.chain), str(chain.key))
    with pytest.raises(ConfigError, match=r"^target\.cert_file, target\.key_file: give both"):
        parse_config({**CREDENTIALS, "target": {"cert_file": str(chain.chain)}})


def test_every_driver_s_devices_carry_the_certificate_and_the_shaping_verdict(chain):
    config = parse_config({**CREDENTIALS, "drivers": ["android", "ios"],
                           "target": {"host": "192.168.10.1", "server_name": LAB_NAME, "cert_file": str(chain.chain),
                                      "key_file": str(chain.key)},
                           "link": {"mode": "ap-netem", "interface": "llab-nowifi0"}})
    capabilities = lab_capabilities(config)
    assert set(capabilities) == {"android", "ios"}
    android = capabilities["android"]
    assert android["can_shape"] is False
    assert android["cannot_shape_reason"].startswith("link.interface 'llab-nowifi0': ")
    assert android["target_certificate"] == "private"  # the host's store does not know the test's root
    assert capabilities["ios"] == android


def test_a_config_whose_key_does_not_fit_stops_the_agent_before_it_says_hello(chain, tmp_path):
    other = make_lab_chain(tmp_path / "other")
    config = parse_config({**CREDENTIALS, "drivers": ["android"],
                           "target": {"server_name": LAB_NAME, "cert_file": str(chain.chain),
                                      "key_file": str(other.key)}})
    with pytest.raises(CertificateProblem, match="^target.key_file: "):
        lab_capabilities(config)


def test_hello_and_heartbeat_carry_the_lab_s_capabilities_with_each_device(lab, backend, target_server):
    lab.set(android=[scenario.android_device("R5CT1234")])
    reference = ReferenceTarget("127.0.0.1", target_server.plain_port, target_server.tls_port, "localhost",
                                str(target_server.ca_file))
    client = RunnerClient(backend.url, backend.runner_token, retry_budget_s=0)
    mac_lab = {"can_shape": False, "cannot_shape_reason": "Darwin has no tc/netem",
               "target_certificate": "private", "target_certificate_reason": "target.cert_file is not set"}
    agent = Agent(client, name="mac-mini-3", drivers=[lab.android_driver(reference)], heartbeat_interval_s=600,
                  lab_capabilities={"android": mac_lab})
    try:
        assert agent.run_forever(idle_exit_s=0.5) == 0
        (device,) = backend.hellos[0]["devices"]
        assert device["capabilities"]["can_shape"] is False
        assert device["capabilities"]["target_certificate"] == "private"
        assert device["capabilities"]["protocols"] == ["h1c", "h1", "h2", "h3", "grpc"]  # the driver's own stay
    finally:
        client.close()
