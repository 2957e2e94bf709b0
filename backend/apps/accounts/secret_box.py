"""Encryption at rest for organization secrets: AES-256-GCM (an AEAD), keyed from the
LATENCYLAB_SECRETS_KEY setting.

The setting is a comma-separated list of `key_id:key` pairs, each key 32 random bytes in
URL-safe base64 (`python -c "import secrets, base64;
print(base64.urlsafe_b64encode(secrets.token_bytes(32)).decode())"`).
The first pair encrypts; every pair decrypts, so a key rotates by putting a new pair in
front, running `manage.py reencrypt_secrets`, then dropping the old pair. Each stored value
records the id of the key that sealed it.

Without the setting (`make up`, tests) one key is derived from Django's SECRET_KEY under the
id `dev`; the production settings module refuses to start without the setting.

The associated data binds a ciphertext to its organization and name, so a row copied to
another organization or name does not decrypt."""

from __future__ import annotations

import base64
import binascii
import os
import re
from dataclasses import dataclass
from functools import cache

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from cryptography.hazmat.primitives.kdf.hkdf import HKDF
from django.conf import settings

KEY_ID = re.compile(r"^[A-Za-z0-9_-]{1,32}$")
DEV_KEY_ID = "dev"
NONCE_BYTES = 12


class SecretsKeyError(Exception):
    """LATENCYLAB_SECRETS_KEY is malformed, or a value was sealed under a key no longer configured."""


@dataclass(frozen=True)
class Keyring:
    current: str
    keys: dict[str, bytes]


def parse_keyring(raw: str) -> Keyring:
    """`id:base64key[,id:base64key…]` → the keyring; the first id encrypts."""
    keys: dict[str, bytes] = {}
    order: list[str] = []
    for part in (p.strip() for p in raw.split(",") if p.strip()):
        key_id, sep, encoded = part.partition(":")
        if not sep or not KEY_ID.match(key_id):
            raise SecretsKeyError("LATENCYLAB_SECRETS_KEY: each entry is key_id:base64key, key_id 1–32 of "
                                  "A-Z a-z 0-9 _ -")
        try:
            key = base64.b64decode(encoded + "=" * (-len(encoded) % 4), altchars=b"-_", validate=True)
        except (binascii.Error, ValueError):
            raise SecretsKeyError(f"LATENCYLAB_SECRETS_KEY: key {key_id!r} is not base64") from None
        if len(key) != 32:
            raise SecretsKeyError(f"LATENCYLAB_SECRETS_KEY: key {key_id!r} must be 32 bytes; got {len(key)}")
        if key_id in keys:
            raise SecretsKeyError(f"LATENCYLAB_SECRETS_KEY: key id {key_id!r} repeats")
        keys[key_id] = key
        order.append(key_id)
    if not order:
        raise SecretsKeyError("LATENCYLAB_SECRETS_KEY is empty")
    return Keyring(current=order[0], keys=keys)


def dev_keyring(secret_key: str) -> Keyring:
    """For `make up` and tests only: a key derived from Django's SECRET_KEY."""
    derived = HKDF(algorithm=hashes.SHA256(), length=32, salt=None,
                   info=b"latencylab organization secrets v1").derive(secret_key.encode())
    return Keyring(current=DEV_KEY_ID, keys={DEV_KEY_ID: derived})


@cache
def _keyring(raw: str, secret_key: str) -> Keyring:
    return parse_keyring(raw) if raw else dev_keyring(secret_key)


def keyring() -> Keyring:
    return _keyring(settings.LATENCYLAB_SECRETS_KEY, settings.SECRET_KEY)


def _aad(organization_id: object, name: str) -> bytes:
    return f"latencylab-secret:{organization_id}:{name}".encode()


def seal(value: str, *, organization_id: object, name: str) -> tuple[str, bytes]:
    """(key id, nonce ‖ ciphertext ‖ tag) of `value` under the current key."""
    ring = keyring()
    nonce = os.urandom(NONCE_BYTES)
    sealed = AESGCM(ring.keys[ring.current]).encrypt(nonce, value.encode(), _aad(organization_id, name))
    return ring.current, nonce + sealed


def open_sealed(key_id: str, blob: bytes | memoryview, *, organization_id: object, name: str) -> str:
    key = keyring().keys.get(key_id)
    if key is None:
        raise SecretsKeyError(f"secret {name!r} was sealed under key {key_id!r}, which LATENCYLAB_SECRETS_KEY "
                              f"no longer lists")
    data = bytes(blob)
    try:
        plain = AESGCM(key).decrypt(data[:NONCE_BYTES], data[NONCE_BYTES:], _aad(organization_id, name))
    except InvalidTag:
        raise SecretsKeyError(f"secret {name!r} does not decrypt under key {key_id!r} (altered or moved)") from None
    return plain.decode()
