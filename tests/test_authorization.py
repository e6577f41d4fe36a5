"""The JWKS verifier against the run's fake authorization server: honest tokens pass, every hostile one is refused.

Real keys, a real loopback JWKS, real signed tokens (no mocks): each refusal names its reason,
and the checks behind the phrases fail with the messages the documentation promises.
"""

from __future__ import annotations

import asyncio
import re
from datetime import UTC, datetime, timedelta

import httpx
import pytest

from mcpbdd.authorization.server import fake_authorization_server
from mcpbdd.authorization.tokens import TokenSpec, mint
from mcpbdd.checks.authorization import metadata_url, protection_described, refused_as_unauthenticated
from mcpbdd.kit.clock import FrozenClock
from mcpbdd.kit.jwks import JwksVerifier, TokenRefused
from mcpbdd.model.http_answer import HttpAnswer, challenge_params
from mcpbdd.model.outcome import Call, Channel, Outcome

RESOURCE = "https://api.example.test/mcp"
NOW = datetime(2026, 1, 1, tzinfo=UTC)


def _spec(**changes: object) -> TokenSpec:
    start = NOW.timestamp()
    spec = TokenSpec("alice", "acme", ("notes:write",), "client-1", start, start + 3600)
    return spec.spoilt("", **changes) if changes else spec


def _verifier(clock: FrozenClock | None = None) -> JwksVerifier:
    fake = fake_authorization_server()
    return JwksVerifier(fake.jwks_url, issuer=fake.issuer, audience=RESOURCE, clock=clock or FrozenClock(NOW))


def _verify(spec: TokenSpec, clock: FrozenClock | None = None) -> object:
    token = mint(spec, resource=RESOURCE, issuer=fake_authorization_server().issuer)
    return asyncio.run(_verifier(clock).verify(token))


def test_an_honest_token_verifies_with_its_claims() -> None:
    claims = _verify(_spec())
    assert claims.subject == "alice" and claims.scopes == ("notes:write",)  # type: ignore[attr-defined]
    assert claims.raw["tenant"] == "acme" and claims.client_id == "client-1"  # type: ignore[attr-defined]


def test_the_access_token_tells_the_sdk_when_it_stops_being_accepted() -> None:
    token = mint(_spec(), resource=RESOURCE, issuer=fake_authorization_server().issuer)
    access = asyncio.run(_verifier().verify_token(token))
    assert access is not None and access.resource == RESOURCE and access.subject == "alice"
    assert access.expires_at is not None and access.expires_at > datetime.now(UTC).timestamp() + 3600


@pytest.mark.parametrize(
    ("changes", "reason"),
    [
        ({"signing": "none"}, "the token's algorithm 'none' is not one of RS256, ES256"),
        ({"signing": "hmac-public-key"}, "the token's algorithm 'HS256' is not one of RS256, ES256"),
        ({"signing": "stranger"}, "signature does not verify"),
        ({"audience": "https://api.example.test"}, "is not for the audience 'https://api.example.test/mcp'"),
        ({"audience": "https://api.example.test/mcp.evil"}, "is not for the audience"),
        ({"audience": "https://api.example.test/mcp/"}, "is not for the audience"),
        ({"issuer": "https://login.evil.example"}, "was not issued by"),
        ({"padding": 9000}, "over the limit of 8192"),
    ],
)
def test_a_hostile_token_is_refused_naming_why(changes: dict[str, object], reason: str) -> None:
    with pytest.raises(TokenRefused) as refused:
        _verify(_spec(**changes))
    assert reason in str(refused.value)


def test_expiry_is_read_from_the_servers_clock_with_its_leeway() -> None:
    spec = _spec()
    within = FrozenClock(NOW + timedelta(seconds=3600 + 20))
    assert _verify(spec, within)
    beyond = FrozenClock(NOW + timedelta(seconds=3600 + 31))
    with pytest.raises(TokenRefused, match="expired"):
        _verify(spec, beyond)
    early = FrozenClock(NOW - timedelta(minutes=5))
    with pytest.raises(TokenRefused, match=r"iat .* is in the future"):
        _verify(spec, early)


@pytest.mark.parametrize("algorithms", [("none",), ("RS256", "HS256"), ()])
def test_a_verifier_refuses_an_allow_list_that_would_accept_forgeries(algorithms: tuple[str, ...]) -> None:
    with pytest.raises(ValueError, match="allow asymmetric ones only"):
        JwksVerifier("http://127.0.0.1:1/jwks.json", issuer="i", audience="a", algorithms=algorithms)


def test_the_fake_authorization_server_publishes_rfc_8414_metadata_and_its_key() -> None:
    fake = fake_authorization_server()
    metadata = httpx.get(fake.metadata_url, trust_env=False).json()
    assert metadata["issuer"] == fake.issuer and metadata["jwks_uri"] == fake.jwks_url
    keys = httpx.get(fake.jwks_url, trust_env=False).json()["keys"]
    assert [key["kty"] for key in keys] == ["RSA"] and "d" not in keys[0]  # the public half only


def test_a_challenge_is_read_param_by_param() -> None:
    params = challenge_params('Bearer error="insufficient_scope", scope="a b", resource_metadata="https://x/y"')
    assert params == {"error": "insufficient_scope", "scope": "a b", "resource_metadata": "https://x/y"}
    assert challenge_params("Basic realm=x") == {}


def _refused(challenge: str | None, status: int = 401) -> Outcome:
    answer = HttpAnswer(status, challenge, RESOURCE)
    return Outcome(Channel.TRANSPORT_FAILURE, Call.tool("list_notes"), failure="refused", http=answer)


def test_a_401_must_name_the_resources_metadata() -> None:
    refused_as_unauthenticated(_refused(f'Bearer resource_metadata="{metadata_url(RESOURCE)}"'), RESOURCE, "x")
    with pytest.raises(AssertionError, match="names no resource_metadata"):
        refused_as_unauthenticated(_refused('Bearer error="invalid_token"'), RESOURCE, "no token at all")
    with pytest.raises(AssertionError, match="must name the protected-resource metadata"):
        refused_as_unauthenticated(_refused('Bearer resource_metadata="https://evil/x"'), RESOURCE, "no token at all")


def test_the_described_protection_must_name_the_resource_and_the_issuer() -> None:
    document = {"resource": RESOURCE, "authorization_servers": ["http://127.0.0.1:9"]}
    protection_described(document, RESOURCE, "http://127.0.0.1:9", {})
    with pytest.raises(AssertionError, match="it must be the server's URL"):
        protection_described({**document, "resource": RESOURCE + "/"}, RESOURCE, "http://127.0.0.1:9", {})
    with pytest.raises(AssertionError, match=re.escape("without 'http://127.0.0.1:8'")):
        protection_described(document, RESOURCE, "http://127.0.0.1:8", {})
