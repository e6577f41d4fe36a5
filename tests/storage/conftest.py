"""Fixtures for the storage tests: every provider-facing test runs once per provider."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from mcpbdd.kit.clock import FrozenClock
from mcpbdd.storage import InMemoryProvider, SQLiteProvider, StorageProvider, StorageService, TenantStorage

SECRET = b"storage-test-secret"


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def make_provider(kind: str, directory: Path) -> StorageProvider:
    """A fresh provider of `kind`; SQLite gets a real file in `directory`."""
    if kind == "memory":
        return InMemoryProvider()
    if kind == "sqlite":
        return SQLiteProvider(directory / "storage.db")
    raise ValueError(kind)


@pytest.fixture(params=["memory", "sqlite"])
def provider(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[StorageProvider]:
    store = make_provider(request.param, tmp_path)
    yield store
    store.close()


@pytest.fixture
def clock() -> FrozenClock:
    return FrozenClock()


@pytest.fixture
def secret() -> bytes:
    return SECRET


@pytest.fixture
def service(provider: StorageProvider, clock: FrozenClock, secret: bytes) -> StorageService:
    return StorageService(provider, clock, secret=secret)


@pytest.fixture
def acme(service: StorageService) -> TenantStorage:
    return service.tenant("acme")
