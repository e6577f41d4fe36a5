"""The JWKS verifier attacked where tests/test_jwks_bounds.py does not go: claims a signer wrote out of range, keys
the JWKS publishes for something else (another use, operation, algorithm or curve, or too short to trust), key ids
shared by two keys, a JWKS whose length lies or that redirects, a rotation under concurrent load, and an emergency
revocation (a JWKS emptied of every key).

Real keys, real signed tokens, real loopback servers (`jwks_servers.JwksServer`, and `_Liar` below for answers no
honest HTTP server writes). Every verification runs under an outer guard far above its own bound; nothing is timed.
"""

from __future__ import annotations

import base64
import json
import logging
import secrets
import socket
import threading
from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any

import anyio
import httpx
import jwt
import pytest
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec, rsa, utils
from jwks_servers import JwksServer
from jwt.algorithms import ECAlgorithm, RSAAlgorithm

from mcpbdd.authorization.keys import SigningKey
from mcpbdd.kit.clock import FrozenClock
from mcpbdd.kit.jwks import JwksPolicy, JwksVerifier, TokenRefused

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(120)]

ISSUER = "https://login.example.test"
RESOURCE = "https://api.example.test/mcp"
NOW = datetime(2026, 1, 1, tzinfo=UTC)
GUARD = 30.0


@pytest.fixture(scope="module")
def rsa_key() -> rsa.RSAPrivateKey:
    return rsa.generate_private_key(public_exponent=65537, key_size=2048)


@pytest.fixture(scope="module")
def ec_key() -> ec.EllipticCurvePrivateKey:
    return ec.generate_private_key(ec.SECP256R1())


def _jwk(private: Any, kid: str, **members: Any) -> dict[str, Any]:
    family = RSAAlgorithm if isinstance(private, rsa.RSAPrivateKey) else ECAlgorithm
    public: dict[str, Any] = family.to_jwk(private.public_key(), as_dict=True)
    return {**public, "kid": kid, **members}


def _claims(**changes: Any) -> dict[str, Any]:
    start = NOW.timestamp()
    claims = {"iss": ISSUER, "aud": RESOURCE, "sub": "alice", "exp": start + 3600, "iat": start, "scope": "a"}
    return {**claims, **changes}


def _signed(private: Any, kid: str, alg: str = "RS256", **changes: Any) -> str:
    return jwt.encode(_claims(**changes), private, algorithm=alg, headers={"kid": kid})


def _verifier(url: str, http: httpx.AsyncClient | None = None, **policy: Any) -> JwksVerifier:
    return JwksVerifier(
        url, issuer=ISSUER, audience=RESOURCE, clock=FrozenClock(NOW), http=http, jwks_policy=JwksPolicy(**policy)
    )


async def _refusal(verifier: JwksVerifier, token: str) -> str:
    with anyio.fail_after(GUARD):
        try:
            await verifier.verify(token)
        except TokenRefused as refused:
            assert await verifier.verify_token(token) is None  # and the SDK's seam answers None, never raises
            return str(refused)
    raise AssertionError("the token was accepted")


async def _accepted(verifier: JwksVerifier, token: str) -> None:
    with anyio.fail_after(GUARD):
        assert await verifier.verify_token(token) is not None, "the honest token was refused"


@pytest.fixture
def published() -> Iterator[JwksServer]:
    """A JWKS server whose document a test writes (`raw`)."""
    with JwksServer() as server:
        server.mode = "raw"
        yield server


def _publish(server: JwksServer, *keys: dict[str, Any]) -> None:
    server.raw = json.dumps({"keys": list(keys)}).encode()


# claims a signer wrote out of range ---------------------------------------------------------------------------------

OUT_OF_RANGE = {
    "exp NaN (it would never expire: NaN compares false)": ({"exp": float("nan")}, "exp nan is not a time"),
    "exp infinite": ({"exp": float("inf")}, "exp inf is not a time"),
    "exp a 400-digit integer": ({"exp": 10**400}, "exp is out of range"),
    "exp after the year 9999": ({"exp": 1e300}, "is not a time"),
    "nbf NaN (it would never be in the future)": ({"nbf": float("nan")}, "nbf nan is not a time"),
    "iat NaN": ({"iat": float("nan")}, "iat nan is not a time"),
    "scope a number": ({"scope": 5}, "scope 5 is neither a string nor a list of strings"),
    "scope an object (its keys would be scopes)": ({"scope": {"admin": 1}}, "neither a string nor a list"),
    "scp a list with a number": ({"scope": None, "scp": ["a", 1]}, "neither a string nor a list"),
}


@pytest.mark.parametrize(("changes", "reason"), list(OUT_OF_RANGE.values()), ids=list(OUT_OF_RANGE))
async def test_a_signed_token_whose_claims_are_out_of_range_is_refused_never_raised(
    published: JwksServer, rsa_key: rsa.RSAPrivateKey, changes: dict[str, Any], reason: str
) -> None:
    _publish(published, _jwk(rsa_key, "k"))
    verifier = _verifier(published.url)
    claims = {name: value for name, value in changes.items() if value is not None}
    token = _signed(rsa_key, "k", **claims) if "scp" not in changes else _scp_token(rsa_key, changes["scp"])
    assert reason in await _refusal(verifier, token)
    await _accepted(verifier, _signed(rsa_key, "k"))


def _scp_token(private: rsa.RSAPrivateKey, scp: object) -> str:
    claims = _claims(scp=scp)
    del claims["scope"]
    return jwt.encode(claims, private, algorithm="RS256", headers={"kid": "k"})


async def test_a_list_of_scopes_is_read_as_the_scopes(published: JwksServer, rsa_key: rsa.RSAPrivateKey) -> None:
    _publish(published, _jwk(rsa_key, "k"))
    with anyio.fail_after(GUARD):
        claims = await _verifier(published.url).verify(_scp_token(rsa_key, ["notes:read", "notes:write"]))
    assert claims.scopes == ("notes:read", "notes:write")


# keys published for something else ------------------------------------------------------------------------------


async def test_a_short_rsa_key_is_left_out_of_the_jwks_loudly(
    published: JwksServer, rsa_key: rsa.RSAPrivateKey, caplog: pytest.LogCaptureFixture
) -> None:
    weak = rsa.generate_private_key(public_exponent=65537, key_size=1024)  # the shortest cryptography makes
    _publish(published, _jwk(weak, "weak"), _jwk(rsa_key, "strong"))
    verifier = _verifier(published.url)
    with caplog.at_level(logging.WARNING, logger="mcpbdd.kit.jwks"), pytest.warns(jwt.InsecureKeyLengthWarning):
        forged = _signed(weak, "weak")
        assert await _refusal(verifier, forged) == f"the key id 'weak' is not in the JWKS at {published.url}"
    assert "the RSA key 'weak' is 1024 bits long, under 2048: anyone could forge with it" in caplog.text
    await _accepted(verifier, _signed(rsa_key, "strong"))


def _costly(bits: int, exponent: int) -> dict[str, Any]:
    """An RSA public key's JWK with a modulus of `bits` bits and the given exponent (no private half needed)."""
    modulus = secrets.randbits(bits) | (1 << (bits - 1)) | 1
    public = rsa.RSAPublicNumbers(exponent, modulus).public_key()
    return {**RSAAlgorithm.to_jwk(public, as_dict=True), "kid": f"costly-{bits}"}


@pytest.mark.parametrize(
    ("bits", "exponent"), [(16384, 65537), (3072, (1 << 3071) | 1)], ids=["16384 bits", "e 3072 bits"]
)
async def test_an_rsa_key_that_makes_each_verification_costly_is_left_out_loudly(
    published: JwksServer, rsa_key: rsa.RSAPrivateKey, caplog: pytest.LogCaptureFixture, bits: int, exponent: int
) -> None:
    """Every token any client sends naming such a key would cost a verification many times an honest one's (a
    3072-bit exponent: some 13 ms of CPU each, against 0.05 ms): the key is left out, so nothing is verified."""
    _publish(published, _costly(bits, exponent), _jwk(rsa_key, "k"))
    verifier = _verifier(published.url)
    with caplog.at_level(logging.WARNING, logger="mcpbdd.kit.jwks"):
        named = jwt.encode(_claims(), rsa_key, algorithm="RS256", headers={"kid": f"costly-{bits}"})
        assert "not in the JWKS" in await _refusal(verifier, named)
    assert f"the RSA key 'costly-{bits}' ({bits} bits, a {exponent.bit_length()}-bit exponent) is past" in caplog.text
    await _accepted(verifier, _signed(rsa_key, "k"))


KEYS_FOR_SOMETHING_ELSE = {
    "use enc": ({"use": "enc"}, "not in the JWKS"),
    "key_ops without verify": ({"key_ops": ["encrypt", "wrapKey"]}, "not in the JWKS"),
    "key_ops not a list": ({"key_ops": "verify"}, "not in the JWKS"),
    "alg another algorithm": ({"alg": "RS512"}, "the key 'k' is published for 'RS512', not RS256 (alg)"),
}


@pytest.mark.parametrize(
    ("members", "reason"), list(KEYS_FOR_SOMETHING_ELSE.values()), ids=list(KEYS_FOR_SOMETHING_ELSE)
)
async def test_a_key_published_for_another_use_operation_or_algorithm_verifies_nothing(
    published: JwksServer, rsa_key: rsa.RSAPrivateKey, members: dict[str, Any], reason: str
) -> None:
    _publish(published, _jwk(rsa_key, "k", **members))
    assert reason in await _refusal(_verifier(published.url), _signed(rsa_key, "k"))
    _publish(published, _jwk(rsa_key, "k", use="sig", key_ops=["verify"], alg="RS256"))
    await _accepted(_verifier(published.url), _signed(rsa_key, "k"))


async def test_an_es256_signature_made_on_another_curve_is_refused(published: JwksServer) -> None:
    p384 = ec.generate_private_key(ec.SECP384R1())
    _publish(published, _jwk(p384, "p384"))

    def part(value: bytes) -> bytes:
        return base64.urlsafe_b64encode(value).rstrip(b"=")

    signing_input = (
        part(json.dumps({"alg": "ES256", "kid": "p384"}).encode()) + b"." + part(json.dumps(_claims()).encode())
    )
    r, s = utils.decode_dss_signature(p384.sign(signing_input, ec.ECDSA(hashes.SHA256())))
    token = (signing_input + b"." + part(r.to_bytes(48, "big") + s.to_bytes(48, "big"))).decode()
    assert "does not match the expected curve" in await _refusal(_verifier(published.url), token)


# one key id, two keys -------------------------------------------------------------------------------------------


async def test_one_key_id_may_name_an_rsa_and_an_ec_key_each_verifying_its_own(
    published: JwksServer, rsa_key: rsa.RSAPrivateKey, ec_key: ec.EllipticCurvePrivateKey
) -> None:
    _publish(published, _jwk(ec_key, "shared"), _jwk(rsa_key, "shared"))  # RFC 7517 4.5: another kty may share it
    verifier = _verifier(published.url)
    await _accepted(verifier, _signed(ec_key, "shared", "ES256"))
    await _accepted(verifier, _signed(rsa_key, "shared", "RS256"))


async def test_two_keys_of_one_type_under_one_key_id_verify_nothing_and_say_so(
    published: JwksServer, rsa_key: rsa.RSAPrivateKey, caplog: pytest.LogCaptureFixture
) -> None:
    other = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    _publish(published, _jwk(rsa_key, "twin"), _jwk(other, "twin"), _jwk(rsa_key, "single"))
    verifier = _verifier(published.url)
    with caplog.at_level(logging.WARNING, logger="mcpbdd.kit.jwks"):
        assert "not in the JWKS" in await _refusal(verifier, _signed(rsa_key, "twin"))
        assert "not in the JWKS" in await _refusal(verifier, _signed(other, "twin"))
    assert "the key id 'twin' names two keys of one type in the JWKS: both are left out" in caplog.text
    await _accepted(verifier, _signed(rsa_key, "single"))


# answers no honest server writes ----------------------------------------------------------------------------------


class _Liar:
    """A loopback HTTP server answering every request with `answer` (bytes, as written) then keeping or closing."""

    def __init__(self, answer: bytes, *, hold: bool = False) -> None:
        self.answer, self.hold = answer, hold
        self.requests = 0
        self._listener = socket.create_server(("127.0.0.1", 0))
        self._listener.settimeout(0.1)
        self._stopping = threading.Event()
        self.url = f"http://127.0.0.1:{self._listener.getsockname()[1]}/jwks.json"
        self._thread = threading.Thread(target=self._serve, name="test-liar", daemon=True)
        self._thread.start()

    def _serve(self) -> None:
        while not self._stopping.is_set():
            try:
                connection, _ = self._listener.accept()
            except TimeoutError:
                continue
            with connection:
                connection.recv(65536)
                self.requests += 1
                connection.sendall(self.answer.replace(b"{origin}", self.url.rsplit("/", 1)[0].encode()))
                if self.hold:
                    self._stopping.wait(5.0)

    def __enter__(self) -> _Liar:
        return self

    def __exit__(self, *exc: object) -> None:
        self._stopping.set()
        self._thread.join(10)
        self._listener.close()


def _answer(status: str, headers: dict[str, str], body: bytes = b"") -> bytes:
    lines = [f"HTTP/1.1 {status}", *(f"{name}: {value}" for name, value in headers.items()), "", ""]
    return "\r\n".join(lines).encode() + body


@pytest.fixture(scope="module")
def document(rsa_key: rsa.RSAPrivateKey) -> bytes:
    return json.dumps({"keys": [_jwk(rsa_key, "k")]}).encode()


async def test_a_jwks_whose_length_lies_is_refused_within_the_fetchs_deadline(
    document: bytes, rsa_key: rsa.RSAPrivateKey
) -> None:
    shorter = _answer("200 OK", {"Content-Length": str(len(document) - 10), "Connection": "close"}, document)
    longer = _answer("200 OK", {"Content-Length": str(len(document) + 100)}, document)
    token = _signed(rsa_key, "k")
    with _Liar(shorter) as liar:  # the declared length cuts the JSON short: not a JWKS
        assert "could not be read" in await _refusal(_verifier(liar.url), token)
    with _Liar(longer, hold=True) as liar:  # the rest never comes: the fetch's deadline ends it
        assert "did not arrive within 0.5 s" in await _refusal(_verifier(liar.url, fetch_timeout=0.5), token)
    with _Liar(longer) as liar:  # the rest never comes, the connection closes: an incomplete answer
        assert "could not be read" in await _refusal(_verifier(liar.url), token)


REDIRECTS = {
    "to another host": "http://jwks.evil.example/jwks.json",
    "to a file": "file:///etc/passwd",
    "to itself (a loop)": "{origin}/jwks.json",
}


@pytest.mark.parametrize("target", list(REDIRECTS.values()), ids=list(REDIRECTS))
async def test_a_redirected_jwks_is_not_followed_and_a_client_that_follows_stays_bounded(
    target: str, rsa_key: rsa.RSAPrivateKey
) -> None:
    token = _signed(rsa_key, "k")
    with _Liar(_answer("302 Found", {"Location": target, "Content-Length": "0", "Connection": "close"})) as liar:
        assert await _refusal(_verifier(liar.url), token) == f"the JWKS at {liar.url} could not be read (HTTP 302)"
        assert liar.requests == 1
        async with httpx.AsyncClient(follow_redirects=True, max_redirects=5) as following:  # a server's own client
            reason = await _refusal(_verifier(liar.url, http=following, fetch_timeout=5.0), token)
        assert "could not be read" in reason
        assert liar.requests <= 7, "a redirect loop is cut at the client's limit"


# rotation and revocation --------------------------------------------------------------------------------------------


async def test_a_rotation_under_twenty_concurrent_tokens_fetches_once_and_refuses_the_withdrawn_key(
    rsa_key: rsa.RSAPrivateKey,
) -> None:
    old, new = SigningKey("old", rsa_key), SigningKey("new", rsa.generate_private_key(65537, 2048))
    with JwksServer(old) as jwks:
        verifier = JwksVerifier(
            jwks.url,
            issuer=ISSUER,
            audience=RESOURCE,
            clock=FrozenClock(NOW),
            jwks_policy=JwksPolicy(refetch_interval=0.0),  # the default's 30 s would make the new id wait for it
        )
        await _accepted(verifier, _signed(old.private, "old"))
        jwks.keys, jwks.delay = [new], 0.3  # rotated: the fetch is on its way while the others arrive
        accepted: list[object] = []

        async def verify(token: str) -> None:
            accepted.append(await verifier.verify_token(token))

        with anyio.fail_after(GUARD):
            async with anyio.create_task_group() as group:
                for n in range(20):
                    group.start_soon(verify, _signed(new.private, "new", sub=f"user-{n}"))
        assert len(accepted) == 20 and None not in accepted, accepted
        assert jwks.requests == 2, "one fetch for the twenty tokens under the new key id"
        assert (
            await _refusal(verifier, _signed(old.private, "old"))
            == f"the key id 'old' is not in the JWKS at {jwks.url}"
        )


async def test_a_jwks_emptied_of_every_key_revokes_them_at_once_not_after_the_stale_window(
    rsa_key: rsa.RSAPrivateKey,
) -> None:
    """An identity provider that withdraws every key (a compromise) publishes `{"keys": []}`: that is the new set,
    not a failed fetch, so the withdrawn keys must not go on verifying for `serve_stale_for` (an hour)."""
    key = SigningKey("k", rsa_key)
    with JwksServer(key) as jwks:
        verifier = JwksVerifier(
            jwks.url,
            issuer=ISSUER,
            audience=RESOURCE,
            clock=FrozenClock(NOW),
            jwks_policy=JwksPolicy(refetch_interval=0.0, refresh_after=0.0),
        )
        await _accepted(verifier, _signed(rsa_key, "k"))
        jwks.keys = []
        assert await _refusal(verifier, _signed(rsa_key, "k")) == f"the key id 'k' is not in the JWKS at {jwks.url}"
        jwks.keys = [key]
        await _accepted(verifier, _signed(rsa_key, "k"))
