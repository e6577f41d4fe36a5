"""Random operation sequences run against both providers and a plain-dict model.

After every step, each tenant's snapshot must be identical on the in-memory provider, on
the SQLite provider and in the model, and every read must return the model's answer. A
backend that forgets an expiry filter, miscounts a delete or half-applies a refused batch
diverges from the others within a few steps.
"""

from __future__ import annotations

import functools
import shutil
import tempfile
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import anyio
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, rule

from mcpbdd.kit.clock import FrozenClock
from mcpbdd.storage import InMemoryProvider, InvalidKeyError, SQLiteProvider, StorageService, TenantStorage

TENANTS = st.sampled_from(["acme", "globex", "initech"])
KEYS = st.sampled_from(["a", "a/1", "a/2", "a/b/c", "b", "b.x", "c-1", "z_9"])
BAD_KEYS = st.sampled_from(["bad:key", "../up", "with space"])
JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers(-1000, 1000) | st.floats(allow_nan=False, allow_infinity=False) | st.text(),
    lambda children: st.lists(children, max_size=3) | st.dictionaries(st.text(max_size=4), children, max_size=3),
    max_leaves=6,
)
TTLS = st.none() | st.integers(1, 120)


def _run(operation: Callable[[], Awaitable[Any]]) -> Any:
    async def main() -> Any:
        return await operation()

    return anyio.run(main)


class StorageMachine(RuleBasedStateMachine):
    def __init__(self) -> None:
        super().__init__()
        self.directory = Path(tempfile.mkdtemp(prefix="mcpbdd-stateful-"))
        self.clock = FrozenClock()
        self.services = [
            StorageService(InMemoryProvider(), self.clock, secret=b"s"),
            StorageService(SQLiteProvider(self.directory / "storage.db"), self.clock, secret=b"s"),
        ]
        self.model: dict[str, dict[str, tuple[Any, float | None]]] = {}

    def teardown(self) -> None:
        for service in self.services:
            service.close()
        shutil.rmtree(self.directory, ignore_errors=True)

    # -- the model -----------------------------------------------------------------------

    def _now(self) -> float:
        return self.clock.now().timestamp()

    def _live(self, tenant: str) -> dict[str, Any]:
        now = self._now()
        entries = self.model.get(tenant, {})
        return {k: v for k, (v, exp) in sorted(entries.items()) if exp is None or exp > now}

    def _model_set(self, tenant: str, mapping: dict[str, Any], ttl: int | None) -> None:
        expires_at = None if ttl is None else self._now() + ttl
        self.model.setdefault(tenant, {}).update({k: (v, expires_at) for k, v in mapping.items()})

    def _model_delete(self, tenant: str, keys: list[str]) -> int:
        live = self._live(tenant)
        entries = self.model.get(tenant, {})
        for key in keys:
            entries.pop(key, None)
        return len(set(keys) & live.keys())

    def _on_both(self, tenant: str, call: Callable[[TenantStorage], Awaitable[Any]]) -> list[Any]:
        return [_run(functools.partial(call, service.tenant(tenant))) for service in self.services]

    # -- operations ----------------------------------------------------------------------

    @rule(tenant=TENANTS, key=KEYS, value=JSON_VALUES, ttl=TTLS)
    def set(self, tenant: str, key: str, value: Any, ttl: int | None) -> None:
        self._on_both(tenant, lambda store: store.set(key, value, ttl=ttl))
        self._model_set(tenant, {key: value}, ttl)

    @rule(tenant=TENANTS, key=KEYS)
    def delete(self, tenant: str, key: str) -> None:
        expected = self._model_delete(tenant, [key]) == 1
        assert self._on_both(tenant, lambda store: store.delete(key)) == [expected, expected]

    @rule(tenant=TENANTS, mapping=st.dictionaries(KEYS, JSON_VALUES, max_size=5), ttl=TTLS)
    def set_many(self, tenant: str, mapping: dict[str, Any], ttl: int | None) -> None:
        self._on_both(tenant, lambda store: store.set_many(mapping, ttl=ttl))
        self._model_set(tenant, mapping, ttl)

    @rule(tenant=TENANTS, mapping=st.dictionaries(KEYS, JSON_VALUES, max_size=4), bad=BAD_KEYS)
    def refused_set_many(self, tenant: str, mapping: dict[str, Any], bad: str) -> None:
        for service in self.services:
            try:
                _run(functools.partial(service.tenant(tenant).set_many, {**mapping, bad: 1}))
            except InvalidKeyError:
                continue
            raise AssertionError(f"set_many with {bad!r} was accepted")

    @rule(tenant=TENANTS, keys=st.lists(KEYS, max_size=5))
    def delete_many(self, tenant: str, keys: list[str]) -> None:
        expected = self._model_delete(tenant, keys)
        assert self._on_both(tenant, lambda store: store.delete_many(keys)) == [expected, expected]

    @rule(seconds=st.integers(1, 90))
    def advance_clock(self, seconds: int) -> None:
        self.clock.advance(seconds)

    @rule(tenant=TENANTS, keys=st.lists(KEYS, max_size=4))
    def get_many(self, tenant: str, keys: list[str]) -> None:
        live = self._live(tenant)
        expected = {key: live[key] for key in keys if key in live}
        assert self._on_both(tenant, lambda store: store.get_many(keys)) == [expected, expected]

    @rule(tenant=TENANTS, prefix=st.sampled_from(["", "a", "a/", "b", "q"]), limit=st.integers(1, 3))
    def list_in_pages(self, tenant: str, prefix: str, limit: int) -> None:
        expected = [(k, v) for k, v in self._live(tenant).items() if k.startswith(prefix)]

        async def walk(store: TenantStorage) -> list[tuple[str, Any]]:
            items, cursor = [], None
            for _ in range(50):  # there are only 8 possible keys: more pages means the cursor is stuck
                page = await store.list(prefix, cursor=cursor, limit=limit)
                items += page.items
                if page.next_cursor is None:
                    return items
                cursor = page.next_cursor
            raise AssertionError(f"the listing of {prefix!r} did not end")

        assert self._on_both(tenant, walk) == [expected, expected]

    # -- what must always hold -----------------------------------------------------------

    @invariant()
    def snapshots_agree(self) -> None:
        for tenant in ["acme", "globex", "initech"]:
            expected = self._live(tenant)
            for service in self.services:
                assert service.snapshot(tenant) == expected, (service.provider, tenant)
        tenants = sorted(t for t in self.model if self._live(t))
        assert [service.tenants() for service in self.services] == [tenants, tenants]


StorageMachine.TestCase.settings = settings(
    max_examples=60, stateful_step_count=30, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
TestStorageProvidersAgree = StorageMachine.TestCase
