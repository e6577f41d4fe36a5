"""The shared provider suite: every storage rule, checked on the in-memory and the SQLite provider.

Each test gets `service` / `acme` over one provider (see conftest: parametrized), so a
rule that one backend breaks fails with that backend's id in the test name.
"""

from __future__ import annotations

import math
from collections.abc import Awaitable, Callable
from datetime import UTC, date, datetime, timedelta
from typing import Any

import pytest
from pydantic import BaseModel

from mcpbdd.kit.clock import FrozenClock
from mcpbdd.storage import (
    InvalidArgumentError,
    InvalidCursorError,
    InvalidKeyError,
    RequestCancelledError,
    StorageError,
    StorageProvider,
    StorageService,
    TenantStorage,
    UnencodableValueError,
    ValueTooLargeError,
)

pytestmark = pytest.mark.anyio


async def list_all(store: TenantStorage, prefix: str = "", limit: int = 100) -> list[tuple[str, Any]]:
    """Every item of a listing, following cursors to the end."""
    items: list[tuple[str, Any]] = []
    cursor = None
    for _ in range(1000):  # bounded, so a cursor that never advances fails instead of hanging
        page = await store.list(prefix, cursor=cursor, limit=limit)
        items += page.items
        if page.next_cursor is None:
            return items
        cursor = page.next_cursor
    raise AssertionError(f"the listing of {prefix!r} did not end after 1000 pages")


# -- key rules ---------------------------------------------------------------------------

GOOD_KEYS = ["a", "notes/n-1", "a/b.c-d_E9", "/leading/slash", "trailing/", "v1.2.3", "x" * 1024]
BAD_KEYS = [
    pytest.param("cache:v1:abc", "':'", id="colon"),
    pytest.param("a/../b", "'..'", id="dot-dot"),
    pytest.param("..", "'..'", id="bare-dot-dot"),
    pytest.param("a b", "' '", id="space"),
    pytest.param("caf\u00e9", "'\u00e9'", id="non-ascii"),
    pytest.param("a\n", "'\\n'", id="trailing-newline"),
    pytest.param("a*b", "'*'", id="star"),
    pytest.param("", "empty", id="empty"),
    pytest.param("x" * 1025, "1025 characters", id="too-long"),
    pytest.param(42, "string", id="not-a-string"),
]


@pytest.mark.parametrize("key", GOOD_KEYS)
async def test_valid_keys_are_stored_and_read_back(acme: TenantStorage, key: str) -> None:
    await acme.set(key, {"key": key})
    assert await acme.get(key) == {"key": key}


@pytest.mark.parametrize(("key", "rule_text"), BAD_KEYS)
async def test_invalid_key_is_refused_naming_key_and_rule(
    acme: TenantStorage, service: StorageService, key: Any, rule_text: str
) -> None:
    with pytest.raises(InvalidKeyError) as caught:
        await acme.set(key, 1)
    message = str(caught.value)
    assert repr(key)[:40] in message
    assert rule_text in message
    assert service.snapshot("acme") == {}


async def test_colon_key_suggests_slash_separator(acme: TenantStorage) -> None:
    with pytest.raises(InvalidKeyError, match=r"use cache/v1/abc"):
        await acme.set("cache:v1:abc", 1)


@pytest.mark.parametrize(
    "operation",
    [
        pytest.param(lambda s: s.get("bad:key"), id="get"),
        pytest.param(lambda s: s.set("bad:key", 1), id="set"),
        pytest.param(lambda s: s.delete("bad:key"), id="delete"),
        pytest.param(lambda s: s.get_many(["ok", "bad:key"]), id="get_many"),
        pytest.param(lambda s: s.set_many({"ok": 1, "bad:key": 2}), id="set_many"),
        pytest.param(lambda s: s.delete_many(["ok", "bad:key"]), id="delete_many"),
        pytest.param(lambda s: s.list("bad:prefix"), id="list-prefix"),
        pytest.param(lambda s: s.list("a/../"), id="list-dot-dot-prefix"),
    ],
)
async def test_every_operation_validates_keys(
    acme: TenantStorage, service: StorageService, operation: Callable[[TenantStorage], Awaitable[Any]]
) -> None:
    await acme.set("ok", "before")
    with pytest.raises(InvalidKeyError, match=r"bad:key|bad:prefix|a/\.\./"):
        await operation(acme)
    assert service.snapshot("acme") == {"ok": "before"}


@pytest.mark.parametrize(
    ("tenant", "rule_text"),
    [("acme:eu", "':'"), ("a/../b", "'..'"), ("t" * 129, "the limit is 128"), ("", "empty"), ("a b", "' '")],
)
def test_invalid_tenant_id_is_refused(service: StorageService, tenant: str, rule_text: str) -> None:
    with pytest.raises(InvalidKeyError, match="tenant id") as caught:
        service.tenant(tenant)
    assert rule_text in str(caught.value)
    with pytest.raises(InvalidKeyError):
        service.seed(tenant, {"k": 1})
    with pytest.raises(InvalidKeyError):
        service.snapshot(tenant)


async def test_tenant_id_of_128_characters_is_accepted(service: StorageService) -> None:
    store = service.tenant("t" * 128)
    await store.set("k", 1)
    assert service.tenants() == ["t" * 128]


# -- JSON round trip ---------------------------------------------------------------------


class Note(BaseModel):
    title: str
    created: datetime


async def test_json_values_round_trip(acme: TenantStorage) -> None:
    value = {
        "text": "caf\u00e9 \u2603",
        "int": -7,
        "float": 1.5,
        "bool": True,
        "none": None,
        "list": [1, "two", [3.0]],
        "nested": {"a": [{}], "b": {"c": False}},
    }
    await acme.set("doc", value)
    assert await acme.get("doc") == value
    for scalar in [0, "", None, False, 3.25, [], {}]:
        await acme.set("scalar", scalar)
        got = await acme.get("scalar", default="missing")
        assert got == scalar and type(got) is type(scalar)


async def test_values_read_back_in_json_form(acme: TenantStorage) -> None:
    moment = datetime(2026, 3, 1, 9, 0, tzinfo=UTC)
    await acme.set(
        "forms",
        {
            "at": moment,
            "day": date(2026, 3, 1),
            "pair": (1, 2),
            "numbered": {1: "one"},
            "note": Note(title="Hi", created=moment),
        },
    )
    assert await acme.get("forms") == {
        "at": "2026-03-01T09:00:00+00:00",
        "day": "2026-03-01",
        "pair": [1, 2],
        "numbered": {"1": "one"},
        "note": {"title": "Hi", "created": "2026-03-01T09:00:00Z"},
    }
    await acme.set("bare-datetime", moment)
    assert await acme.get("bare-datetime") == "2026-03-01T09:00:00+00:00"


async def test_reads_return_fresh_objects(acme: TenantStorage) -> None:
    original = {"tags": ["a"]}
    await acme.set("doc", original)
    original["tags"].append("mutated-after-set")
    first = await acme.get("doc")
    assert first == {"tags": ["a"]}
    first["tags"].append("mutated-after-get")
    second = await acme.get("doc")
    assert second == {"tags": ["a"]}
    assert second is not first
    many = await acme.get_many(["doc"])
    many["doc"]["tags"].clear()
    page = await acme.list()
    page.items[0][1]["tags"].clear()
    assert await acme.get("doc") == {"tags": ["a"]}


async def test_missing_key_returns_the_default(acme: TenantStorage) -> None:
    assert await acme.get("nope") is None
    sentinel = object()
    assert await acme.get("nope", sentinel) is sentinel
    await acme.set("null", None)
    assert await acme.get("null", sentinel) is None


@pytest.mark.parametrize(
    ("value", "type_name"),
    [
        pytest.param({1, 2}, "set", id="set"),
        pytest.param(b"raw", "bytes", id="bytes"),
        pytest.param(object(), "object", id="object"),
        pytest.param(float("nan"), "float", id="nan"),
        pytest.param(math.inf, "float", id="inf"),
        pytest.param({"deep": [{"x": frozenset()}]}, "frozenset", id="nested-frozenset"),
        pytest.param(1 + 2j, "complex", id="complex"),
    ],
)
async def test_unencodable_values_are_refused_naming_key_and_type(
    acme: TenantStorage, service: StorageService, value: Any, type_name: str
) -> None:
    with pytest.raises(UnencodableValueError) as caught:
        await acme.set("notes/n-1", value)
    assert "'notes/n-1'" in str(caught.value)
    assert type_name in str(caught.value)
    assert caught.value.type_name == type_name
    with pytest.raises(UnencodableValueError):
        await acme.set_many({"fine": 1, "notes/n-2": value})
    assert service.snapshot("acme") == {}


async def test_value_over_the_size_cap_is_refused(provider: StorageProvider, clock: FrozenClock) -> None:
    small = StorageService(provider, clock, max_value_bytes=64).tenant("acme")
    await small.set("fits", "x" * 62)  # 62 characters + 2 quotes = 64 bytes of JSON
    assert await small.get("fits") == "x" * 62
    with pytest.raises(ValueTooLargeError) as caught:
        await small.set("too-big", "x" * 63)
    assert "'too-big'" in str(caught.value) and "65 bytes" in str(caught.value) and "64 bytes" in str(caught.value)
    assert (caught.value.size, caught.value.limit) == (65, 64)
    with pytest.raises(ValueTooLargeError):
        await small.set_many({"ok": 1, "too-big": "y" * 100})
    assert await small.get("ok") is None


async def test_default_size_cap_is_one_mebibyte(acme: TenantStorage) -> None:
    await acme.set("max", "x" * (1_048_576 - 2))
    with pytest.raises(ValueTooLargeError, match="1048576"):
        await acme.set("over", "x" * (1_048_576 - 1))


# -- TTL ---------------------------------------------------------------------------------


async def test_ttl_expires_entries_from_every_read(
    acme: TenantStorage, service: StorageService, clock: FrozenClock
) -> None:
    await acme.set("session", {"user": "ada"}, ttl=60)
    await acme.set("forever", 1)
    clock.advance(timedelta(seconds=59))
    assert await acme.get("session") == {"user": "ada"}
    clock.advance(timedelta(seconds=1))
    assert await acme.get("session") is None
    assert await acme.get_many(["session", "forever"]) == {"forever": 1}
    assert (await acme.list()).items == [("forever", 1)]
    assert service.snapshot("acme") == {"forever": 1}
    assert service.read("acme", "session", "gone") == "gone"


async def test_tenant_with_only_expired_keys_is_not_listed(
    service: StorageService, clock: FrozenClock, acme: TenantStorage
) -> None:
    await acme.set("k", 1, ttl=timedelta(minutes=5))
    await service.tenant("globex").set("k", 1)
    assert service.tenants() == ["acme", "globex"]
    clock.advance(timedelta(minutes=5))
    assert service.tenants() == ["globex"]


async def test_expired_entries_do_not_count_for_delete_or_pages(acme: TenantStorage, clock: FrozenClock) -> None:
    await acme.set_many({"k1": 1, "k3": 3, "k5": 5}, ttl=10)
    await acme.set_many({"k2": 2, "k4": 4, "k6": 6})
    clock.advance(10)
    assert await acme.delete("k1") is False
    assert await acme.delete_many(["k3", "k4"]) == 1
    page = await acme.list(limit=2)
    assert page.items == [("k2", 2), ("k6", 6)]
    assert page.next_cursor is None


async def test_rewriting_a_key_replaces_its_ttl(acme: TenantStorage, clock: FrozenClock) -> None:
    await acme.set("k", "short", ttl=10)
    await acme.set("k", "forever")
    clock.advance(timedelta(days=365))
    assert await acme.get("k") == "forever"
    await acme.set("k", "short-again", ttl=10.5)
    clock.advance(10.4)
    assert await acme.get("k") == "short-again"
    clock.advance(0.1)
    assert await acme.get("k") is None
    await acme.set("k", "back")
    assert await acme.get("k") == "back"


async def test_ttl_is_read_from_the_injected_clock(provider: StorageProvider) -> None:
    clock = FrozenClock(datetime(2030, 6, 1, tzinfo=UTC))
    store = StorageService(provider, clock).tenant("acme")
    await store.set("k", 1, ttl=3600)
    clock.set(datetime(2030, 6, 1, 0, 59, 59, tzinfo=UTC))
    assert await store.get("k") == 1
    clock.set(datetime(2030, 6, 1, 1, 0, 0, tzinfo=UTC))
    assert await store.get("k") is None


@pytest.mark.parametrize("ttl", [0, -1, timedelta(seconds=-5), math.nan, math.inf, "10", True])
async def test_invalid_ttl_is_refused(acme: TenantStorage, service: StorageService, ttl: Any) -> None:
    with pytest.raises(InvalidArgumentError, match="ttl"):
        await acme.set("k", 1, ttl=ttl)
    with pytest.raises(InvalidArgumentError, match="ttl"):
        await acme.set_many({"k": 1}, ttl=ttl)
    assert service.snapshot("acme") == {}


# -- batches -----------------------------------------------------------------------------


async def test_get_many_returns_existing_keys_only(acme: TenantStorage) -> None:
    await acme.set_many({"a": 1, "b": {"x": [2]}, "c": None})
    assert await acme.get_many(["c", "missing", "a", "a"]) == {"c": None, "a": 1}
    assert list(await acme.get_many(["c", "a"])) == ["c", "a"]
    assert await acme.get_many([]) == {}


async def test_set_many_is_all_or_nothing(acme: TenantStorage, service: StorageService) -> None:
    await acme.set("a", "original")
    with pytest.raises(InvalidKeyError):
        await acme.set_many({"a": "new", "b": "new", "bad key": "new"})
    with pytest.raises(UnencodableValueError):
        await acme.set_many({"a": "new", "b": "new", "c": {1}})
    assert service.snapshot("acme") == {"a": "original"}
    await acme.set_many({"a": "new", "b": "new"}, ttl=30)
    assert service.snapshot("acme") == {"a": "new", "b": "new"}


async def test_large_batches_round_trip(acme: TenantStorage) -> None:
    mapping = {f"bulk/{i:04d}": {"i": i} for i in range(1500)}
    await acme.set_many(mapping)
    keys = [*mapping, "bulk/missing"]
    assert await acme.get_many(keys) == mapping
    assert await acme.delete_many(keys) == 1500
    assert await acme.get_many(keys) == {}


async def test_delete_many_is_all_or_nothing_and_counts_existing(acme: TenantStorage, service: StorageService) -> None:
    await acme.set_many({"a": 1, "b": 2, "c": 3})
    with pytest.raises(InvalidKeyError):
        await acme.delete_many(["a", "b", "../c"])
    assert service.snapshot("acme") == {"a": 1, "b": 2, "c": 3}
    assert await acme.delete_many(["a", "b", "a", "nope"]) == 2
    assert service.snapshot("acme") == {"c": 3}
    assert await acme.delete("c") is True
    assert await acme.delete("c") is False
    assert await acme.delete_many([]) == 0


@pytest.mark.parametrize("keys", ["abc", b"abc", 42])
async def test_batch_reads_refuse_a_bare_string(acme: TenantStorage, keys: Any) -> None:
    await acme.set_many({"a": 1, "b": 2, "c": 3})
    with pytest.raises(InvalidArgumentError, match="iterable of keys"):
        await acme.get_many(keys)
    with pytest.raises(InvalidArgumentError, match="iterable of keys"):
        await acme.delete_many(keys)
    assert await acme.get_many(["a", "b", "c"]) == {"a": 1, "b": 2, "c": 3}


async def test_set_many_refuses_a_non_mapping(acme: TenantStorage) -> None:
    with pytest.raises(InvalidArgumentError, match="mapping"):
        await acme.set_many([("a", 1)])  # type: ignore[arg-type]


# -- listing -----------------------------------------------------------------------------


async def test_list_is_sorted_and_filtered_by_prefix(acme: TenantStorage) -> None:
    await acme.set_many({"notes/b": 2, "notes/a": 1, "notes-archive/x": 0, "note": 9, "tasks/1": 3, "notes/a/sub": 4})
    assert (await acme.list("notes/")).items == [("notes/a", 1), ("notes/a/sub", 4), ("notes/b", 2)]
    assert [key for key, _ in (await acme.list()).items] == sorted(
        ["notes/b", "notes/a", "notes-archive/x", "note", "tasks/1", "notes/a/sub"]
    )
    assert [key for key, _ in (await acme.list("note")).items] == [
        "note",
        "notes-archive/x",
        "notes/a",
        "notes/a/sub",
        "notes/b",
    ]
    assert (await acme.list("zzz")).items == []
    assert (await acme.list("notes/a/sub")).items == [("notes/a/sub", 4)]


async def test_list_pages_through_every_key_once(acme: TenantStorage) -> None:
    expected = [(f"k/{i:02d}", i) for i in range(25)]
    await acme.set_many(dict(reversed(expected)))
    first = await acme.list("k/", limit=10)
    assert first.items == expected[:10] and first.next_cursor
    second = await acme.list("k/", cursor=first.next_cursor, limit=10)
    assert second.items == expected[10:20] and second.next_cursor
    third = await acme.list("k/", cursor=second.next_cursor, limit=10)
    assert third.items == expected[20:] and third.next_cursor is None
    assert await list_all(acme, "k/", limit=7) == expected


async def test_last_full_page_has_no_next_cursor(acme: TenantStorage) -> None:
    await acme.set_many({f"k{i}": i for i in range(6)})
    first = await acme.list(limit=3)
    second = await acme.list(cursor=first.next_cursor, limit=3)
    assert [k for k, _ in second.items] == ["k3", "k4", "k5"]
    assert second.next_cursor is None
    assert (await acme.list(limit=6)).next_cursor is None


async def test_cursor_resumes_at_the_next_key_after_a_delete(acme: TenantStorage) -> None:
    await acme.set_many({f"k{i}": i for i in range(10)})
    first = await acme.list(limit=3)
    assert [k for k, _ in first.items] == ["k0", "k1", "k2"]
    await acme.delete_many(["k2", "k3"])
    await acme.set_many({"k15": 15, "k25": 25})
    second = await acme.list(cursor=first.next_cursor, limit=3)
    assert [k for k, _ in second.items] == ["k25", "k4", "k5"]


async def test_cursor_is_an_opaque_url_safe_string(acme: TenantStorage) -> None:
    await acme.set_many({"a/1": 1, "a/2": 2})
    cursor = (await acme.list("a/", limit=1)).next_cursor
    assert cursor is not None
    assert set(cursor) <= set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.")
    assert "a/1" not in cursor


def _flip(text: str, index: int) -> str:
    return text[:index] + ("A" if text[index] != "A" else "B") + text[index + 1 :]


async def test_tampered_cursor_is_refused(acme: TenantStorage) -> None:
    await acme.set_many({f"k{i}": i for i in range(5)})
    cursor = (await acme.list(limit=2)).next_cursor
    assert cursor is not None
    body, signature = cursor.split(".")
    forgeries = [
        _flip(cursor, 3),
        _flip(cursor, len(cursor) - 2),
        body,
        f"{body}.",
        f".{signature}",
        cursor + "x",
        "not-a-cursor",
        "",
    ]
    for forged in forgeries:
        with pytest.raises(InvalidCursorError, match="not one this storage issued"):
            await acme.list(cursor=forged, limit=2)


async def test_cursor_of_another_tenant_is_refused(service: StorageService, acme: TenantStorage) -> None:
    globex = service.tenant("globex")
    await acme.set_many({f"k{i}": i for i in range(5)})
    await globex.set_many({f"k{i}": -i for i in range(5)})
    cursor = (await acme.list(limit=2)).next_cursor
    assert cursor is not None
    with pytest.raises(InvalidCursorError, match="another tenant") as caught:
        await globex.list(cursor=cursor, limit=2)
    assert "acme" not in str(caught.value)


async def test_cursor_for_another_prefix_is_refused(acme: TenantStorage) -> None:
    await acme.set_many({"a/1": 1, "a/2": 2, "b/1": 3})
    cursor = (await acme.list("a/", limit=1)).next_cursor
    assert cursor is not None
    with pytest.raises(InvalidCursorError, match=r"prefix 'a/'.*prefix 'b/'"):
        await acme.list("b/", cursor=cursor, limit=1)
    with pytest.raises(InvalidCursorError, match="prefix"):
        await acme.list(cursor=cursor, limit=1)
    assert (await acme.list("a/", cursor=cursor, limit=1)).items == [("a/2", 2)]


async def test_cursor_is_bound_to_the_service_secret(
    provider: StorageProvider, clock: FrozenClock, secret: bytes
) -> None:
    issuer = StorageService(provider, clock, secret=secret).tenant("acme")
    await issuer.set_many({"k1": 1, "k2": 2})
    cursor = (await issuer.list(limit=1)).next_cursor
    assert cursor is not None
    stranger = StorageService(provider, clock, secret=b"another-secret").tenant("acme")
    with pytest.raises(InvalidCursorError):
        await stranger.list(cursor=cursor, limit=1)
    sibling = StorageService(provider, clock, secret=secret).tenant("acme")
    assert (await sibling.list(cursor=cursor, limit=1)).items == [("k2", 2)]


@pytest.mark.parametrize("limit", [0, -1, 1001, 2.5, True, "10"])
async def test_invalid_limit_is_refused(acme: TenantStorage, limit: Any) -> None:
    with pytest.raises(InvalidArgumentError, match="limit"):
        await acme.list(limit=limit)


# -- cancellation ------------------------------------------------------------------------


class RecordingProvider:
    """A real provider underneath; it only notes which methods were called."""

    def __init__(self, inner: StorageProvider) -> None:
        self.inner = inner
        self.calls: list[str] = []

    def __getattr__(self, name: str) -> Any:
        self.calls.append(name)
        return getattr(self.inner, name)


CANCELLABLE = [
    pytest.param(lambda s: s.get("k"), id="get"),
    pytest.param(lambda s: s.set("k", "overwritten"), id="set"),
    pytest.param(lambda s: s.delete("k"), id="delete"),
    pytest.param(lambda s: s.get_many(["k"]), id="get_many"),
    pytest.param(lambda s: s.set_many({"k": "overwritten", "new": 1}), id="set_many"),
    pytest.param(lambda s: s.delete_many(["k"]), id="delete_many"),
    pytest.param(lambda s: s.list(), id="list"),
]


@pytest.mark.parametrize("operation", CANCELLABLE)
async def test_cancelled_request_cannot_read_or_write(
    provider: StorageProvider, clock: FrozenClock, operation: Callable[[TenantStorage], Awaitable[Any]]
) -> None:
    recording = RecordingProvider(provider)
    service = StorageService(recording, clock)
    state = {"cancelled": False}
    store = service.tenant("acme", cancelled=lambda: state["cancelled"])
    await store.set("k", "original")
    state["cancelled"] = True
    recording.calls.clear()
    with pytest.raises(RequestCancelledError, match="cancelled"):
        await operation(store)
    assert recording.calls == []
    assert service.snapshot("acme") == {"k": "original"}
    state["cancelled"] = False
    await operation(store)  # the same call goes through once the request is live again


# -- tenant isolation --------------------------------------------------------------------


async def test_tenants_never_see_each_others_keys(service: StorageService, acme: TenantStorage) -> None:
    globex = service.tenant("globex")
    await acme.set_many({"shared/name": "acme's", "acme/only": 1})
    await globex.set("shared/name", "globex's")
    assert await acme.get("shared/name") == "acme's"
    assert await globex.get("shared/name") == "globex's"
    assert await globex.get("acme/only") is None
    assert await globex.get_many(["acme/only", "shared/name"]) == {"shared/name": "globex's"}
    assert await list_all(globex) == [("shared/name", "globex's")]
    assert await globex.delete("acme/only") is False
    assert await globex.delete_many(["acme/only", "shared/name"]) == 1
    assert service.snapshot("acme") == {"acme/only": 1, "shared/name": "acme's"}
    assert service.snapshot("globex") == {}
    assert service.tenants() == ["acme"]


async def test_similar_tenant_names_stay_apart(service: StorageService) -> None:
    await service.tenant("acme").set("k", 1)
    await service.tenant("acme2").set("k", 2)
    await service.tenant("acm").set("k", 3)
    assert service.snapshot("acme") == {"k": 1}
    assert (await service.tenant("acme").list()).items == [("k", 1)]
    assert (await service.tenant("acme2").list()).items == [("k", 2)]
    assert service.tenants() == ["acm", "acme", "acme2"]


# -- sync helpers ------------------------------------------------------------------------


async def test_seed_is_seen_by_the_server_handle(service: StorageService, clock: FrozenClock) -> None:
    service.seed("acme", {"notes/n-1": {"title": "A"}, "notes/n-2": {"title": "B"}})
    service.seed("acme", {"tmp/lock": True}, ttl=30)
    store = service.tenant("acme")
    assert await store.get("notes/n-1") == {"title": "A"}
    assert service.snapshot("acme") == {"notes/n-1": {"title": "A"}, "notes/n-2": {"title": "B"}, "tmp/lock": True}
    assert list(service.snapshot("acme")) == ["notes/n-1", "notes/n-2", "tmp/lock"]
    clock.advance(30)
    assert "tmp/lock" not in service.snapshot("acme")
    with pytest.raises(InvalidKeyError):
        service.seed("acme", {"notes/n-3": 1, "bad:key": 2})
    assert "notes/n-3" not in service.snapshot("acme")


async def test_purge_expired_drops_only_expired_entries(service: StorageService, clock: FrozenClock) -> None:
    service.seed("acme", {"a": 1, "b": 2}, ttl=5)
    service.seed("acme", {"c": 3})
    clock.advance(5)
    assert service.purge_expired() == 2
    assert service.purge_expired() == 0
    assert service.snapshot("acme") == {"c": 3}


def test_every_error_is_a_storage_error() -> None:
    for error in (
        InvalidKeyError,
        UnencodableValueError,
        ValueTooLargeError,
        InvalidCursorError,
        InvalidArgumentError,
        RequestCancelledError,
    ):
        assert issubclass(error, StorageError)


def test_service_refuses_a_bad_secret_or_cap() -> None:
    with pytest.raises(InvalidArgumentError, match="secret"):
        StorageService(secret=b"")
    with pytest.raises(InvalidArgumentError, match="max_value_bytes"):
        StorageService(max_value_bytes=0)


@pytest.mark.parametrize("damaged", ["1,2", "{", "", "[1]]"])
def test_snapshot_names_a_damaged_entry(service: StorageService, provider: StorageProvider, damaged: str) -> None:
    provider.set_many("acme", [("fine", "1", None), ("notes/broken", damaged, None), ("zzz", '"z"', None)])
    with pytest.raises(StorageError, match=r"'notes/broken' in tenant 'acme' is not valid JSON"):
        service.snapshot("acme")


def test_snapshot_decodes_many_entries_in_key_order(service: StorageService) -> None:
    mapping = {f"k/{i:05d}": {"i": i, "odd": bool(i % 2), "half": i / 2} for i in range(2000)}
    service.seed("acme", dict(reversed(mapping.items())))
    snapshot = service.snapshot("acme")
    assert list(snapshot) == sorted(mapping)
    assert snapshot == mapping


class HandWrittenClock:
    """A project's own clock: it only has now(), as the Clock protocol asks."""

    def __init__(self) -> None:
        self.moment = datetime(2026, 5, 1, tzinfo=UTC)

    def now(self) -> datetime:
        return self.moment


async def test_any_clock_with_now_drives_ttls(provider: StorageProvider) -> None:
    clock = HandWrittenClock()
    store = StorageService(provider, clock).tenant("acme")
    await store.set("k", 1, ttl=10)
    clock.moment += timedelta(seconds=9)
    assert await store.get("k") == 1
    clock.moment += timedelta(seconds=1)
    assert await store.get("k") is None


def test_a_clock_returning_naive_datetimes_is_refused(provider: StorageProvider) -> None:
    clock = HandWrittenClock()
    clock.moment = datetime(2026, 5, 1)
    with pytest.raises(InvalidArgumentError, match="naive"):
        StorageService(provider, clock).snapshot("acme")
