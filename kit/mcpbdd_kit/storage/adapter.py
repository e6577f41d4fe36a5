"""Adapters: let the storage steps seed and inspect state a server keeps somewhere else.

The storage steps ("Given the storage of tenant X holds", "Then ... is unchanged") talk
to a `StorageAdapter`, not to `StorageService` directly. A server built on
`StorageService` uses `ServiceAdapter`; a server with its own database writes four small
methods, and every storage step works against it unchanged. `JsonFileAdapter` is the
worked example from the docs: a server whose state is one JSON file.
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

from mcpbdd_kit._text import MISSING
from mcpbdd_kit.storage.keys import validate_key, validate_tenant
from mcpbdd_kit.storage.service import StorageService, Ttl

__all__ = ["MISSING", "JsonFileAdapter", "ServiceAdapter", "StorageAdapter"]


@runtime_checkable
class StorageAdapter(Protocol):
    """The four operations the storage steps need from wherever a server keeps its state."""

    def seed(self, tenant: str, mapping: Mapping[str, Any]) -> None:
        """Write these entries into the tenant's state before the scenario's calls."""
        ...

    def read(self, tenant: str, key: str) -> Any:
        """The value stored under `key` (as JSON-shaped data), or `MISSING`."""
        ...

    def snapshot(self, tenant: str) -> dict[str, Any]:
        """Every entry of the tenant, as JSON-shaped data (fresh objects)."""
        ...

    def tenants(self) -> list[str]:
        """Tenants that hold at least one entry."""
        ...


class ServiceAdapter:
    """The adapter for servers that use `StorageService` (what mcpbdd wires by default)."""

    def __init__(self, service: StorageService) -> None:
        self.service = service

    def seed(self, tenant: str, mapping: Mapping[str, Any], ttl: Ttl = None) -> None:
        """Seed entries; `ttl` is an extra this adapter supports (the step's optional ttl column)."""
        self.service.seed(tenant, mapping, ttl)

    def read(self, tenant: str, key: str) -> Any:
        return self.service.read(tenant, key, MISSING)

    def snapshot(self, tenant: str) -> dict[str, Any]:
        return self.service.snapshot(tenant)

    def tenants(self) -> list[str]:
        return self.service.tenants()


class JsonFileAdapter:
    """A server whose whole state is one JSON file `{tenant: {key: value}}`.

    The docs' worked example of a foreign-storage adapter. Writes go to a temporary file
    that replaces the real one, so a server reading the file never sees half of it.
    """

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(path)

    def _load(self) -> dict[str, dict[str, Any]]:
        if not self.path.exists():
            return {}
        data = json.loads(self.path.read_text(encoding="utf-8") or "{}")
        if not isinstance(data, dict) or not all(isinstance(v, dict) for v in data.values()):
            raise ValueError(f"{self.path} must hold a JSON object of tenant -> {{key: value}}")
        return data

    def _save(self, data: dict[str, dict[str, Any]]) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=self.path.name, suffix=".tmp", dir=self.path.parent)
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as handle:
                json.dump(data, handle, indent=2, sort_keys=True, allow_nan=False)
            os.replace(tmp, self.path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise

    def seed(self, tenant: str, mapping: Mapping[str, Any]) -> None:
        validate_tenant(tenant)
        keys = [validate_key(key) for key in mapping]
        # Round-trip through JSON first, so an unencodable value fails before the file changes.
        encoded = json.loads(json.dumps({key: mapping[key] for key in keys}, allow_nan=False))
        data = self._load()
        data.setdefault(tenant, {}).update(encoded)
        self._save(data)

    def read(self, tenant: str, key: str) -> Any:
        return self._load().get(tenant, {}).get(key, MISSING)

    def snapshot(self, tenant: str) -> dict[str, Any]:
        entries = self._load().get(tenant, {})
        return {key: entries[key] for key in sorted(entries)}

    def tenants(self) -> list[str]:
        return sorted(tenant for tenant, entries in self._load().items() if entries)
