"""A caller's access token as a scenario shapes it, and the JWT minted from it.

An honest token is what a real authorization server issues at the end of a flow: signed
with the run's key (PyJWT, RS256), `iss` the fake authorization server, `aud` the server's
resource URL, `sub` the user, the tenant claim, `scope`, `client_id`, `jti`, and `iat`/`exp`
read from the scenario's clock when the token is issued.

A scenario can spoil one thing about it (`TokenSpec.flaw` says what, for failure messages):
another audience or issuer, an expiry in the past, a key the server never saw, no
signature at all (`alg: none`), an HMAC "signature" keyed with the published public key
(the algorithm-confusion attack), a size no real token has. The two forgeries that no
JOSE library will make on purpose are assembled here from their parts; the HMAC is
`cryptography`'s. Every token minted is registered as a secret at once (`mcpbdd.model.minted`).
"""

from __future__ import annotations

import json
import secrets
from dataclasses import dataclass, replace
from typing import Any, Literal

import jwt
from cryptography.hazmat.primitives import hashes, hmac
from jwt.utils import base64url_encode

from mcpbdd.authorization.keys import ALGORITHM, run_key, stranger_key
from mcpbdd.model.minted import register as register_minted

__all__ = ["DEFAULT_LIFETIME", "RESOURCE", "Signing", "TokenSpec", "mint"]

DEFAULT_LIFETIME = 3600.0
"""Seconds an honest token lives (an hour, as identity providers commonly issue them)."""
RESOURCE = "{resource}"
"""In an audience a scenario writes, the server's own resource URL (`"{resource}.evil"`: a look-alike)."""

Signing = Literal["run", "stranger", "none", "hmac-public-key"]


@dataclass(frozen=True)
class TokenSpec:
    """Everything a minted token says; `None` audience and issuer mean the honest ones."""

    user: str
    tenant: str
    scopes: tuple[str, ...]
    client_id: str
    issued_at: float
    expires_at: float
    audience: str | None = None
    issuer: str | None = None
    signing: Signing = "run"
    padding: int = 0
    """Bytes of filler in a claim: a token far larger than any real one."""
    flaw: str | None = None
    """What makes this token one to refuse, as a failure message says it (None: an honest token)."""

    def spoilt(self, flaw: str, **changes: Any) -> TokenSpec:
        return replace(self, flaw=flaw, **changes)

    def claims(self, *, resource: str, issuer: str, tenant_claim: str) -> dict[str, Any]:
        audience = (self.audience or RESOURCE).replace(RESOURCE, resource)
        claims: dict[str, Any] = {
            "iss": self.issuer or issuer,
            "sub": self.user,
            "aud": audience,
            "client_id": self.client_id,
            tenant_claim: self.tenant,
            "scope": " ".join(self.scopes),
            "iat": int(self.issued_at),
            "exp": int(self.expires_at),
            "jti": secrets.token_hex(8),
        }
        if self.padding:
            claims["padding"] = "x" * self.padding
        return claims


def mint(spec: TokenSpec, *, resource: str, issuer: str, tenant_claim: str = "tenant") -> str:
    """The JWT `spec` describes, for the server at `resource`, issued by `issuer` (the fake's, unless spoilt).

    Registered as a secret before it is returned (`mcpbdd.model.minted`): whoever echoes it, a result, a log
    message or a server's stderr, every report shows it masked."""
    token = _signed(spec, spec.claims(resource=resource, issuer=issuer, tenant_claim=tenant_claim))
    register_minted(token)
    return token


def _signed(spec: TokenSpec, claims: dict[str, Any]) -> str:
    key = run_key()
    if spec.signing == "run":
        return jwt.encode(claims, key.private, algorithm=ALGORITHM, headers={"kid": key.kid})
    if spec.signing == "stranger":
        return jwt.encode(claims, stranger_key().private, algorithm=ALGORITHM, headers={"kid": key.kid})
    if spec.signing == "none":
        return _compact({"alg": "none", "typ": "JWT", "kid": key.kid}, claims, lambda _: b"")
    return _compact({"alg": "HS256", "typ": "JWT", "kid": key.kid}, claims, lambda data: _hmac(key.public_pem, data))


def _hmac(secret: bytes, data: bytes) -> bytes:
    mac = hmac.HMAC(secret, hashes.SHA256())
    mac.update(data)
    return mac.finalize()


def _compact(header: dict[str, Any], claims: dict[str, Any], sign: Any) -> str:
    """A JWS in compact form from its parts: only for the forgeries (an honest token is PyJWT's)."""
    parts = [base64url_encode(json.dumps(part, separators=(",", ":")).encode()) for part in (header, claims)]
    signing_input = b".".join(parts)
    return (signing_input + b"." + base64url_encode(sign(signing_input))).decode()
