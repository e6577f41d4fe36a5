"""JSON paths as mcpbdd prints them in mismatches: `$`, `$.id`, `$.notes[0].id`, `$["a key"]`.

Shared by the checks that read one value of a result (`Then the result's "$.count" is 2`) and
the values a scenario remembers for later calls (`mcpbdd.scenario.remembered`), so both read a
path the same way and a mistake in one is named the same way.
"""

from __future__ import annotations

import json
import re
from typing import Any

_TOKEN = re.compile(r"\.([A-Za-z_][A-Za-z0-9_]*)|\[(\d+)\]|\[(\"(?:[^\"\\]|\\.)*\")\]")


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


__all__ = ["lookup", "path_steps"]
