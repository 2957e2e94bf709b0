"""The reference target serving the lab's own certificate (`--cert-file/--key-file`: a chain
for the lab's DNS name from a public CA, which Android's h3 needs) on TLS and on QUIC, over
real sockets: a client that trusts only that chain's root reaches it by the lab's name at
the lab's address, on h1, h2 and h3; its Alt-Svc goes to h3 arms only."""

from __future__ import annotations

import socket
import ssl
import subprocess
import sys

import pytest
from lab_certificates import LAB_NAME, make_lab_chain
from latencylab_tools.probe import ProbeRequest, open_session
from latencylab_tools.probe.types import Origin
from target_process import TOOLS, launch_target


@pytest.fixture(scope="module")
def lab_target(tls_dir, tmp_path_factory):
    chain = make_lab_chain(tmp_path_factory.mktemp("lab-cert"))
    target = launch_target(tls_dir, "--cert-file", str(chain.chain), "--key-file", str(chain.key), "--workers", "1")
    yield target, chain
    target.stop()


@pytest.mark.parametrize("protocol", ["h1", "h2", "h3"])
def test_every_tls_protocol_presents_the_lab_certificate_for_its_name(lab_target, protocol):
    target, chain = lab_target
    origin = Origin("https", "127.0.0.1", target.tls_port, LAB_NAME)
    with open_session(protocol=protocol, connection="warm", origin=origin, ca_file=str(chain.root),
                      timeout_s=10) as session:
        sample = session.fetch(ProbeRequest("GET", "/healthz"))
    assert sample["error_class"] is None, sample["error_detail"]
    assert sample["status"] == 200
    assert sample["alpn"] == {"h1": "http/1.1", "h2": "h2", "h3": "h3"}[protocol]


def test_a_client_of_the_private_ca_no_longer_trusts_it(lab_target):
    target, _ = lab_target
    context = ssl.create_default_context(cafile=str(target.ca_file))
    with socket.create_connection(("127.0.0.1", target.tls_port), 5) as raw, \
            pytest.raises(ssl.SSLCertVerificationError, match="unable to get local issuer certificate"):
        context.wrap_socket(raw, server_hostname=LAB_NAME)


def test_alt_svc_to_the_lab_name_goes_to_h3_arms_only(lab_target):
    target, chain = lab_target
    context = ssl.create_default_context(cafile=str(chain.root))
    heads = {}
    for arm in ("h2", "h3"):
        with socket.create_connection(("127.0.0.1", target.tls_port), 5) as raw, \
                context.wrap_socket(raw, server_hostname=LAB_NAME) as tls:
            tls.sendall(f"GET /healthz HTTP/1.1\r\nHost: {LAB_NAME}\r\nLatencylab-Arm-Protocol: {arm}\r\n"
                        f"Connection: close\r\n\r\n".encode())
            heads[arm] = tls.recv(4096).decode().lower()
    assert "alt-svc" not in heads["h2"]
    assert f'alt-svc: h3=":{target.tls_port}"; ma=86400' in heads["h3"]


def test_cert_file_without_key_file_is_refused_naming_both(tls_dir, tmp_path):
    chain = make_lab_chain(tmp_path)
    done = subprocess.run([sys.executable, "-m", "latencylab_tools.target", "--tls-dir", str(tls_dir.dir),
                           "--cert-file", str(chain.chain)], capture_output=True, text=True, cwd=TOOLS, timeout=60)
    assert done.returncode == 2
    assert "--cert-file and --key-file: give both" in done.stderr
