"""The writes no other writer can come between: `add`, `add_many`, `increment`, `update`, on every provider.

What they promise to callers at once is checked here with threads on one provider; with processes sharing one
SQLite file (and the `get`-then-`set` they replace losing writes under the same harness) in
tests/spawning/test_storage_atomic_processes.py.
"""

from __future__ import annotations

import asyncio
import sys
import threading
import time
from collections.abc import Awaitable, Callable, Coroutine
from typing import Any

import pytest

from mcpbdd.kit.clock import FrozenClock
from mcpbdd.storage import (
    InvalidArgumentError,
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


# -- add, add_many -----------------------------------------------------------------------


async def test_add_stores_only_into_an_absent_key(service: StorageService, acme: TenantStorage) -> None:
    assert await acme.add("notes/n-1", {"title": "first"}) is True
    assert await acme.add("notes/n-1", {"title": "second"}) is False
    assert service.snapshot("acme") == {"notes/n-1": {"title": "first"}}


async def test_an_expired_value_counts_as_absent_for_add(acme: TenantStorage, clock: FrozenClock) -> None:
    assert await acme.add("lock/report", "worker-1", ttl=30) is True
    clock.advance(29)
    assert await acme.add("lock/report", "worker-2", ttl=30) is False
    clock.advance(1)  # the first claim has now expired
    assert await acme.add("lock/report", "worker-2", ttl=30) is True
    assert await acme.get("lock/report") == "worker-2"
    clock.advance(30)
    assert await acme.get("lock/report") is None  # the new claim got its own TTL


async def test_add_many_is_all_or_nothing_and_names_the_taken_keys(
    service: StorageService, acme: TenantStorage
) -> None:
    await acme.set_many({"b": 2, "d": 4})
    assert await acme.add_many({"d": "new", "a": "new", "b": "new"}) == ["d", "b"]
    assert service.snapshot("acme") == {"b": 2, "d": 4}
    assert await acme.add_many({"a": 1, "c": 3}) == []
    assert service.snapshot("acme") == {"a": 1, "b": 2, "c": 3, "d": 4}
    assert await acme.add_many({}) == []


async def test_add_refuses_a_bad_key_or_value_before_writing(service: StorageService, acme: TenantStorage) -> None:
    with pytest.raises(InvalidKeyError, match="use cache/v1"):
        await acme.add("cache:v1", 1)
    with pytest.raises(InvalidKeyError):
        await acme.add_many({"fine": 1, "not fine": 2})
    with pytest.raises(InvalidArgumentError, match="ttl"):
        await acme.add("k", 1, ttl=0)
    assert service.snapshot("acme") == {}


async def test_add_is_scoped_to_its_tenant(service: StorageService, acme: TenantStorage) -> None:
    assert await acme.add("notes/n-1", "acme's") is True
    assert await service.tenant("globex").add("notes/n-1", "globex's") is True
    assert await service.tenant("globex").add_many({"notes/n-1": "again"}) == ["notes/n-1"]
    assert service.read("acme", "notes/n-1") == "acme's"


# -- increment ---------------------------------------------------------------------------


async def test_increment_counts_from_initial_and_returns_the_new_value(
    service: StorageService, acme: TenantStorage
) -> None:
    assert await acme.increment("meta/next") == 1
    assert await acme.increment("meta/next") == 2
    assert await acme.increment("meta/next", by=-5) == -3
    assert await acme.increment("meta/from-one", initial=1) == 2
    assert await service.tenant("globex").increment("meta/next") == 1  # each tenant its own counter
    assert service.snapshot("acme") == {"meta/from-one": 2, "meta/next": -3}


async def test_increment_continues_a_number_set_before(acme: TenantStorage) -> None:
    await acme.set("meta/next", 41)
    assert await acme.increment("meta/next", initial=1000) == 42


async def test_a_live_counter_keeps_its_expiry_and_an_expired_one_starts_again(
    acme: TenantStorage, clock: FrozenClock
) -> None:
    assert await acme.increment("calls/window", ttl=60) == 1
    clock.advance(50)
    assert await acme.increment("calls/window", ttl=60) == 2  # not pushed back to 60 s from now
    clock.advance(10)
    assert await acme.get("calls/window") is None
    assert await acme.increment("calls/window", ttl=60) == 1
    clock.advance(59)
    assert await acme.get("calls/window") == 1
    assert await acme.increment("forever") == 1
    clock.advance(10**9)
    assert await acme.get("forever") == 1


@pytest.mark.parametrize("stored", ["seven", 7.5, True, None, [1]])
async def test_increment_refuses_what_is_not_an_integer_and_leaves_it(
    service: StorageService, acme: TenantStorage, stored: Any
) -> None:
    await acme.set("meta/next", stored)
    with pytest.raises(InvalidArgumentError, match=r"cannot increment 'meta/next' in tenant 'acme': it holds .*not an"):
        await acme.increment("meta/next")
    assert service.snapshot("acme") == {"meta/next": stored}


@pytest.mark.parametrize(("by", "initial"), [(True, 0), (1.5, 0), ("1", 0), (1, None), (1, 2.0)])
async def test_increment_refuses_a_step_or_start_that_is_not_an_int(
    service: StorageService, acme: TenantStorage, by: Any, initial: Any
) -> None:
    with pytest.raises(InvalidArgumentError, match=r"increment's (by|initial) must be an int"):
        await acme.increment("meta/next", by=by, initial=initial)
    with pytest.raises(InvalidKeyError):
        await acme.increment("meta:next")
    assert service.snapshot("acme") == {}


# -- update ------------------------------------------------------------------------------


async def test_update_replaces_the_value_with_what_change_returns(service: StorageService, acme: TenantStorage) -> None:
    first = await acme.update("audit", lambda entries: [*entries, "one"], default=[])
    assert first == ["one"]
    first.append("mutating the returned copy changes nothing stored")
    assert await acme.update("audit", lambda entries: [*entries, "two"], default=[]) == ["one", "two"]
    seen: list[Any] = []

    def first_write(current: Any) -> int:
        seen.append(current)
        return 1

    await acme.update("fresh", first_write)
    assert seen == [None]  # no default: None
    assert service.snapshot("acme") == {"audit": ["one", "two"], "fresh": 1}


async def test_update_writes_nothing_when_change_raises_or_its_value_is_refused(acme: TenantStorage) -> None:
    service = StorageService(acme._provider, FrozenClock(), max_value_bytes=32)
    store = service.tenant("acme")
    await store.set("audit", ["kept"])

    def broken(_: Any) -> Any:
        raise RuntimeError("change failed")

    with pytest.raises(RuntimeError, match="change failed"):
        await store.update("audit", broken)
    with pytest.raises(ValueTooLargeError):
        await store.update("audit", lambda entries: [*entries, "x" * 64])
    with pytest.raises(UnencodableValueError, match="JSON cannot encode a value of type set"):
        await store.update("audit", lambda entries: {1, 2})
    assert service.snapshot("acme") == {"audit": ["kept"]}


async def test_a_change_reading_through_the_service_does_not_wait_for_itself(service: StorageService) -> None:
    store = service.tenant("acme")
    await store.set("notes/n-1", "first")
    # The change runs under the provider's write lock; reading the tenant there must not deadlock.
    assert await store.update("count", lambda _: len(service.snapshot("acme"))) == 1


async def test_increment_names_a_damaged_counter_and_leaves_it(provider: StorageProvider, clock: FrozenClock) -> None:
    provider.set_many("acme", [("meta/next", "{not json", None)])
    store = StorageService(provider, clock).tenant("acme")
    with pytest.raises(StorageError, match=r"the stored value of 'meta/next' in tenant 'acme' is not valid JSON"):
        await store.increment("meta/next")
    with pytest.raises(StorageError, match="not valid JSON"):
        await store.update("meta/next", lambda value: value)
    assert provider.get("acme", "meta/next", clock.timestamp()) == "{not json"


async def test_update_sets_the_ttl_as_set_does_and_sees_expired_values_as_absent(
    acme: TenantStorage, clock: FrozenClock
) -> None:
    await acme.set("session", ["old"], ttl=10)
    clock.advance(10)
    assert await acme.update("session", lambda v: [*v, "new"], default=[], ttl=5) == ["new"]
    clock.advance(4)
    assert await acme.get("session") == ["new"]
    clock.advance(1)
    assert await acme.get("session") is None


# -- cancellation ------------------------------------------------------------------------

ATOMIC = [
    pytest.param(lambda s: s.add("new", 1), id="add"),
    pytest.param(lambda s: s.add_many({"new": 1}), id="add_many"),
    pytest.param(lambda s: s.increment("count"), id="increment"),
    pytest.param(lambda s: s.update("k", lambda v: "overwritten"), id="update"),
]


@pytest.mark.parametrize("operation", ATOMIC)
async def test_a_cancelled_request_cannot_add_increment_or_update(
    provider: StorageProvider, clock: FrozenClock, operation: Callable[[TenantStorage], Awaitable[Any]]
) -> None:
    service = StorageService(provider, clock)
    state = {"cancelled": True}
    store = service.tenant("acme", cancelled=lambda: state["cancelled"])
    service.seed("acme", {"k": "original"})
    with pytest.raises(RequestCancelledError, match="tenant 'acme' was cancelled"):
        await operation(store)
    assert service.snapshot("acme") == {"k": "original"}
    state["cancelled"] = False
    await operation(store)
    assert service.snapshot("acme") != {"k": "original"}  # the same call writes once the request is live


# -- callers at once (threads on one provider) -------------------------------------------

THREADS = 8
EACH = 100


def _at_once(work: Callable[[int], Coroutine[Any, Any, list[Any]]]) -> list[Any]:
    """Run `work(thread number)` on THREADS threads released together; every result, in one list."""
    start = threading.Barrier(THREADS)
    results: list[Any] = []
    errors: list[str] = []

    def run(number: int) -> None:
        start.wait()
        try:
            results.extend(asyncio.run(work(number)))
        except BaseException as exc:
            errors.append(f"thread {number}: {exc!r}")

    threads = [threading.Thread(target=run, args=(n,)) for n in range(THREADS)]
    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)  # switch threads as often as the interpreter can: a gap in a lock shows
    try:
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=60)
    finally:
        sys.setswitchinterval(interval)
    assert not errors, errors
    return results


def test_threads_incrementing_at_once_each_get_a_different_number(service: StorageService) -> None:
    store = service.tenant("acme")

    async def count(_: int) -> list[int]:
        return [await store.increment("meta/next") for _ in range(EACH)]

    numbers = _at_once(count)
    assert sorted(numbers) == list(range(1, THREADS * EACH + 1))
    assert service.read("acme", "meta/next") == THREADS * EACH


def test_threads_adding_the_same_keys_at_once_store_each_key_once(service: StorageService) -> None:
    store = service.tenant("acme")

    async def claim(number: int) -> list[str]:
        return [f"slot/{i}" for i in range(EACH) if await store.add(f"slot/{i}", number)]

    claimed = _at_once(claim)
    assert sorted(claimed) == sorted(f"slot/{i}" for i in range(EACH))  # each slot claimed by exactly one thread
    assert len(service.snapshot("acme")) == EACH


def _appending(entry: str) -> Callable[[list[str]], list[str]]:
    def append(entries: list[str]) -> list[str]:
        time.sleep(0)  # hand the interpreter to another thread mid-change: only the provider's lock keeps it out
        return [*entries, entry]

    return append


def test_threads_appending_at_once_lose_no_entry(service: StorageService) -> None:
    store = service.tenant("acme")

    async def append(number: int) -> list[None]:
        for i in range(EACH // 4):
            await store.update("audit", _appending(f"{number}-{i}"), default=[])
        return []

    _at_once(append)
    assert sorted(service.read("acme", "audit")) == sorted(f"{n}-{i}" for n in range(THREADS) for i in range(EACH // 4))
