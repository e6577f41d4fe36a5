"""Tenant-scoped key/value storage for MCP servers, and the tools scenarios use to seed and inspect it.

    service = StorageService(SQLiteProvider("state.db"), FrozenClock())
    notes = service.tenant("acme")
    await notes.set("notes/n-1", {"title": "Hello"}, ttl=3600)
    page = await notes.list("notes/")

The rules every provider keeps (keys, JSON values, TTLs against the injected clock, signed
tenant-bound cursors) are in docs/reference/storage.md; the shared provider test suite under
tests/storage/ checks them.
"""

from mcpbdd_kit.storage.adapter import MISSING, JsonFileAdapter, ServiceAdapter, StorageAdapter
from mcpbdd_kit.storage.codec import DEFAULT_MAX_VALUE_BYTES
from mcpbdd_kit.storage.diff import StorageDiff, diff, same_json
from mcpbdd_kit.storage.errors import (
    InvalidArgumentError,
    InvalidCursorError,
    InvalidKeyError,
    RequestCancelledError,
    StorageError,
    UnencodableValueError,
    ValueTooLargeError,
)
from mcpbdd_kit.storage.keys import MAX_KEY_LENGTH, MAX_TENANT_LENGTH, validate_key, validate_prefix, validate_tenant
from mcpbdd_kit.storage.providers import Change, InMemoryProvider, SQLiteProvider, StorageProvider
from mcpbdd_kit.storage.service import MAX_LIST_LIMIT, Page, StorageService, TenantStorage, Ttl

__all__ = [
    "DEFAULT_MAX_VALUE_BYTES",
    "MAX_KEY_LENGTH",
    "MAX_LIST_LIMIT",
    "MAX_TENANT_LENGTH",
    "MISSING",
    "Change",
    "InMemoryProvider",
    "InvalidArgumentError",
    "InvalidCursorError",
    "InvalidKeyError",
    "JsonFileAdapter",
    "Page",
    "RequestCancelledError",
    "SQLiteProvider",
    "ServiceAdapter",
    "StorageAdapter",
    "StorageDiff",
    "StorageError",
    "StorageProvider",
    "StorageService",
    "TenantStorage",
    "Ttl",
    "UnencodableValueError",
    "ValueTooLargeError",
    "diff",
    "same_json",
    "validate_key",
    "validate_prefix",
    "validate_tenant",
]
