"""Is the reference target's certificate one a phone's system trust store accepts?

Android measures h3 through Cronet, and Chromium's QUIC refuses a certificate that does not
chain to a root of the system store (`ERR_QUIC_CERT_ROOT_NOT_KNOWN`), even where the app's
network security config trusts the lab's private CA. So the lab gives its reference target a
publicly trusted certificate for a DNS name (config `target.cert_file`, `target.key_file`,
`target.server_name`; docs/device-lab.md §4), the runner judges it once at start, and every
device it reports carries the verdict (`capabilities.target_certificate`: `public` or
`private`, with `target_certificate_reason`): the service refuses Android h3 arms against a
private one at submit.

"Public" means: the chain in `cert_file` verifies for `server_name`, now, up to a root of this
host's trust store (the operating system's bundle as OpenSSL finds it, else certifi's
Mozilla bundle) — the public roots phones ship, as near as a host can tell what a phone
trusts. A file that cannot be read, a key that is not the certificate's, or a certificate
that does not name `server_name` is a configuration error naming its field: the lab would
otherwise find out from a phone."""

from __future__ import annotations

import datetime as dt
import ipaddress
import re
import ssl
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Any

# cryptography comes with latencylab-tools (its private CA, tls.py), certifi with httpx.
import certifi
from cryptography import x509
from cryptography.hazmat.primitives import serialization
from cryptography.utils import CryptographyDeprecationWarning
from cryptography.x509.verification import PolicyBuilder, Store, VerificationError

from .targets import ReferenceTarget

PUBLIC, PRIVATE = "public", "private"
_PEM_BLOCK = re.compile(rb"-----BEGIN CERTIFICATE-----.+?-----END CERTIFICATE-----", re.DOTALL)


class CertificateProblem(ValueError):
    """The configured certificate or key cannot serve the reference target; names the field."""


@dataclass(frozen=True)
class TargetCertificate:
    trust: str  # PUBLIC or PRIVATE
    reason: str

    def capabilities(self) -> dict[str, Any]:
        return {"target_certificate": self.trust, "target_certificate_reason": self.reason[:300]}


def default_trust_store() -> Path:
    """The operating system's CA bundle as OpenSSL finds it; else certifi's (macOS Pythons)."""
    paths = ssl.get_default_verify_paths()
    for candidate in (paths.cafile, paths.openssl_cafile):
        if candidate and Path(candidate).is_file():
            return Path(candidate)
    return Path(certifi.where())


def _roots(bundle: Path) -> list[x509.Certificate]:
    """Every certificate of a PEM bundle that parses (a system bundle may hold a few that a
    strict parser refuses; they are skipped, not fatal)."""
    roots = []
    with warnings.catch_warnings():  # a root with a non-positive serial: still a root phones ship
        warnings.simplefilter("ignore", CryptographyDeprecationWarning)
        for block in _PEM_BLOCK.findall(bundle.read_bytes()):
            try:
                roots.append(x509.load_pem_x509_certificate(block))
            except ValueError:
                continue
    return roots


def _read(path: str, field: str) -> bytes:
    try:
        return Path(path).read_bytes()
    except OSError as exc:
        raise CertificateProblem(f"{field}: cannot read {path}: {exc.strerror or exc}") from None


def _subject(name: str) -> x509.DNSName | x509.IPAddress:
    try:
        return x509.IPAddress(ipaddress.ip_address(name))
    except ValueError:
        return x509.DNSName(name)


def _names(cert: x509.Certificate) -> list[str]:
    try:
        san = cert.extensions.get_extension_for_class(x509.SubjectAlternativeName).value
    except x509.ExtensionNotFound:
        return []
    return [*san.get_values_for_type(x509.DNSName), *(str(a) for a in san.get_values_for_type(x509.IPAddress))]


def _matches(pattern: str, name: str) -> bool:
    pattern, name = pattern.lower().rstrip("."), name.lower().rstrip(".")
    if pattern.startswith("*."):
        return "." in name and name.split(".", 1)[1] == pattern[2:]
    return pattern == name


def judge_target_certificate(target: ReferenceTarget, *, trust_store: Path | None = None,
                             now: dt.datetime | None = None) -> TargetCertificate:
    """The verdict on `target`'s certificate; CertificateProblem when the configuration is wrong."""
    if not target.cert_file:
        return TargetCertificate(PRIVATE, "target.cert_file is not set: the reference target serves its own "
                                          "private CA's certificate")
    if not target.key_file:
        raise CertificateProblem("target.key_file: required with target.cert_file (the certificate's private key, "
                                 "which latencylab-target --key-file serves)")
    chain_pem, key_pem = _read(target.cert_file, "target.cert_file"), _read(target.key_file, "target.key_file")
    try:
        chain = x509.load_pem_x509_certificates(chain_pem)
    except ValueError as exc:
        raise CertificateProblem(f"target.cert_file: not a PEM certificate chain ({exc})") from None
    try:
        key = serialization.load_pem_private_key(key_pem, password=None)
    except (ValueError, TypeError) as exc:
        raise CertificateProblem(f"target.key_file: not an unencrypted PEM private key ({exc})") from None
    leaf = chain[0]
    spki = serialization.PublicFormat.SubjectPublicKeyInfo
    if key.public_key().public_bytes(serialization.Encoding.DER, spki) != \
            leaf.public_key().public_bytes(serialization.Encoding.DER, spki):
        raise CertificateProblem(f"target.key_file: not the key of target.cert_file's certificate "
                                 f"({leaf.subject.rfc4514_string()})")
    names = _names(leaf)
    if not any(_matches(n, target.server_name) for n in names):
        raise CertificateProblem(f"target.server_name: {target.server_name!r} is not a name of target.cert_file's "
                                 f"certificate; it names: {', '.join(names) or 'nothing (no subjectAltName)'}")
    store_path = trust_store or default_trust_store()
    roots = _roots(store_path) if store_path is not None and store_path.is_file() else []
    if not roots:
        return TargetCertificate(PRIVATE, "this host has no trust store to check target.cert_file against")
    verifier = (PolicyBuilder().store(Store(roots)).time(now or dt.datetime.now(dt.UTC))
                .build_server_verifier(_subject(target.server_name)))
    try:
        verified = verifier.verify(leaf, chain[1:])
    except VerificationError as exc:
        return TargetCertificate(PRIVATE, f"target.cert_file's certificate for {target.server_name} does not chain "
                                          f"to a root of this host's trust store {store_path}: {exc}")
    return TargetCertificate(PUBLIC, f"target.cert_file's certificate for {target.server_name} chains to "
                                     f"{verified[-1].subject.rfc4514_string()} ({store_path})")
