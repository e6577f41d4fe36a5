"""The run's signing keys: made once per run (per process), published as a JWKS, never written anywhere.

RS256 with a 2048-bit RSA key: what most identity providers sign access tokens with, so a
verifier configured for production accepts the fake's tokens unchanged. Making the key
costs about 60 ms, once per run; signing a token about 0.7 ms.
"""

from __future__ import annotations

import functools
import secrets
from dataclasses import dataclass
from typing import Any

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from jwt.algorithms import RSAAlgorithm

__all__ = ["ALGORITHM", "SigningKey", "run_key", "stranger_key"]

ALGORITHM = "RS256"


@dataclass(frozen=True)
class SigningKey:
    """A private key, its key id, and its public half as a JWK and as PEM (what an attacker can read)."""

    kid: str
    private: rsa.RSAPrivateKey

    @functools.cached_property
    def jwk(self) -> dict[str, Any]:
        public: dict[str, Any] = RSAAlgorithm.to_jwk(self.private.public_key(), as_dict=True)
        return {**public, "kid": self.kid, "use": "sig", "alg": ALGORITHM}

    @functools.cached_property
    def public_pem(self) -> bytes:
        return self.private.public_key().public_bytes(
            serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
        )


def _new_key(kid: str) -> SigningKey:
    return SigningKey(kid, rsa.generate_private_key(public_exponent=65537, key_size=2048))


@functools.cache
def run_key() -> SigningKey:
    """The run's signing key (made on first use, kept for the run)."""
    return _new_key(f"mcpbdd-{secrets.token_hex(4)}")


@functools.cache
def stranger_key() -> SigningKey:
    """A key the fake authorization server never publishes, under the run key's own key id (a forger's key)."""
    return _new_key(run_key().kid)
