"""Secrets are shown once and stored as SHA-256 digests with a short visible prefix."""

import hashlib
import secrets


def new_secret(kind: str) -> str:
    # 32 random bytes: 256 bits, well above the 128-bit floor for bearer secrets.
    return f"ll{kind}_{secrets.token_urlsafe(32)}"


def digest(secret: str) -> str:
    return hashlib.sha256(secret.encode()).hexdigest()


def visible_prefix(secret: str) -> str:
    return secret[:12]
