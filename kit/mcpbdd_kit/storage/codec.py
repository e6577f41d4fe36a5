"""JSON encoding of stored values.

Storage holds JSON text, never Python objects, for two reasons: a value read back is a
fresh object (mutating it cannot change what is stored, and nothing passes on identity
between a scenario and the server), and the in-memory provider behaves exactly like the
SQLite one, so a test that passes on one cannot fail on the other because of aliasing.

Datetimes and dates are written as ISO strings and pydantic models as their JSON dump;
a datetime therefore reads back as a string, as it would from any real store. Anything
else JSON cannot represent (sets, bytes, arbitrary objects, NaN, infinity) is refused with
the key and the type named, instead of being stringified into something unreadable.
"""

from __future__ import annotations

import json
from datetime import date, datetime, time
from typing import Any

from pydantic import BaseModel

from mcpbdd_kit.storage.errors import UnencodableValueError, ValueTooLargeError

__all__ = ["DEFAULT_MAX_VALUE_BYTES", "decode", "encode"]

DEFAULT_MAX_VALUE_BYTES = 1_048_576
"""1 MiB: large enough for any sensible record, small enough to catch a runaway blob."""


class _Unencodable(TypeError):
    """Raised inside the encoder to carry the offending type out of json's machinery."""

    def __init__(self, value: object) -> None:
        super().__init__(type(value).__name__)
        self.type_name = type(value).__qualname__


def _default(value: object) -> Any:
    if isinstance(value, datetime | date | time):
        return value.isoformat()
    if isinstance(value, BaseModel):
        return value.model_dump(mode="json")
    raise _Unencodable(value)


# One encoder built once: json.dumps() with non-default options builds a new one per call.
# ensure_ascii (the default) keeps the text ASCII, so len(text) is its size in bytes.
_ENCODER = json.JSONEncoder(default=_default, allow_nan=False, separators=(",", ":"))
_encode = _ENCODER.encode
decode = json.loads
"""Decode stored JSON text into a fresh Python object."""


def encode(key: str, value: Any, max_bytes: int = DEFAULT_MAX_VALUE_BYTES) -> str:
    """Encode `value` (stored under `key`) as compact JSON text, or refuse it with a clear error."""
    try:
        text = _encode(value)
    except _Unencodable as exc:
        raise UnencodableValueError(
            f"the value for key {key!r} cannot be stored: JSON cannot encode a value of type {exc.type_name} "
            "(store lists, dicts, strings, numbers, booleans, None, datetimes or pydantic models)",
            key=key,
            type_name=exc.type_name,
        ) from None
    except ValueError as exc:
        type_name = "float" if "float" in str(exc) else type(value).__qualname__
        detail = "NaN and infinity have no JSON form" if type_name == "float" else str(exc)
        raise UnencodableValueError(
            f"the value for key {key!r} cannot be stored: {detail} ({type_name})", key=key, type_name=type_name
        ) from None
    except (TypeError, RecursionError) as exc:
        # e.g. a dict whose keys are tuples: json reports it as a TypeError of its own.
        type_name = type(value).__qualname__
        raise UnencodableValueError(
            f"the value for key {key!r} cannot be stored as JSON ({type_name}): {exc}", key=key, type_name=type_name
        ) from None
    if len(text) > max_bytes:
        raise ValueTooLargeError(
            f"the value for key {key!r} is {len(text)} bytes of JSON, over the limit of {max_bytes} bytes",
            key=key,
            size=len(text),
            limit=max_bytes,
        )
    return text
