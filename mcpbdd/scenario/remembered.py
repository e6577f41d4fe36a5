"""Values a scenario takes from one result and sends in a later call (a created id, a cursor).

`And the result's "$.id" is remembered as "note"` stores the value at that JSON path of the
last result under a name; later arguments write `"${note}"`. A string that is exactly
`${name}` becomes the remembered value with its JSON type; inside a longer string (or a
resource URI) it is replaced by the value's text. `${...}` does not clash with a Scenario
Outline's `<column>`, which behave fills in before the step runs, so both work together.

Paths are the ones mcpbdd prints in mismatches: `$`, `$.id`, `$.notes[0].id`, `$["a key"]`.
"""

from __future__ import annotations

import json
import re
from typing import Any

_TOKEN = re.compile(r"\.([A-Za-z_][A-Za-z0-9_]*)|\[(\d+)\]|\[(\"(?:[^\"\\]|\\.)*\")\]")
_REFERENCE = re.compile(r"\$\{([^{}]+)\}")


def path_steps(path: str) -> list[str | int]:
    """`$.notes[0].id` -> `["notes", 0, "id"]`; a ValueError names what is wrong with the path."""
    if not path.startswith("$"):
        raise ValueError(f"the JSON path {path!r} must start with $ (for example $.id or $.notes[0].id)")
    steps: list[str | int] = []
    position = 1
    while position < len(path):
        match = _TOKEN.match(path, position)
        if match is None:
            raise ValueError(f"the JSON path {path!r} cannot be read at {path[position:]!r}")
        name, index, quoted = match.groups()
        steps.append(name if name is not None else int(index) if index is not None else json.loads(quoted))
        position = match.end()
    return steps


def lookup(document: Any, path: str) -> Any:
    """The value at `path` in `document`; a LookupError names the path and the step where it broke."""
    value = document
    walked = "$"
    for step in path_steps(path):
        if isinstance(step, int):
            if not isinstance(value, list) or step >= len(value):
                raise LookupError(f"the result has no {walked}[{step}] (found {_shape(value)} at {walked})")
            value = value[step]
            walked = f"{walked}[{step}]"
        else:
            if not isinstance(value, dict) or step not in value:
                keys = ", ".join(sorted(value)) if isinstance(value, dict) else _shape(value)
                raise LookupError(f"the result has no {walked}.{step} (at {walked}: {keys})")
            value = value[step]
            walked = f"{walked}.{step}"
    return value


def _shape(value: Any) -> str:
    return type(value).__name__ if not isinstance(value, list) else f"a list of {len(value)}"


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


__all__ = ["Remembered", "lookup", "path_steps"]
