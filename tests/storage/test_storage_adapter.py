"""Storage adapters: the same four operations over StorageService and over a foreign JSON file."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from mcpbdd.kit.clock import FrozenClock
from mcpbdd.storage import (
    MISSING,
    InvalidKeyError,
    JsonFileAdapter,
    ServiceAdapter,
    StorageAdapter,
    StorageService,
    diff,
)


@pytest.fixture(params=["service", "json-file"])
def adapter(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[StorageAdapter]:
    if request.param == "service":
        service = StorageService(clock=FrozenClock())
        yield ServiceAdapter(service)
        service.close()
    else:
        yield JsonFileAdapter(tmp_path / "state.json")


def test_adapters_satisfy_the_protocol(adapter: StorageAdapter) -> None:
    assert isinstance(adapter, StorageAdapter)


def test_seed_read_snapshot_and_tenants(adapter: StorageAdapter) -> None:
    assert adapter.tenants() == []
    assert adapter.snapshot("acme") == {}
    adapter.seed("acme", {"notes/n-2": {"title": "B"}, "notes/n-1": {"title": "A"}, "nothing": None})
    adapter.seed("globex", {"notes/n-1": {"title": "G"}})
    assert adapter.read("acme", "notes/n-1") == {"title": "A"}
    assert adapter.read("acme", "nothing") is None
    assert adapter.read("acme", "absent") is MISSING
    assert adapter.read("initech", "notes/n-1") is MISSING
    assert list(adapter.snapshot("acme")) == ["notes/n-1", "notes/n-2", "nothing"]
    assert adapter.snapshot("globex") == {"notes/n-1": {"title": "G"}}
    assert adapter.tenants() == ["acme", "globex"]


def test_snapshots_are_fresh_and_diffable(adapter: StorageAdapter) -> None:
    adapter.seed("acme", {"k": {"tags": ["a"]}})
    before = adapter.snapshot("acme")
    before["k"]["tags"].append("mutated")
    assert adapter.snapshot("acme") == {"k": {"tags": ["a"]}}
    adapter.seed("acme", {"k": {"tags": ["b"]}, "new": 1})
    result = diff({"k": {"tags": ["a"]}}, adapter.snapshot("acme"))
    assert result.added == {"new": 1}
    assert result.changed == {"k": ({"tags": ["a"]}, {"tags": ["b"]})}


def test_seed_refuses_bad_keys_and_values_without_writing(adapter: StorageAdapter) -> None:
    adapter.seed("acme", {"kept": 1})
    with pytest.raises(InvalidKeyError):
        adapter.seed("acme", {"fine": 1, "bad:key": 2})
    with pytest.raises(ValueError):
        adapter.seed("acme", {"fine": 1, "nan": float("nan")})
    with pytest.raises(InvalidKeyError):
        adapter.seed("bad tenant", {"fine": 1})
    assert adapter.snapshot("acme") == {"kept": 1}


def test_service_adapter_seeds_with_a_ttl() -> None:
    clock = FrozenClock()
    adapter = ServiceAdapter(StorageService(clock=clock))
    adapter.seed("acme", {"lock": True}, ttl=30)
    assert adapter.read("acme", "lock") is True
    clock.advance(30)
    assert adapter.read("acme", "lock") is MISSING
    assert adapter.tenants() == []


def test_json_file_adapter_sees_what_the_server_wrote(tmp_path: Path) -> None:
    path = tmp_path / "state.json"
    path.write_text(json.dumps({"acme": {"notes/n-1": {"title": "by the server"}}, "empty": {}}))
    adapter = JsonFileAdapter(path)
    assert adapter.read("acme", "notes/n-1") == {"title": "by the server"}
    assert adapter.tenants() == ["acme"]
    adapter.seed("acme", {"notes/n-2": {"title": "seeded"}})
    assert json.loads(path.read_text())["acme"] == {
        "notes/n-1": {"title": "by the server"},
        "notes/n-2": {"title": "seeded"},
    }


def test_missing_is_falsy_and_unique() -> None:
    assert not MISSING
    assert repr(MISSING) == "MISSING"
    assert type(MISSING)() is MISSING
