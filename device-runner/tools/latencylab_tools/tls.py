"""Private CA + server certificate for the reference target server.

The target must serve TLS on every protocol (docs/methodology.md §4: same path for every arm), so
each runner generates its own CA once and keeps it under var/ (gitignored). Clients
verify against ca.pem; verification is never turned off.
"""

from __future__ import annotations

import datetime as dt
import ipaddress
import os
from dataclasses import dataclass
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

# Loopback plus the two /28-ish ranges the link emulator uses for namespaced targets.
SERVER_DNS_NAMES = ("localhost", "target.latencylab.test")
SERVER_IPS = (
    ["127.0.0.1", "::1"]
    + [f"198.18.0.{i}" for i in range(1, 16)]
    + [f"198.19.0.{i}" for i in range(1, 16)]
)
CA_VALIDITY = dt.timedelta(days=3650)
SERVER_VALIDITY = dt.timedelta(days=825)


@dataclass(frozen=True)
class TlsPaths:
    dir: Path
    ca_cert: Path
    ca_key: Path
    server_cert: Path
    server_key: Path


def tls_paths(directory: Path) -> TlsPaths:
    directory = Path(directory)
    return TlsPaths(
        dir=directory,
        ca_cert=directory / "ca.pem",
        ca_key=directory / "ca.key",
        server_cert=directory / "server.pem",
        server_key=directory / "server.key",
    )


def ensure_tls(directory: Path) -> TlsPaths:
    """Create the CA and server certificate once; reuse existing files afterwards."""
    paths = tls_paths(directory)
    paths.dir.mkdir(parents=True, exist_ok=True)
    if not (paths.ca_cert.exists() and paths.ca_key.exists()):
        _write_ca(paths)
        # A new CA invalidates any old server certificate.
        paths.server_cert.unlink(missing_ok=True)
    if not (paths.server_cert.exists() and paths.server_key.exists()):
        _write_server(paths)
    return paths


def _now() -> dt.datetime:
    # Back-date a little so a slightly skewed device clock still accepts the cert.
    return dt.datetime.now(dt.UTC) - dt.timedelta(hours=1)


def _write_key(path: Path, key: ec.EllipticCurvePrivateKey) -> None:
    data = key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    )
    # Create with 0600 from the start so the key is never world-readable, even briefly.
    tmp = path.with_suffix(path.suffix + ".tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "wb") as f:
        f.write(data)
    os.chmod(tmp, 0o600)
    os.replace(tmp, path)


def _write_cert(path: Path, cert: x509.Certificate) -> None:
    tmp = path.with_suffix(path.suffix + ".tmp")
    tmp.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    os.replace(tmp, path)


def _write_ca(paths: TlsPaths) -> None:
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name(
        [
            x509.NameAttribute(NameOID.ORGANIZATION_NAME, "LatencyLab"),
            x509.NameAttribute(NameOID.COMMON_NAME, "LatencyLab private target CA"),
        ]
    )
    start = _now()
    cert = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(start)
        .not_valid_after(start + CA_VALIDITY)
        .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
        .add_extension(
            x509.KeyUsage(
                digital_signature=True,
                content_commitment=False,
                key_encipherment=False,
                data_encipherment=False,
                key_agreement=False,
                key_cert_sign=True,
                crl_sign=True,
                encipher_only=False,
                decipher_only=False,
            ),
            critical=True,
        )
        .add_extension(x509.SubjectKeyIdentifier.from_public_key(key.public_key()), critical=False)
        .sign(key, hashes.SHA256())
    )
    _write_key(paths.ca_key, key)
    _write_cert(paths.ca_cert, cert)


def _load_ca(paths: TlsPaths) -> tuple[x509.Certificate, ec.EllipticCurvePrivateKey]:
    cert = x509.load_pem_x509_certificate(paths.ca_cert.read_bytes())
    key = serialization.load_pem_private_key(paths.ca_key.read_bytes(), password=None)
    if not isinstance(key, ec.EllipticCurvePrivateKey):
        raise RuntimeError(f"key is {type(key).__name__}, not ec.EllipticCurvePrivateKey")
    return cert, key


def _write_server(paths: TlsPaths) -> None:
    ca_cert, ca_key = _load_ca(paths)
    key = ec.generate_private_key(ec.SECP256R1())
    sans: list[x509.GeneralName] = [x509.DNSName(n) for n in SERVER_DNS_NAMES]
    sans += [x509.IPAddress(ipaddress.ip_address(ip)) for ip in SERVER_IPS]
    start = _now()
    cert = (
        x509.CertificateBuilder()
        .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "localhost")]))
        .issuer_name(ca_cert.subject)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(start)
        .not_valid_after(start + SERVER_VALIDITY)
        .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
        .add_extension(x509.SubjectAlternativeName(sans), critical=False)
        .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH]), critical=False)
        .add_extension(
            x509.KeyUsage(
                digital_signature=True,
                content_commitment=False,
                key_encipherment=False,
                data_encipherment=False,
                key_agreement=False,
                key_cert_sign=False,
                crl_sign=False,
                encipher_only=False,
                decipher_only=False,
            ),
            critical=True,
        )
        .add_extension(
            x509.AuthorityKeyIdentifier.from_issuer_public_key(ca_key.public_key()), critical=False
        )
        .add_extension(x509.SubjectKeyIdentifier.from_public_key(key.public_key()), critical=False)
        .sign(ca_key, hashes.SHA256())
    )
    _write_key(paths.server_key, key)
    _write_cert(paths.server_cert, cert)
