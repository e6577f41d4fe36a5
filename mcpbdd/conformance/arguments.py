"""The arguments the pack's calls send, all derived from a tool's own input schema.

Arguments that break it (a required key left out, a property of the wrong type: what a server must refuse), and
arguments it accepts that are likely to fail inside the tool (unknown ids, empty strings, numeric boundaries:
where a server's own code fails for real, and where its error texts and channels show).
"""

from __future__ import annotations

import uuid
from typing import Any

from mcp_types import Tool

from mcpbdd.checks.schema import schema_problems, violations
from mcpbdd.conformance.probe import minimal_arguments

__all__ = ["PER_TOOL", "failing_arguments", "schema_breaking_arguments", "unknown_id"]


def schema_breaking_arguments(tool: Tool) -> dict[str, Any] | None:
    """Arguments the tool's input schema refuses (a required key left out, else a property's wrong type), or None."""
    schema = tool.input_schema
    if schema_problems(schema):
        return None
    valid = minimal_arguments(tool)
    required = [name for name in schema.get("required", []) if isinstance(name, str)]
    if required:
        broken = {k: v for k, v in valid.items() if k != required[0]}
        if violations(schema, broken):
            return broken
    for name, prop in (schema.get("properties") or {}).items():
        for wrong in ({"mcpbdd": "not this"}, 12345, "not this"):
            candidate = {**valid, name: wrong}
            if isinstance(prop, dict) and violations(schema, candidate):
                return candidate
    return None


PER_TOOL = 4
"""Well-formed calls per tool at most (the smallest, unknown ids, empty strings, boundaries)."""
_BOUNDARIES = (-1, 0, 2**31)


def unknown_id() -> str:
    return f"mcpbdd-no-such-id-{uuid.uuid4().hex[:12]}"


def _valid(tool: Tool, arguments: dict[str, Any]) -> bool:
    return not violations(tool.input_schema, arguments)


def failing_arguments(tool: Tool) -> list[dict[str, Any]]:
    """Arguments the tool's schema accepts that are likely to fail inside it: the smallest, every string an
    unknown id, every string empty, every integer at a boundary (each only when the schema accepts it)."""
    schema = tool.input_schema
    if schema_problems(schema):
        return []
    base = minimal_arguments(tool)
    properties = {k: v for k, v in (schema.get("properties") or {}).items() if isinstance(v, dict)}
    strings = [name for name, prop in properties.items() if prop.get("type") == "string" or "anyOf" in prop]
    integers = [name for name, prop in properties.items() if prop.get("type") in ("integer", "number")]
    candidates = [base]
    unknown = unknown_id()
    candidates.append({**base, **{name: unknown for name in strings}})
    candidates.append({**base, **{name: "" for name in strings}})
    for bound in _BOUNDARIES:
        candidates.append({**base, **{name: bound for name in integers}})
    found: list[dict[str, Any]] = []
    for candidate in candidates:
        if candidate not in found and _valid(tool, candidate):
            found.append(candidate)
    return found[:PER_TOOL]
