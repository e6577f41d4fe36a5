"""`StorageService`: tenant-scoped key/value state for a server and for the scenarios about it.

A server asks `service.tenant(tenant_id)` for a `TenantStorage` and reads and writes
through its async methods; it can never name another tenant's keys, because the tenant
is fixed when the handle is made (from the authenticated caller, not from arguments).
Scenarios seed and inspect the same service through the sync helpers (`seed`, `snapshot`,
`tenants`), which see exactly what the server sees, TTLs included.

Everything that is a rule lives here rather than in providers: key validation, JSON
encoding and the size cap, TTL arithmetic against the injected clock, all-or-nothing
batches (everything is validated and encoded before the provider is touched), signed
cursors, and cancellation.
"""

from __future__ import annotations

import base64
import copy
import hashlib
import hmac
import json
import math
import secrets
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from mcpbdd_kit._text import clip
from mcpbdd_kit.clock import Clock, FrozenClock, SystemClock
from mcpbdd_kit.storage.codec import DEFAULT_MAX_VALUE_BYTES, decode, encode
from mcpbdd_kit.storage.errors import InvalidArgumentError, InvalidCursorError, RequestCancelledError, StorageError
from mcpbdd_kit.storage.keys import validate_key, validate_prefix, validate_tenant
from mcpbdd_kit.storage.providers import Entry, InMemoryProvider, StorageProvider

__all__ = ["MAX_LIST_LIMIT", "Page", "StorageService", "TenantStorage", "Ttl"]

Ttl = float | timedelta | None
"""Seconds (int or float), a timedelta, or None for 'never expires'."""

MAX_LIST_LIMIT = 1000
"""The largest page `list()` returns: more would defeat the point of paging."""

_CURSOR_VERSION = 1
_CURSOR_CONTEXT = b"mcpbdd.storage.cursor.v1:"


@dataclass(frozen=True, slots=True)
class Page:
    """One page of a listing: `(key, value)` pairs in key order, and the cursor for the next page."""

    items: list[tuple[str, Any]]
    next_cursor: str | None


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def _unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def _atomic(provider: StorageProvider, method: str, caller: str) -> Callable[..., Any]:
    """`provider`'s `add_many` or `update`, or a clear refusal from a provider written before they existed."""
    found: Callable[..., Any] | None = getattr(provider, method, None)
    if found is None:
        raise StorageError(
            f"the storage provider {type(provider).__name__} has no {method}(), which {caller} needs; nothing was "
            f"written: implement {method} as StorageProvider describes (read and write in one step no other writer "
            "comes between), or use InMemoryProvider or SQLiteProvider"
        )
    return found


def _decode_stored(tenant: str, key: str, text: str) -> Any:
    try:
        return decode(text)
    except ValueError as exc:
        raise StorageError(f"the stored value of {key!r} in tenant {tenant!r} is not valid JSON ({exc})") from None


class StorageService:
    """The storage a server uses and a scenario seeds and inspects.

    `secret` signs listing cursors. It is random per service by default, so a cursor is
    only good for the service that issued it; give several processes sharing one SQLite
    file the same secret if a cursor must travel between them.
    """

    def __init__(
        self,
        provider: StorageProvider | None = None,
        clock: Clock | None = None,
        *,
        secret: bytes | None = None,
        max_value_bytes: int = DEFAULT_MAX_VALUE_BYTES,
    ) -> None:
        if secret is not None and (not isinstance(secret, bytes) or not secret):
            raise InvalidArgumentError("secret must be non-empty bytes (it signs listing cursors)")
        if isinstance(max_value_bytes, bool) or not isinstance(max_value_bytes, int) or max_value_bytes < 1:
            raise InvalidArgumentError(f"max_value_bytes must be a positive int, got {max_value_bytes!r}")
        self.provider: StorageProvider = provider if provider is not None else InMemoryProvider()
        self.clock: Clock = clock if clock is not None else SystemClock()
        self.max_value_bytes = max_value_bytes
        self._secret = secret if secret is not None else secrets.token_bytes(32)
        # `now()` is the storage's current time in epoch seconds, read on every call. The
        # built-in clocks expose it directly; any other Clock goes through its now() (a
        # subclass may override now(), so only the exact types take the shortcut).
        if type(self.clock) in (SystemClock, FrozenClock):
            self.now: Callable[[], float] = self.clock.timestamp  # type: ignore[attr-defined]
        else:
            self.now = self._clock_timestamp

    def _clock_timestamp(self) -> float:
        moment = self.clock.now()
        if moment.tzinfo is None:  # a naive datetime's timestamp() silently means local time
            raise InvalidArgumentError(f"{self.clock!r}.now() returned a naive datetime; clocks must return aware UTC")
        return moment.timestamp()

    # -- handles for servers ---------------------------------------------------------

    def tenant(self, tenant_id: str, *, cancelled: Callable[[], bool] | None = None) -> TenantStorage:
        """The storage of one tenant; `cancelled()` returning True makes every operation refuse."""
        return TenantStorage(self, validate_tenant(tenant_id), cancelled)

    # -- sync helpers for scenarios and tests ----------------------------------------
    # Synchronous on purpose: a Given/Then step or a pytest test reads state between calls, with no
    # event loop at hand. A server awaits its tenant's handle instead (`await service.tenant(t).snapshot()`).

    def seed(self, tenant: str, mapping: Mapping[str, Any], ttl: Ttl = None) -> None:
        """Write `mapping` into `tenant` at once (all or nothing), as a scenario's Given does."""
        tenant = validate_tenant(tenant)
        entries = self._entries(mapping, ttl)
        if entries:
            self.provider.set_many(tenant, entries)

    def read(self, tenant: str, key: str, default: Any = None) -> Any:
        """The live value of `key` in `tenant`, or `default`."""
        text = self.provider.get(validate_tenant(tenant), validate_key(key), self.now())
        return default if text is None else decode(text)

    def snapshot(self, tenant: str) -> dict[str, Any]:
        """Every live entry of `tenant`, decoded, in key order (what a Then step compares)."""
        raw = self.provider.snapshot(validate_tenant(tenant), self.now())
        keys = sorted(raw)
        try:
            # One parse of one JSON array is about twice as fast as 10,000 small parses.
            values = decode("[" + ",".join([raw[key] for key in keys]) + "]")
        except ValueError:
            values = None
        if values is None or len(values) != len(keys):  # a damaged entry: decode one by one to name it
            return {key: _decode_stored(tenant, key, raw[key]) for key in keys}
        return dict(zip(keys, values, strict=True))

    def tenants(self) -> list[str]:
        """Tenants holding at least one live key, sorted."""
        return self.provider.tenants(self.now())

    def purge_expired(self) -> int:
        """Drop expired entries for good if the provider can (they are invisible either way)."""
        purge: Callable[[float], int] | None = getattr(self.provider, "purge_expired", None)
        return purge(self.now()) if purge is not None else 0

    def close(self) -> None:
        self.provider.close()

    # -- shared rules ----------------------------------------------------------------

    def _expiry(self, ttl: Ttl) -> float | None:
        """The absolute expiry (epoch seconds) of an entry written now with `ttl`."""
        if ttl is None:
            return None
        seconds = ttl.total_seconds() if isinstance(ttl, timedelta) else ttl
        if isinstance(seconds, bool) or not isinstance(seconds, int | float):
            raise InvalidArgumentError(
                f"ttl must be seconds (a number), a timedelta or None, got {type(ttl).__name__}: {ttl!r}"
            )
        if not math.isfinite(seconds) or seconds <= 0:
            raise InvalidArgumentError(f"ttl must be a positive, finite duration, got {ttl!r}; use None for no expiry")
        return self.now() + seconds

    def _entries(self, mapping: Mapping[str, Any], ttl: Ttl) -> list[Entry]:
        """Validate and encode a whole batch before anything is written (the all-or-nothing rule)."""
        if not isinstance(mapping, Mapping):
            raise InvalidArgumentError(f"expected a mapping of key -> value, got {type(mapping).__name__}")
        expires_at = self._expiry(ttl)
        limit = self.max_value_bytes
        return [(validate_key(key), encode(key, value, limit), expires_at) for key, value in mapping.items()]

    def _issue_cursor(self, tenant: str, prefix: str, last_key: str) -> str:
        """An opaque, URL-safe, signed cursor: 'continue this tenant's listing of `prefix` after `last_key`'."""
        body = _b64(json.dumps([_CURSOR_VERSION, tenant, prefix, last_key], separators=(",", ":")).encode())
        return f"{body}.{self._sign(body)}"

    def _read_cursor(self, cursor: str, tenant: str, prefix: str) -> str:
        """The last key a cursor stands for, after checking its signature, tenant and prefix."""
        body, dot, signature = cursor.partition(".") if isinstance(cursor, str) else ("", "", "")
        if not dot or not hmac.compare_digest(signature.encode(), self._sign(body).encode()):
            raise InvalidCursorError(
                "the cursor is not one this storage issued (altered, truncated, or from another service); "
                "start the listing again without a cursor"
            )
        try:
            version, cursor_tenant, cursor_prefix, last_key = json.loads(_unb64(body))
        except ValueError:
            raise InvalidCursorError("the cursor is signed but unreadable; start the listing again") from None
        if version != _CURSOR_VERSION:
            raise InvalidCursorError(f"the cursor has version {version!r}, expected {_CURSOR_VERSION}")
        if cursor_tenant != tenant:
            # Deliberately does not name the other tenant: tenants never learn about each other.
            raise InvalidCursorError(
                f"the cursor belongs to another tenant's listing, not tenant {tenant!r}; "
                "a cursor only continues the listing that produced it"
            )
        if cursor_prefix != prefix:
            raise InvalidCursorError(
                f"the cursor continues the listing of prefix {cursor_prefix!r}, but this listing asks for "
                f"prefix {prefix!r}; pass the same prefix, or no cursor to start afresh"
            )
        return str(last_key)

    def _sign(self, body: str) -> str:
        return _b64(hmac.new(self._secret, _CURSOR_CONTEXT + body.encode(), hashlib.sha256).digest())

    def __repr__(self) -> str:
        return f"StorageService({self.provider!r}, {self.clock!r})"


class TenantStorage:
    """One tenant's storage, as a server request sees it (async, cancellable)."""

    __slots__ = ("_cancelled", "_max", "_now", "_provider", "_service", "_tenant")

    def __init__(self, service: StorageService, tenant: str, cancelled: Callable[[], bool] | None) -> None:
        self._service = service
        self._provider = service.provider
        self._tenant = tenant
        self._cancelled = cancelled
        self._max = service.max_value_bytes
        self._now = service.now

    @property
    def tenant_id(self) -> str:
        return self._tenant

    def _refuse(self) -> RequestCancelledError:
        return RequestCancelledError(
            f"the request using the storage of tenant {self._tenant!r} was cancelled; it can no longer read or write"
        )

    def _keys(self, keys: Iterable[str]) -> list[str]:
        """Validate a batch of keys (deduplicated, order kept); a bare string is a mistake, not a batch."""
        if isinstance(keys, str | bytes) or not isinstance(keys, Iterable):
            raise InvalidArgumentError(f"expected an iterable of keys, got {type(keys).__name__}: {keys!r}")
        return [validate_key(key) for key in dict.fromkeys(keys)]

    async def get(self, key: str, default: Any = None) -> Any:
        """The value of `key` (a fresh object), or `default` if it is missing or expired."""
        if self._cancelled is not None and self._cancelled():
            raise self._refuse()
        text = self._provider.get(self._tenant, validate_key(key), self._now())
        return default if text is None else decode(text)

    async def set(self, key: str, value: Any, *, ttl: Ttl = None) -> None:
        """Store `value` as JSON under `key`, replacing any value and TTL it had."""
        if self._cancelled is not None and self._cancelled():
            raise self._refuse()
        expires_at = None if ttl is None else self._service._expiry(ttl)
        self._provider.set_many(self._tenant, ((validate_key(key), encode(key, value, self._max), expires_at),))

    async def delete(self, key: str) -> bool:
        """Delete `key`; True if it existed (and had not expired)."""
        if self._cancelled is not None and self._cancelled():
            raise self._refuse()
        return self._provider.delete_many(self._tenant, (validate_key(key),), self._now()) == 1

    async def get_many(self, keys: Iterable[str]) -> dict[str, Any]:
        """The values of those `keys` that exist, in the order asked; missing keys are absent."""
        if self._cancelled is not None and self._cancelled():
            raise self._refuse()
        wanted = self._keys(keys)
        raw = self._provider.get_many(self._tenant, wanted, self._now())
        return {key: decode(raw[key]) for key in wanted if key in raw}

    async def set_many(self, mapping: Mapping[str, Any], *, ttl: Ttl = None) -> None:
        """Store every entry or none: one bad key or value and nothing is written."""
        if self._cancelled is not None and self._cancelled():
            raise self._refuse()
        entries = self._service._entries(mapping, ttl)
        if entries:
            self._provider.set_many(self._tenant, entries)

    async def delete_many(self, keys: Iterable[str]) -> int:
        """Delete every key or none (one invalid key and nothing is deleted); return how many existed."""
        if self._cancelled is not None and self._cancelled():
            raise self._refuse()
        doomed = self._keys(keys)
        return self._provider.delete_many(self._tenant, doomed, self._now()) if doomed else 0

    # -- writes no other writer can come between ---------------------------------------
    # A `get` then a `set` is two steps: two callers (two tasks, two threads, two processes on one SQLite
    # file) can both read the same value and both write, and one write is lost. These read and write in one.

    async def add(self, key: str, value: Any, *, ttl: Ttl = None) -> bool:
        """Store `value` under `key` only if the key holds no live value; True if this call stored it.

        Of several callers adding one key at once, exactly one gets True; the others get False and
        change nothing. An expired value counts as absent. Claim an id with it
        (`await notes.add("notes/n-7", note)`) rather than checking with `get` and writing with `set`.
        """
        if self._cancelled is not None and self._cancelled():
            raise self._refuse()
        expires_at = None if ttl is None else self._service._expiry(ttl)
        entry = (validate_key(key), encode(key, value, self._max), expires_at)
        return not _atomic(self._provider, "add_many", "add")(self._tenant, (entry,), self._now())

    async def add_many(self, mapping: Mapping[str, Any], *, ttl: Ttl = None) -> list[str]:
        """Store every entry if none of the keys holds a live value, else none: return the keys that do.

        `[]` means everything was stored; a non-empty list names the keys already taken (in the order
        given), and nothing was written. Like `set_many`, one bad key or value and nothing is written.
        """
        if self._cancelled is not None and self._cancelled():
            raise self._refuse()
        entries = self._service._entries(mapping, ttl)
        add_many = _atomic(self._provider, "add_many", "add_many")
        return add_many(self._tenant, entries, self._now()) if entries else []

    async def increment(self, key: str, by: int = 1, *, initial: int = 0, ttl: Ttl = None) -> int:
        """Add `by` to the integer under `key` and return the new value, as one step.

        A missing or expired counter starts from `initial` (so the first call returns `initial + by`)
        and expires after `ttl`; a live counter keeps the expiry it started with, which makes
        `increment("calls/2026-01-01T10", ttl=3600)` a rate window. Of several callers incrementing at
        once each gets a different value. A value that is not an integer is refused and left as it was.
        """
        if self._cancelled is not None and self._cancelled():
            raise self._refuse()
        for name, number in (("by", by), ("initial", initial)):
            if isinstance(number, bool) or not isinstance(number, int):
                kind = type(number).__name__
                raise InvalidArgumentError(f"increment's {name} must be an int, got {kind}: {number!r}")
        validate_key(key)
        start_expiry = None if ttl is None else self._service._expiry(ttl)
        tenant, limit = self._tenant, self._max
        counted: list[int] = []

        def count(text: str | None, expires_at: float | None) -> tuple[str, float | None]:
            current = initial if text is None else _decode_stored(tenant, key, text)
            if isinstance(current, bool) or not isinstance(current, int):
                raise InvalidArgumentError(
                    f"cannot increment {key!r} in tenant {tenant!r}: it holds {clip(text or '', 60)}, not an "
                    "integer; increment only counts what it (or a set of an int) stored there"
                )
            counted.append(current + by)
            return encode(key, current + by, limit), start_expiry if text is None else expires_at

        _atomic(self._provider, "update", "increment")(self._tenant, key, count, self._now())
        return counted[-1]

    async def update(self, key: str, change: Callable[[Any], Any], *, default: Any = None, ttl: Ttl = None) -> Any:
        """Replace the value of `key` with `change(current value)` as one step; return the new value.

        `change` gets a fresh copy of the live value, or of `default` when there is none (a list, dict or set
        default is copied for each call, so a change that mutates it cannot carry one tenant's entries into the
        next call, another tenant's; any other default is passed as it is, a sentinel too), and returns the
        value to store (with `ttl`, as `set` would). Appending to a list is
        `await notes.update("audit", lambda entries: [*entries, entry], default=[])`: two callers
        appending at once both land. `change` runs while the storage holds its write lock (for SQLite,
        the file's, which other processes wait for), so it must be quick and plain: no awaiting, no
        I/O, no writes to the storage (reading it is fine). If it raises, nothing is written and the
        exception propagates.
        """
        if self._cancelled is not None and self._cancelled():
            raise self._refuse()
        validate_key(key)
        expires_at = None if ttl is None else self._service._expiry(ttl)
        tenant, limit = self._tenant, self._max
        changed: list[Any] = []

        def apply(text: str | None, _expiry: float | None) -> tuple[str, float | None]:
            if text is not None:
                value = change(_decode_stored(tenant, key, text))
            else:
                value = change(copy.deepcopy(default) if isinstance(default, list | dict | set) else default)
            encoded = encode(key, value, limit)
            changed.append(encoded)
            return encoded, expires_at

        _atomic(self._provider, "update", "update")(self._tenant, key, apply, self._now())
        return decode(changed[-1])  # a fresh copy: mutating it cannot change what is stored

    async def list(self, prefix: str = "", cursor: str | None = None, limit: int = 100) -> Page:
        """Live entries whose key starts with `prefix`, ascending by key, `limit` at a time.

        Pass `next_cursor` back to continue. A cursor remembers the last key returned, so a
        key deleted between pages does not derail the listing: it resumes at the next key.
        """
        if self._cancelled is not None and self._cancelled():
            raise self._refuse()
        validate_prefix(prefix)
        if isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit <= MAX_LIST_LIMIT:
            raise InvalidArgumentError(f"limit must be an int from 1 to {MAX_LIST_LIMIT}, got {limit!r}")
        after = None if cursor is None else self._service._read_cursor(cursor, self._tenant, prefix)
        rows = list(self._provider.list_keys(self._tenant, prefix, after, limit + 1, self._now()))
        more = len(rows) > limit
        del rows[limit:]
        items = [(key, decode(text)) for key, text in rows]
        next_cursor = self._service._issue_cursor(self._tenant, prefix, rows[-1][0]) if more else None
        return Page(items=items, next_cursor=next_cursor)

    async def snapshot(self) -> dict[str, Any]:
        """Every live entry of this tenant, decoded, in key order (the service's `snapshot(tenant)`, awaited).

        A server works through its tenant's handle, whose methods are all awaited; the service's own
        `seed`/`read`/`snapshot`/`tenants` are synchronous helpers for scenarios and tests.
        """
        if self._cancelled is not None and self._cancelled():
            raise self._refuse()
        return self._service.snapshot(self._tenant)

    def __repr__(self) -> str:
        return f"TenantStorage({self._tenant!r})"
