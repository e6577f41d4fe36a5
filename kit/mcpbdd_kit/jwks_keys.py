"""The published keys a `JwksVerifier` checks signatures with: fetched once at a time, bounded, kept fresh.

A server meets its identity provider's JWKS at the worst moments: a restart under load (every
request needs the keys at once), a key rotation (tokens signed with a key id nobody has seen),
an identity provider that is slow, down, or answers something that is not a JWKS. `JwksKeys`
holds for each:

- **one fetch at a time** (single flight): the verifications that need keys while a fetch is on
  its way wait for it (up to its deadline) instead of being refused or fetching again;
- **a deadline for the whole fetch** (`fetch_timeout`, connect to last byte: a server that drips
  a byte at a time cannot hold a verification longer) and **a size cap** (`max_bytes`, counted as
  the bytes arrive, unencoded: nothing past it is read) and a cap on the number of keys;
- **an unknown key id refetches, rate-limited**: at most one fetch per `refetch_interval`, however
  many tokens name keys the JWKS does not have (a flood of made-up key ids costs the provider
  nothing);
- **rotation**: keys older than `refresh_after` are fetched again on the next verification, the
  new set replaces the old one whole (a key that disappeared is refused from then on; a set
  emptied of every key, an emergency revocation, is a set, not a failed fetch);
- **only keys fit to verify**: a key for encryption (`use`, `key_ops`), an RSA key under
  `MIN_RSA_BITS` or past `MAX_RSA_BITS` or `MAX_RSA_EXPONENT` (a verification's CPU cost), two
  keys of one type under one key id (which one signed?) are left out, each logged; one key id
  may name keys of different types (RFC 7517), each verifying its own algorithms, and a key
  whose `alg` names one algorithm verifies no other;
- **stale keys for a bounded time**: while refreshes fail, the last good keys keep verifying for
  `serve_stale_for` after they were fetched, then nothing verifies until a fetch succeeds.

Times here are the machine's monotonic time, never a scenario's clock: caching is about real seconds.
"""

from __future__ import annotations

import json
import logging
import time
from dataclasses import dataclass
from typing import Any, Final

import anyio
import httpx
import jwt
from cryptography.hazmat.primitives.asymmetric import rsa
from jwt.exceptions import PyJWTError

__all__ = [
    "KEY_TYPES",
    "MAX_RSA_BITS",
    "MAX_RSA_EXPONENT",
    "MIN_RSA_BITS",
    "JwksKeys",
    "JwksPolicy",
    "KeysUnavailable",
    "printable_url",
]

logger = logging.getLogger("mcpbdd.kit.jwks")

KEY_TYPES: Final = {"RS": "RSA", "PS": "RSA", "ES": "EC", "Ed": "OKP"}
"""The key type (`kty`) each algorithm family (the algorithm's first two letters) needs."""
MIN_RSA_BITS: Final = 2048
"""Shorter RSA keys are left out of a JWKS: a 512-bit key is factored in hours, and its signatures forged after."""
MAX_RSA_BITS: Final = 8192
"""Longer RSA keys are left out: no provider signs with one, and each verification with one costs CPU."""
MAX_RSA_EXPONENT: Final = 2**32
"""RSA keys with a larger public exponent are left out: real ones use 65537; a 3072-bit exponent makes a
verification hundreds of times dearer, for every token any client sends naming the key."""


@dataclass(frozen=True)
class JwksPolicy:
    """How `JwksKeys` fetches and keeps the JWKS; the defaults suit a production server."""

    fetch_timeout: float = 10.0
    """Seconds for a whole fetch, from connecting to the last byte."""
    max_bytes: int = 256 * 1024
    """The largest JWKS read (a real one is a few KiB); a larger one is refused, unread past the cap."""
    max_keys: int = 64
    """The most keys a JWKS may hold (a real one holds a handful)."""
    refetch_interval: float = 30.0
    """Seconds between fetches after the last attempt: unknown key ids, failed fetches, refreshes."""
    refresh_after: float = 600.0
    """Keys this old (seconds) are fetched again on the next verification (rotation)."""
    serve_stale_for: float = 3600.0
    """While refreshes fail, keys verify for this long (seconds) after they were fetched, then none do."""

    def __post_init__(self) -> None:
        for name in ("fetch_timeout", "max_bytes", "max_keys"):
            if getattr(self, name) <= 0:
                raise ValueError(f"JwksPolicy.{name} must be positive, got {getattr(self, name)!r}")
        if min(self.refetch_interval, self.refresh_after, self.serve_stale_for) < 0:
            raise ValueError("JwksPolicy's intervals cannot be negative")


@dataclass(frozen=True)
class _Published:
    """A key of the JWKS, and the algorithm the JWKS says it is for (its `alg`, None when it says none)."""

    key: jwt.PyJWK
    alg: str | None


class KeysUnavailable(LookupError):
    """Why no key verifies a token (unknown key id, or no JWKS), in words a log reader can act on."""


class _Unreadable(ValueError):
    """A JWKS answer refused before it was parsed (too large, encoded, not 200)."""


_SHOWN_KID: Final = 64
"""How much of a key id a message repeats (it comes from the token, so from anyone)."""


def printable_url(url: str) -> str:
    """`url` as a log may show it: no user, password or query (where a JWKS URL could carry a secret)."""
    try:
        parsed = httpx.URL(url)
    except (httpx.InvalidURL, TypeError):
        return "<an unreadable URL>"
    return str(parsed.copy_with(username=None, password=None, query=None, fragment=None))


class JwksKeys:
    """The keys published at `url`, by key id (see the module for what it promises)."""

    def __init__(
        self,
        url: str,
        policy: JwksPolicy | None = None,
        http: httpx.AsyncClient | None = None,
    ) -> None:
        self.url = url
        self.policy = policy or JwksPolicy()
        self._http = http
        self._keys: dict[str, tuple[_Published, ...]] = {}
        self._fetched_at: float | None = None
        """When the keys in `_keys` arrived (None: never)."""
        self._attempted_at: float | None = None
        """When the last fetch that ran to its end (succeeded or failed) ended."""
        self._inflight: anyio.Event | None = None
        self._last_failure = "no fetch yet"
        self.fetches = 0
        """How many fetches ran to their end (for a server's metrics, and a test's count)."""

    async def key(self, kid: str, alg: str) -> jwt.PyJWK:
        """The key `kid` names for `alg`, fetching the JWKS first if it is due; `KeysUnavailable` saying why not."""
        for _ in range(3):  # a fetch cut short (its caller gone) is joined or led again, a bounded number of times
            now = time.monotonic()
            current = self._current(now)
            due = self._fetched_at is None or now - self._fetched_at >= self.policy.refresh_after
            if kid in current and (not due or self._inflight is not None or not self._may_attempt(now)):
                return _for_algorithm(kid, current[kid], alg)
            if self._inflight is not None:
                await self._join(self._inflight)
            elif self._may_attempt(now):
                await self._lead()
            else:
                break
            if self._attempted_at is not None and self._attempted_at >= now:
                break  # a fetch ended since this verification began: its answer stands
        now = time.monotonic()
        current = self._current(now)
        if kid in current:
            return _for_algorithm(kid, current[kid], alg)
        raise KeysUnavailable(self._why_not(kid, now))

    def _current(self, now: float) -> dict[str, tuple[_Published, ...]]:
        """The keys that may verify now: fetched within `serve_stale_for`."""
        if self._fetched_at is None or now - self._fetched_at > self.policy.serve_stale_for:
            return {}
        return self._keys

    def _may_attempt(self, now: float) -> bool:
        return self._attempted_at is None or now - self._attempted_at >= self.policy.refetch_interval

    def _why_not(self, kid: str, now: float) -> str:
        shown = kid if len(kid) <= _SHOWN_KID else kid[:_SHOWN_KID] + "..."
        where = printable_url(self.url)
        if self._fetched_at is not None and now - self._fetched_at <= self.policy.serve_stale_for:
            return f"the key id {shown!r} is not in the JWKS at {where}"
        if self._fetched_at is None:
            return f"the JWKS at {where} could not be read ({self._last_failure})"
        return (
            f"the keys from the JWKS at {where} are older than {self.policy.serve_stale_for:g} s and it could not be "
            f"read again ({self._last_failure})"
        )

    async def _join(self, inflight: anyio.Event) -> None:
        with anyio.move_on_after(self.policy.fetch_timeout + 1.0):
            await inflight.wait()

    async def _lead(self) -> None:
        done = self._inflight = anyio.Event()
        try:
            keys = await self._fetch()
            self._attempted_at = time.monotonic()
            self.fetches += 1
            if keys is not None:
                self._keys, self._fetched_at = keys, self._attempted_at
        finally:
            self._inflight = None
            done.set()

    async def _fetch(self) -> dict[str, tuple[_Published, ...]] | None:
        """The keys at `url`, or None (logged, WARNING) when they cannot be read within the policy's bounds."""
        where = printable_url(self.url)
        try:
            with anyio.fail_after(self.policy.fetch_timeout):
                body = await self._download()
            keys = _usable_keys(json.loads(body), self.policy.max_keys)
        except TimeoutError:
            self._last_failure = f"it did not arrive within {self.policy.fetch_timeout:g} s"
        except _Unreadable as exc:
            self._last_failure = str(exc)
        except (httpx.HTTPError, ValueError, RecursionError, PyJWTError) as exc:
            self._last_failure = f"{type(exc).__name__}: {str(exc)[:200]}"
        else:
            return keys
        logger.warning("the JWKS at %s cannot be read: %s", where, self._last_failure)
        return None

    async def _download(self) -> bytes:
        if self._http is not None:
            return await self._read(self._http)
        async with httpx.AsyncClient(timeout=self.policy.fetch_timeout, follow_redirects=False) as client:
            return await self._read(client)

    async def _read(self, client: httpx.AsyncClient) -> bytes:
        limit = self.policy.max_bytes
        headers = {"Accept": "application/json", "Accept-Encoding": "identity"}
        # A password in the URL travels as Basic auth, not in the URL httpx logs (INFO) for every request.
        url = httpx.URL(self.url)
        if url.username or url.password:
            auth = httpx.BasicAuth(url.username, url.password)
            answer = client.stream("GET", url.copy_with(username=None, password=None), headers=headers, auth=auth)
        else:
            answer = client.stream("GET", url, headers=headers)
        async with answer as response:
            if response.status_code != 200:
                raise _Unreadable(f"HTTP {response.status_code}")
            encoding = response.headers.get("content-encoding", "identity").strip().lower()
            if encoding != "identity":
                raise _Unreadable(f"it came {encoding}-encoded, not as asked: its decoded size is unbounded")
            declared = response.headers.get("content-length", "")
            if declared.isdigit() and int(declared) > limit:
                raise _Unreadable(f"it is {declared} bytes long, over the limit of {limit}")
            body = bytearray()
            async for chunk in response.aiter_raw():
                body += chunk
                if len(body) > limit:
                    raise _Unreadable(f"it is over the limit of {limit} bytes (not read further)")
            return bytes(body)


def _for_algorithm(kid: str, keys: tuple[_Published, ...], alg: str) -> jwt.PyJWK:
    """The key of `keys` (published under `kid`) that verifies `alg`: of its type, and published for it if for any.

    RFC 7517 section 4.4: a key whose `alg` names one algorithm is not used with another.
    """
    needed = KEY_TYPES.get(alg[:2])
    fitting = [published for published in keys if published.key.key_type == needed]
    if not fitting:
        types = " and ".join(f"a {published.key.key_type}" for published in keys)
        raise KeysUnavailable(f"the key {_shown(kid)} is {types} key, which cannot verify {alg}")
    (published,) = fitting  # one key of a type per id (`_usable_keys`)
    if published.alg is not None and published.alg != alg:
        raise KeysUnavailable(f"the key {_shown(kid)} is published for {_shown(published.alg)}, not {alg} (alg)")
    return published.key


def _usable_keys(document: Any, max_keys: int) -> dict[str, tuple[_Published, ...]]:
    """The signing keys of a JWKS document, by key id: only those a token may be verified with (see `_unfit`).

    One key id may name keys of different types (RFC 7517 section 4.5 allows it): each verifies the algorithms of
    its type. Two keys of one type under one id are ambiguous (which one did the provider sign with?): both are
    left out, loudly, rather than one of them picked silently.
    """
    listed = document.get("keys") if isinstance(document, dict) else None
    if not isinstance(listed, list):
        raise _Unreadable("it is not a JWKS (a JSON object with a list of keys)")
    if len(listed) > max_keys:
        raise _Unreadable(f"it lists {len(listed)} keys, over the limit of {max_keys}")
    if not listed:
        return {}  # a provider that withdrew every key (an emergency revocation): nothing verifies from now on
    jwt.PyJWKSet.from_dict(document)  # its refusal of a set without one key it can read stands (PyJWKSetError)
    by_id: dict[str, list[_Published]] = {}
    for entry in listed:
        if not isinstance(entry, dict):
            continue
        try:
            key = jwt.PyJWK(entry)
        except (PyJWTError, ValueError, TypeError):
            continue  # what PyJWKSet does with a key it cannot read: skipped
        unfit = _unfit(entry, key)
        if unfit is not None:
            logger.warning("a key of the JWKS is left out: %s", unfit)
            continue
        declared = entry.get("alg")
        by_id.setdefault(str(key.key_id), []).append(_Published(key, declared if isinstance(declared, str) else None))
    usable: dict[str, tuple[_Published, ...]] = {}
    for kid, keys in by_id.items():
        types = [published.key.key_type for published in keys]
        if len(set(types)) < len(types):
            logger.warning("the key id %s names two keys of one type in the JWKS: both are left out", _shown(kid))
            continue
        usable[kid] = tuple(keys)
    return usable


def _unfit(entry: dict[str, Any], key: jwt.PyJWK) -> str | None:
    """Why a key the JWKS publishes may not verify a token (None: it may)."""
    kid = entry.get("kid")
    if not isinstance(kid, str) or not kid:
        return "it has no key id (kid)"
    if key.public_key_use not in (None, "sig"):
        return f"the key {_shown(kid)} is published for {_shown(key.public_key_use)}, not for signatures (use)"
    operations = entry.get("key_ops")
    if operations is not None and (not isinstance(operations, list) or "verify" not in operations):
        return f"the key {_shown(kid)} is published for the operations {_shown(operations)}, not verify (key_ops)"
    if isinstance(key.key, rsa.RSAPublicKey):
        size, exponent = key.key.key_size, key.key.public_numbers().e
        if size < MIN_RSA_BITS:
            return f"the RSA key {_shown(kid)} is {size} bits long, under {MIN_RSA_BITS}: anyone could forge with it"
        if size > MAX_RSA_BITS or exponent > MAX_RSA_EXPONENT:
            return (
                f"the RSA key {_shown(kid)} ({size} bits, a {exponent.bit_length()}-bit exponent) is past "
                f"{MAX_RSA_BITS} bits or a {MAX_RSA_EXPONENT.bit_length()}-bit exponent: each verification would "
                "cost many times an honest key's"
            )
    return None


def _shown(value: object) -> str:
    """A value the JWKS or a token wrote, as a message repeats it: quoted, cut short."""
    shown = repr(value)
    return shown if len(shown) <= _SHOWN_KID else shown[:_SHOWN_KID] + "..."
