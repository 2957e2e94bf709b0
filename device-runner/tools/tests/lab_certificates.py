"""A certificate chain as a lab gets one from a public CA (root → intermediate → a leaf for
the lab's DNS name), made here with its own root: tests hand that root to the client or to
the runner's certificate judge as the trust store a phone would have."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

LAB_NAME = "lab-a.latencylab.test"


@dataclass(frozen=True)
class LabChain:
    root: Path  # the "public" root, as a trust store file
    chain: Path  # leaf + intermediate, as ACME clients write fullchain.pem
    key: Path  # the leaf's key, as privkey.pem


def _name(common: str) -> x509.Name:
    return x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, common)])


def _cert(subject: str, key: ec.EllipticCurvePrivateKey, issuer: str, issuer_key: ec.EllipticCurvePrivateKey, *,
          ca: bool, names: tuple[str, ...] = ()) -> x509.Certificate:
    now = dt.datetime.now(dt.UTC) - dt.timedelta(hours=1)
    builder = (x509.CertificateBuilder().subject_name(_name(subject)).issuer_name(_name(issuer))
               .public_key(key.public_key()).serial_number(x509.random_serial_number())
               .not_valid_before(now).not_valid_after(now + dt.timedelta(days=90))
               .add_extension(x509.BasicConstraints(ca=ca, path_length=None), critical=True)
               .add_extension(x509.KeyUsage(digital_signature=True, content_commitment=False, key_encipherment=False,
                                            data_encipherment=False, key_agreement=False, key_cert_sign=ca,
                                            crl_sign=ca, encipher_only=False, decipher_only=False), critical=True)
               .add_extension(x509.SubjectKeyIdentifier.from_public_key(key.public_key()), critical=False))
    if subject != issuer:
        builder = builder.add_extension(x509.AuthorityKeyIdentifier.from_issuer_public_key(issuer_key.public_key()),
                                        critical=False)
    if names:
        builder = (builder.add_extension(x509.SubjectAlternativeName([x509.DNSName(n) for n in names]), critical=False)
                   .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH]), critical=False))
    return builder.sign(issuer_key, hashes.SHA256())


def make_lab_chain(directory: Path, name: str = LAB_NAME) -> LabChain:
    directory.mkdir(parents=True, exist_ok=True)
    root_key, inter_key, leaf_key = (ec.generate_private_key(ec.SECP256R1()) for _ in range(3))
    root = _cert("Test Public Root", root_key, "Test Public Root", root_key, ca=True)
    inter = _cert("Test Public Issuing CA", inter_key, "Test Public Root", root_key, ca=True)
    leaf = _cert(name, leaf_key, "Test Public Issuing CA", inter_key, ca=False, names=(name,))
    pem = serialization.Encoding.PEM
    paths = LabChain(directory / "root.pem", directory / "fullchain.pem", directory / "privkey.pem")
    paths.root.write_bytes(root.public_bytes(pem))
    paths.chain.write_bytes(leaf.public_bytes(pem) + inter.public_bytes(pem))
    paths.key.write_bytes(leaf_key.private_bytes(pem, serialization.PrivateFormat.PKCS8,
                                                 serialization.NoEncryption()))
    return paths
