"""Values a scenario takes from one result and sends in a later call (a created id, a cursor).

`And the result's "$.id" is remembered as "note"` stores the value at that JSON path of the
last result under a name; later arguments write `"${note}"`. A string that is exactly
`${name}` becomes the remembered value with its JSON type; inside a longer string (a
resource URI, a storage key such as `notes/${note}`) it is replaced by the value's text. The
storage steps fill keys, prefixes, seeded and expected values the same way. `${...}` does not clash with a Scenario
Outline's `<column>`, which behave fills in before the step runs, so both work together.

Paths are the ones mcpbdd prints in mismatches: `$`, `$.id`, `$.notes[0].id`, `$["a key"]`.
"""

from __future__ import annotations

import json
import re
from typing import Any

from mcpbdd.model.paths import lookup

_REFERENCE = re.compile(r"\$\{([^{}]+)\}")


class Remembered:
    """One scenario's remembered values, by name."""

    def __init__(self) -> None:
        self.values: dict[str, Any] = {}

    def remember(self, name: str, document: Any, path: str) -> Any:
        if document is None:
            raise LookupError(f"the last result has no JSON to take {path} from (no structured content)")
        value = lookup(document, path)
        self.values[name] = value
        return value

    def fill(self, value: Any) -> Any:
        """`value` with every `${name}` replaced (recursively through objects and lists)."""
        if not self.values and not _mentions_reference(value):
            return value
        if isinstance(value, dict):
            return {key: self.fill(item) for key, item in value.items()}
        if isinstance(value, list):
            return [self.fill(item) for item in value]
        if isinstance(value, str):
            whole = _REFERENCE.fullmatch(value)
            if whole is not None:
                return self._value(whole.group(1))
            return _REFERENCE.sub(lambda m: _text(self._value(m.group(1))), value)
        return value

    def _value(self, name: str) -> Any:
        if name not in self.values:
            known = ", ".join(sorted(self.values)) or "none yet"
            raise LookupError(
                f"nothing is remembered as {name!r} (remembered: {known}); "
                f'add: And the result\'s "$.id" is remembered as "{name}" after the call that returns it'
            )
        return self.values[name]


def _mentions_reference(value: Any) -> bool:
    return "${" in json.dumps(value, default=str)


def _text(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value)


__all__ = ["Remembered"]
