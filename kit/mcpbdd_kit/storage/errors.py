"""The storage errors: one family, so callers can catch `StorageError` and nothing else.

Each refusal is raised before anything is written and says what was wrong and how to fix
it, because the person reading it is usually a product owner looking at a failed scenario,
not the author of the storage layer.
"""

from __future__ import annotations

__all__ = [
    "InvalidArgumentError",
    "InvalidCursorError",
    "InvalidKeyError",
    "RequestCancelledError",
    "StorageError",
    "UnencodableValueError",
    "ValueTooLargeError",
]


class StorageError(Exception):
    """Base of every error the storage layer raises on purpose."""


class InvalidKeyError(StorageError, ValueError):
    """A key, prefix or tenant id broke a naming rule; nothing was read or written."""

    def __init__(self, message: str, *, key: object, rule: str) -> None:
        super().__init__(message)
        self.key = key
        self.rule = rule


class UnencodableValueError(StorageError, ValueError):
    """A value JSON cannot represent (a set, bytes, an object, NaN); nothing was written."""

    def __init__(self, message: str, *, key: str, type_name: str) -> None:
        super().__init__(message)
        self.key = key
        self.type_name = type_name


class ValueTooLargeError(StorageError, ValueError):
    """An encoded value is over the service's size cap; nothing was written."""

    def __init__(self, message: str, *, key: str, size: int, limit: int) -> None:
        super().__init__(message)
        self.key = key
        self.size = size
        self.limit = limit


class InvalidCursorError(StorageError, ValueError):
    """A listing cursor was tampered with, issued elsewhere, or bound to another listing."""


class InvalidArgumentError(StorageError, ValueError):
    """A TTL, limit or argument shape that the storage API does not accept."""


class RequestCancelledError(StorageError):
    """The request that owns this storage handle was cancelled: it may no longer read or write."""
