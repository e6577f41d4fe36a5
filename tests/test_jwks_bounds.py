"""The JWKS verifier against identity providers at their worst: a cold start under load, a JWKS that drips,
one too large, garbage, a flood of made-up key ids, a key rotation, an outage.

Real keys, real signed tokens, real loopback servers (`jwks_servers.JwksServer`). A verification that would
hang without its bound is stopped by an outer guard (`anyio.fail_after`) far above the bound, so a regression
fails here instead of stalling the suite; nothing is timed.
"""

from __future__ import annotations

import logging
import secrets
from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any

import anyio
import jwt
import pytest
from cryptography.hazmat.primitives.asymmetric import rsa
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from jwks_servers import JwksServer

from mcpbdd.authorization.keys import SigningKey
from mcpbdd.authorization.tokens import TokenSpec
from mcpbdd.kit.clock import FrozenClock
from mcpbdd.kit.jwks import JwksPolicy, JwksVerifier, TokenRefused

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(120)]

ISSUER = "https://login.example.test"
RESOURCE = "https://api.example.test/mcp"
NOW = datetime(2026, 1, 1, tzinfo=UTC)
GUARD = 30.0
"""The outer guard around a verification whose own bound is a second or two: a hang fails the test."""


def _key(kid: str) -> SigningKey:
    return SigningKey(kid, rsa.generate_private_key(public_exponent=65537, key_size=2048))


@pytest.fixture(scope="module")
def key_a() -> SigningKey:
    return _key("key-a")


@pytest.fixture(scope="module")
def key_b() -> SigningKey:
    return _key("key-b")


@pytest.fixture
def jwks(key_a: SigningKey) -> Iterator[JwksServer]:
    with JwksServer(key_a) as server:
        yield server


def _token(key: SigningKey, kid: str | None = None, user: str = "alice") -> str:
    start = NOW.timestamp()
    spec = TokenSpec(user, "acme", ("notes:write",), "client-1", start, start + 3600)
    claims = spec.claims(resource=RESOURCE, issuer=ISSUER, tenant_claim="tenant")
    return jwt.encode(claims, key.private, algorithm="RS256", headers={"kid": kid or key.kid})


def _verifier(server: JwksServer, **policy: Any) -> JwksVerifier:
    return JwksVerifier(
        server.url, issuer=ISSUER, audience=RESOURCE, clock=FrozenClock(NOW), jwks_policy=JwksPolicy(**policy)
    )


async def _refusal(verifier: JwksVerifier, token: str) -> str:
    with anyio.fail_after(GUARD):
        try:
            await verifier.verify(token)
        except TokenRefused as refused:
            return str(refused)
    raise AssertionError("the token was accepted")


# a cold start -------------------------------------------------------------------------------------


async def test_a_cold_start_accepts_every_concurrent_honest_token_with_one_fetch(
    jwks: JwksServer, key_a: SigningKey
) -> None:
    jwks.delay = 0.3  # the first fetch is still on its way when the other nineteen arrive
    verifier = _verifier(jwks)
    tokens = [_token(key_a, user=f"user-{n}") for n in range(20)]
    accepted: list[object] = []

    async def verify(token: str) -> None:
        accepted.append(await verifier.verify_token(token))

    with anyio.fail_after(GUARD):
        async with anyio.create_task_group() as group:
            for token in tokens:
                group.start_soon(verify, token)
    assert len(accepted) == 20 and all(access is not None for access in accepted), accepted
    assert jwks.requests == 1, "one fetch at a time: the others wait for it"


# bounded fetches -----------------------------------------------------------------------------------


async def test_a_dripping_jwks_is_given_up_at_the_whole_fetchs_deadline(
    jwks: JwksServer, key_a: SigningKey, caplog: pytest.LogCaptureFixture
) -> None:
    jwks.mode, jwks.drip_every = "drip", 0.1  # every read succeeds well within any per-read timeout
    verifier = _verifier(jwks, fetch_timeout=0.5)
    reason = await _refusal(verifier, _token(key_a))
    assert reason == f"the JWKS at {jwks.url} could not be read (it did not arrive within 0.5 s)"
    assert f"the JWKS at {jwks.url} cannot be read: it did not arrive within 0.5 s" in caplog.text


@pytest.mark.parametrize("declared", [False, True], ids=["close-delimited", "length-declared"])
async def test_a_huge_jwks_is_not_read_past_its_cap(jwks: JwksServer, key_a: SigningKey, declared: bool) -> None:
    jwks.mode, jwks.declare_length = "huge", declared
    verifier = _verifier(jwks)
    reason = await _refusal(verifier, _token(key_a))
    assert "over the limit of 262144" in reason
    await anyio.sleep(0.2)  # the server notices the closed connection
    assert jwks.sent < jwks.huge_bytes // 4, f"{jwks.sent} of {jwks.huge_bytes} bytes were pushed: read past the cap"


async def test_an_encoded_jwks_is_refused_unread(jwks: JwksServer, key_a: SigningKey) -> None:
    jwks.mode = "gzip"  # a few KiB of gzip can inflate to gigabytes: its decoded size is unknown until read
    reason = await _refusal(_verifier(jwks), _token(key_a))
    assert reason.endswith("(it came gzip-encoded, not as asked: its decoded size is unbounded)")


GARBAGE = {
    "not JSON": b"<html>login</html>",
    "deeply nested": b"[" * 200_000,
    "a huge number": b"1" * 100_000,
    "keys not a list": b'{"keys": "all of them"}',
    "no keys": b'{"keys": []}',
    "unusable keys": b'{"keys": [{"kty": "RSA", "kid": "key-a", "n": "!", "e": "AQAB"}, 7, null]}',
    "too many keys": b'{"keys": [' + b",".join([b'{"kty": "oct", "k": "AA"}'] * 100) + b"]}",
    "UTF-16": '{"keys": []}'.encode("utf-16"),
    "an HMAC key under the kid": b'{"keys": [{"kty": "oct", "kid": "key-a", "k": "c2VjcmV0"}]}',
}


@pytest.mark.parametrize("body", list(GARBAGE.values()), ids=list(GARBAGE))
async def test_a_garbage_jwks_refuses_tokens_and_the_next_good_one_heals(
    jwks: JwksServer, key_a: SigningKey, body: bytes
) -> None:
    jwks.mode, jwks.raw = "raw", body
    verifier = _verifier(jwks, refetch_interval=0.0, refresh_after=0.0)
    with anyio.fail_after(GUARD):
        assert await verifier.verify_token(_token(key_a)) is None
        jwks.mode = "serve"
        assert await verifier.verify_token(_token(key_a)) is not None


# key ids: unknown, rotated, stale ---------------------------------------------------------------------


async def test_a_flood_of_unknown_key_ids_fetches_nothing_more(jwks: JwksServer, key_a: SigningKey) -> None:
    verifier = _verifier(jwks)
    with anyio.fail_after(GUARD):
        assert await verifier.verify_token(_token(key_a)) is not None
        async with anyio.create_task_group() as group:
            for _ in range(50):
                group.start_soon(verifier.verify_token, _token(key_a, kid=secrets.token_hex(8)))
        for _ in range(50):
            assert await verifier.verify_token(_token(key_a, kid=secrets.token_hex(8))) is None
    assert jwks.requests == 1


async def test_a_rotation_accepts_the_new_key_and_refuses_the_one_withdrawn(
    jwks: JwksServer, key_a: SigningKey, key_b: SigningKey
) -> None:
    verifier = _verifier(jwks, refetch_interval=0.0)
    with anyio.fail_after(GUARD):
        assert await verifier.verify_token(_token(key_a)) is not None
        jwks.keys = [key_b]  # the provider rotated: b published, a withdrawn
        assert await verifier.verify_token(_token(key_b)) is not None
    assert await _refusal(verifier, _token(key_a)) == f"the key id 'key-a' is not in the JWKS at {jwks.url}"


async def test_stale_keys_verify_through_an_outage_for_a_bounded_time(jwks: JwksServer, key_a: SigningKey) -> None:
    verifier = _verifier(jwks, refetch_interval=0.0, refresh_after=0.0, serve_stale_for=0.5)
    with anyio.fail_after(GUARD):
        assert await verifier.verify_token(_token(key_a)) is not None
        jwks.mode = "fail"
        assert await verifier.verify_token(_token(key_a)) is not None  # the refresh failed: the keys still serve
        assert jwks.requests == 2
        await anyio.sleep(0.6)
    reason = await _refusal(verifier, _token(key_a))
    assert reason == f"the keys from the JWKS at {jwks.url} are older than 0.5 s and it could not be read again " + (
        "(HTTP 500)"
    )
    jwks.mode = "serve"
    assert await verifier.verify_token(_token(key_a)) is not None


def test_a_policy_with_no_bound_is_refused() -> None:
    for setting in ({"fetch_timeout": 0}, {"max_bytes": 0}, {"max_keys": -1}, {"refetch_interval": -1.0}):
        with pytest.raises(ValueError, match="JwksPolicy"):
            JwksPolicy(**setting)


# nothing secret in a log -----------------------------------------------------------------------------


async def test_a_refusal_logs_no_token_and_no_secret_of_the_jwks_url(
    jwks: JwksServer, key_a: SigningKey, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    jwks.mode = "fail"
    secret_url = jwks.url.replace("http://", "http://user:hunter2@")
    verifier = JwksVerifier(secret_url, issuer=ISSUER, audience=RESOURCE, clock=FrozenClock(NOW))
    token = _token(key_a)
    with anyio.fail_after(GUARD):
        assert await verifier.verify_token(token) is None
    said = caplog.text + repr(verifier)
    assert "bearer token refused: the JWKS at" in said
    for secret in ("hunter2", token, token.split(".")[2]):
        assert secret not in said


# whatever a client sends as a token ----------------------------------------------------------------------


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    token=st.one_of(
        st.text(max_size=200),
        st.lists(
            st.text(alphabet="ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_=+/", max_size=60)
        ).map(".".join),
        st.binary(max_size=60).map(lambda header: jwt.utils.base64url_encode(header).decode() + ".e30."),
    )
)
def test_whatever_a_client_sends_as_a_token_is_refused_never_raised(token: str, verified: JwksVerifier) -> None:
    assert anyio.run(verified.verify_token, token) is None


@pytest.fixture(scope="module")
def verified(key_a: SigningKey) -> Iterator[JwksVerifier]:
    """A verifier whose keys are already fetched (the fuzzing then reaches every check after the key)."""
    with JwksServer(key_a) as server:
        verifier = _verifier(server)
        assert anyio.run(verifier.verify_token, _token(key_a)) is not None
        yield verifier


@pytest.mark.parametrize("kid", ["key-a", "attacker"])
async def test_a_key_the_token_carries_or_points_at_is_never_used(
    jwks: JwksServer, key_a: SigningKey, kid: str
) -> None:
    attacker = _key(kid)
    with JwksServer(attacker) as theirs:
        headers = {"kid": kid, "jwk": attacker.jwk, "jku": theirs.url, "x5u": theirs.url}
        start = NOW.timestamp()
        spec = TokenSpec("mallory", "acme", ("notes:delete",), "client-1", start, start + 3600)
        claims = spec.claims(resource=RESOURCE, issuer=ISSUER, tenant_claim="tenant")
        forged = jwt.encode(claims, attacker.private, algorithm="RS256", headers=headers)
        reason = await _refusal(_verifier(jwks), forged)
        assert theirs.requests == 0, "the verifier fetched the key the token pointed at"
    assert reason in (
        "the token's signature does not verify with the published key",
        f"the key id {kid!r} is not in the JWKS at {jwks.url}",
    )


async def test_a_fetch_whose_caller_went_away_is_led_again_by_one_that_waits(
    jwks: JwksServer, key_a: SigningKey
) -> None:
    jwks.delay = 0.5
    verifier = _verifier(jwks)
    accepted: list[object] = []

    async def goes_away() -> None:
        with anyio.move_on_after(0.1):  # the client disconnects while the first fetch is on its way
            await verifier.verify_token(_token(key_a))

    async def waits() -> None:
        await anyio.sleep(0.05)
        accepted.append(await verifier.verify_token(_token(key_a, user="bob")))

    with anyio.fail_after(GUARD):
        async with anyio.create_task_group() as group:
            group.start_soon(goes_away)
            group.start_soon(waits)
    assert accepted and accepted[0] is not None
    assert verifier.keys.fetches == 1, "the fetch cut short does not count as an attempt (it would hold off a retry)"
