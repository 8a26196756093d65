"""The App's keys, and the installation tokens this process has issued."""

from __future__ import annotations

import functools
import threading

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa


def make_app_key() -> tuple[str, str]:
    """A fresh RSA key for a GitHub App: (private PEM, public PEM)."""
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    private = key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    ).decode()
    public = (
        key.public_key()
        .public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)
        .decode()
    )
    return private, public


@functools.cache
def default_app_key() -> tuple[str, str]:
    """One key per process, so githubkit's process-wide JWT cache stays valid across stand-ins."""
    return make_app_key()


@functools.cache
def load_public_key(private_pem: str) -> rsa.RSAPublicKey:
    # loading checks the key, which takes a while; stand-ins of one test session share keys
    key = serialization.load_pem_private_key(private_pem.encode(), None).public_key()
    if not isinstance(key, rsa.RSAPublicKey):
        raise ValueError("a GitHub App's key is an RSA key")  # GitHub signs App JWTs with RS256
    return key


# Installation tokens issued in this process: token -> (app_id, installation_id, expiry epoch).
ISSUED_TOKENS: dict[str, tuple[int, int, float]] = {}
ISSUED_LOCK = threading.Lock()
