"""A production `TokenVerifier` for JWT access tokens signed by an authorization server's published keys (JWKS).

The server under test runs this same verifier in production (pointed at its identity
provider's JWKS) and under mcpbdd (pointed at the fake authorization server of the run,
whose URLs mcpbdd puts in the process's environment: `mcpbdd.kit.protected`), so what a
scenario specifies about tokens is what ships:

    verifier = JwksVerifier(
        "https://login.example.com/.well-known/jwks.json",
        issuer="https://login.example.com",
        audience="https://notes.example.com/mcp",
        clock=clock,                      # the server's clock: a scenario's frozen one under mcpbdd
    )

What it refuses, each with a reason it logs (`mcpbdd.kit.jwks` logger, WARNING):

- a token longer than `max_token_bytes` (8 KiB), before anything is parsed;
- an algorithm outside the allow-list (RS256, ES256 by default): `none` and every HMAC
  algorithm (HS256...) are refused even if configured, so a token "signed" with the
  JWKS's public key as an HMAC secret never verifies;
- a key id the JWKS does not have, a key of another type than the algorithm needs, or one
  the JWKS publishes for another algorithm (its `alg`); the JWKS's keys for encryption
  (`use`, `key_ops`), RSA keys under 2048 bits and two keys of one type under one key id
  are left out of it (logged). The keys are `mcpbdd.kit.jwks_keys.JwksKeys`': one fetch at
  a time (verifications that need keys wait for it, up to its deadline), each fetch bounded
  in time and size, an unknown key id fetching again at most once per `refetch_interval`
  (30 s), keys refreshed after 10 minutes, the last good ones kept for an hour while
  refreshes fail (`JwksPolicy`);
- a bad signature; an `iss` other than `issuer`; an `aud` that does not contain
  `audience` exactly (no prefix, no look-alike, no URL normalisation);
- `exp` at or before now minus `leeway`, `nbf` or `iat` after now plus `leeway`, where
  now is read from `clock` (PyJWT's own time checks read the wall clock, so they are
  switched off and done here); a time claim that is not a finite number within year 9999
  (NaN would never expire), and a `scope` that is neither a string nor a list of strings.

PyJWT (with `cryptography`) checks the signature; nothing here signs or hashes by hand.
"""

from __future__ import annotations

import logging
import math
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import timedelta
from typing import Any, Final, TypedDict, Unpack

import httpx
import jwt
from jwt.exceptions import PyJWTError
from mcp.server.auth.provider import AccessToken

from mcpbdd_kit.clock import Clock, SystemClock
from mcpbdd_kit.jwks_keys import KEY_TYPES, JwksKeys, JwksPolicy, KeysUnavailable, printable_url

__all__ = [
    "DEFAULT_ALGORITHMS",
    "DEFAULT_LEEWAY",
    "MAX_TOKEN_BYTES",
    "Claims",
    "JwksPolicy",
    "JwksVerifier",
    "TokenRefused",
    "VerifierOptions",
]

logger = logging.getLogger("mcpbdd.kit.jwks")

DEFAULT_ALGORITHMS: Final = ("RS256", "ES256")
"""What identity providers sign access tokens with (RS256 first: the default of most of them)."""
MAX_TOKEN_BYTES: Final = 8192
"""Longer tokens are refused unread: a real access token is well under 4 KiB."""
DEFAULT_LEEWAY: Final = timedelta(seconds=30)
"""How far the server's clock may disagree with the authorization server's."""
_LATEST: Final = 253402300799.0
"""The last second of year 9999: a time claim past it is not a time (a `datetime` cannot hold it)."""
_SHOWN: Final = 64
"""How much of a header value a refusal repeats (the header comes from anyone)."""


class TokenRefused(ValueError):
    """Why a token was refused, in words a log reader (or a scenario's failure message) can act on."""


@dataclass(frozen=True)
class Claims:
    """The claims of a verified token the server reads (the rest are in `raw`)."""

    subject: str
    client_id: str
    scopes: tuple[str, ...]
    expires_at: float
    raw: Mapping[str, Any]


def _allowed(algorithms: Iterable[str]) -> tuple[str, ...]:
    allowed = tuple(algorithms)
    bad = [alg for alg in allowed if alg.lower() == "none" or alg.upper().startswith("HS") or alg[:2] not in KEY_TYPES]
    if bad or not allowed:
        raise ValueError(
            f"the algorithms {bad or allowed!r} cannot verify tokens against a JWKS: allow asymmetric ones only "
            f"(e.g. {', '.join(DEFAULT_ALGORITHMS)}); `none` and HMAC (HS256...) would accept forged tokens"
        )
    return allowed


class VerifierOptions(TypedDict, total=False):
    """`JwksVerifier`'s optional settings, each with its default: the verifier of most servers needs none of them."""

    algorithms: Iterable[str]
    """The allowed signing algorithms (`DEFAULT_ALGORITHMS`); asymmetric ones only."""
    leeway: timedelta
    """How far the clocks may disagree (`DEFAULT_LEEWAY`)."""
    clock: Clock | None
    """The server's clock (None: the system's)."""
    max_token_bytes: int
    """Longer tokens are refused unread (`MAX_TOKEN_BYTES`)."""
    tenant_claim: str
    """The claim naming the caller's tenant (`tenant`)."""
    http: httpx.AsyncClient | None
    """The client that fetches the JWKS (None: a client of its own for each fetch)."""
    jwks_policy: JwksPolicy
    """How the JWKS is fetched and kept: deadline, size cap, refetch interval, refresh, stale keys (`JwksPolicy`)."""


class JwksVerifier:
    """An SDK `TokenVerifier`: a JWT access token, checked against the keys at `jwks_url` (see the module)."""

    def __init__(self, jwks_url: str, *, issuer: str, audience: str, **options: Unpack[VerifierOptions]) -> None:
        """`options` are each optional (see `VerifierOptions`): one typed set rather than six more parameters."""
        self.jwks_url = jwks_url
        self.issuer = issuer
        self.audience = audience
        self.algorithms = _allowed(options.get("algorithms", DEFAULT_ALGORITHMS))
        self.leeway = options.get("leeway", DEFAULT_LEEWAY)
        self.clock: Clock = options.get("clock") or SystemClock()
        self.max_token_bytes = options.get("max_token_bytes", MAX_TOKEN_BYTES)
        self.tenant_claim = options.get("tenant_claim", "tenant")
        self.keys = JwksKeys(jwks_url, options.get("jwks_policy"), options.get("http"))

    # the SDK's TokenVerifier ------------------------------------------------------------------

    async def verify_token(self, token: str) -> AccessToken | None:
        """The token's access, or None (the SDK answers 401); a refusal is logged with its reason."""
        try:
            claims = await self.verify(token)
        except TokenRefused as refused:
            logger.warning("bearer token refused: %s", refused)
            return None
        # The SDK's middleware compares `expires_at` with the wall clock, without leeway: give it the wall-clock
        # instant this verifier stops accepting the token (its clock is a scenario's frozen one under mcpbdd).
        remaining = claims.expires_at + self.leeway.total_seconds() - self.clock.now().timestamp()
        return AccessToken(
            token=token,
            client_id=claims.client_id,
            scopes=list(claims.scopes),
            expires_at=int(time.time() + remaining),
            resource=self.audience,
            subject=claims.subject,
            claims=dict(claims.raw),
        )

    # verification -------------------------------------------------------------------------------

    async def verify(self, token: str) -> Claims:
        """The verified claims of `token`, or a `TokenRefused` naming the first check it failed."""
        if len(token.encode("utf-8", "replace")) > self.max_token_bytes:
            raise TokenRefused(f"the token is {len(token)} bytes long, over the limit of {self.max_token_bytes}")
        try:
            header = jwt.get_unverified_header(token)
        except PyJWTError as exc:
            raise TokenRefused(f"the token is not a JWT ({exc})") from None
        alg = header.get("alg")
        if not isinstance(alg, str) or alg not in self.algorithms:
            raise TokenRefused(f"the token's algorithm {_shown(alg)} is not one of {', '.join(self.algorithms)}")
        key = await self._key(header.get("kid"), alg)
        try:
            payload: dict[str, Any] = jwt.decode(
                token,
                key.key,
                algorithms=[alg],
                audience=self.audience,
                issuer=self.issuer,
                options={
                    "verify_exp": False,  # checked below against the server's clock, not the wall clock
                    "verify_nbf": False,
                    "verify_iat": False,
                    "require": ["exp", "iss", "aud", "sub"],
                },
            )
        except PyJWTError as exc:
            raise TokenRefused(_decode_reason(exc, self)) from None
        return self._timely(payload)

    def _timely(self, payload: dict[str, Any]) -> Claims:
        now, leeway = self.clock.now().timestamp(), self.leeway.total_seconds()
        exp = _number(payload, "exp")
        if exp is None or exp <= now - leeway:
            raise TokenRefused(f"the token expired at {exp} (now {now:.0f}, leeway {leeway:g} s)")
        for claim in ("nbf", "iat"):
            moment = _number(payload, claim)
            if moment is not None and moment > now + leeway:
                raise TokenRefused(f"the token's {claim} {moment} is in the future (now {now:.0f})")
        scopes = _scopes(payload)
        subject = str(payload["sub"])
        client_id = str(payload.get("client_id") or payload.get("azp") or subject)
        return Claims(subject, client_id, scopes, exp, payload)

    async def _key(self, kid: Any, alg: str) -> jwt.PyJWK:
        if not isinstance(kid, str):
            raise TokenRefused("the token names no key id (kid)")
        try:
            return await self.keys.key(kid, alg)
        except KeysUnavailable as unavailable:
            raise TokenRefused(str(unavailable)) from None

    def __repr__(self) -> str:
        return f"JwksVerifier({printable_url(self.jwks_url)!r}, issuer={self.issuer!r}, audience={self.audience!r})"


def _shown(value: object) -> str:
    """A header value a refusal repeats: quoted, escaped, and cut short (it comes from whoever sent the token)."""
    if isinstance(value, str) and len(value) > _SHOWN:
        value = value[:_SHOWN] + "..."
    shown = repr(value)
    return shown if len(shown) <= 2 * _SHOWN else shown[: 2 * _SHOWN] + "..."


def _number(payload: Mapping[str, Any], claim: str) -> float | None:
    """A time claim as a finite number: NaN compares false with every instant (it would never expire), and
    infinity or a 400-digit integer would overflow the SDK's integer `expires_at` (a 500, not a refusal)."""
    value = payload.get(claim)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise TokenRefused(f"the token's {claim} {_shown(value)} is not a number")
    try:
        number = float(value)
    except OverflowError:
        raise TokenRefused(f"the token's {claim} is out of range") from None
    if not math.isfinite(number) or abs(number) > _LATEST:
        raise TokenRefused(f"the token's {claim} {_shown(value)} is not a time")
    return number


def _scopes(payload: Mapping[str, Any]) -> tuple[str, ...]:
    """The granted scopes: a space-separated `scope` (RFC 9068) or a list of strings (`scp`, as some providers send)."""
    scope = payload.get("scope", payload.get("scp", ""))
    if isinstance(scope, str):
        return tuple(scope.split())
    if isinstance(scope, list) and all(isinstance(item, str) for item in scope):
        return tuple(scope)
    raise TokenRefused(f"the token's scope {_shown(scope)} is neither a string nor a list of strings")


def _decode_reason(exc: PyJWTError, verifier: JwksVerifier) -> str:
    if isinstance(exc, jwt.InvalidAudienceError):
        return f"the token is not for the audience {verifier.audience!r} ({exc})"
    if isinstance(exc, jwt.InvalidIssuerError):
        return f"the token was not issued by {verifier.issuer!r} ({exc})"
    if isinstance(exc, jwt.InvalidSignatureError):
        return "the token's signature does not verify with the published key"
    return f"the token does not verify: {exc}"
