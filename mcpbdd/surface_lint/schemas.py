"""Input schemas that no value satisfies: every call refused, whatever a model sends.

Only contradictions that can be told for sure from the schema alone are named (an empty enum, bounds
the wrong way round, an enum none of whose values has the declared type, a required argument the
schema forbids, arguments that are not an object). A schema mcpbdd cannot judge is left alone: this
rule never guesses.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

__all__ = ["contradictions"]

_JSON_TYPES = {
    "string": lambda v: isinstance(v, str),
    "integer": lambda v: isinstance(v, int) and not isinstance(v, bool),
    "number": lambda v: isinstance(v, int | float) and not isinstance(v, bool),
    "boolean": lambda v: isinstance(v, bool),
    "null": lambda v: v is None,
    "array": lambda v: isinstance(v, list),
    "object": lambda v: isinstance(v, dict),
}
_BOUNDS = (
    ("minimum", "maximum"),
    ("minLength", "maxLength"),
    ("minItems", "maxItems"),
    ("minProperties", "maxProperties"),
)


def _types(schema: Mapping[str, Any]) -> list[str] | None:
    kind = schema.get("type")
    if isinstance(kind, str):
        return [kind]
    if isinstance(kind, list):
        return [k for k in kind if isinstance(k, str)]
    return None


def _resolve(schema: Any, defs: Mapping[str, Any]) -> Any:
    if isinstance(schema, dict) and isinstance(schema.get("$ref"), str) and schema["$ref"].startswith("#/$defs/"):
        return defs.get(schema["$ref"].removeprefix("#/$defs/"), schema)
    return schema


def contradictions(schema: Any) -> Iterator[tuple[str, str]]:
    """(JSON path, why) for each part of a tool's input schema that no value satisfies; the root first."""
    if not isinstance(schema, dict):
        yield "$.inputSchema", "the input schema is not an object"
        return
    kinds = _types(schema)
    if kinds is not None and "object" not in kinds:
        yield "$.inputSchema.type", f"arguments are always an object, but the schema's type is {kinds}"
    yield from _walk(schema, "$.inputSchema", schema.get("$defs") or {}, 0)


def _walk(schema: Any, path: str, defs: Mapping[str, Any], depth: int) -> Iterator[tuple[str, str]]:
    schema = _resolve(schema, defs)
    if schema is False:
        yield path, "the schema is `false`: no value is valid"
        return
    if not isinstance(schema, dict) or depth > 12:
        return
    yield from _values(schema, path)
    yield from _bounds(schema, path)
    yield from _objects(schema, path)
    yield from _branches(schema, path)
    properties = _props(schema)
    for name, sub in properties.items():
        if sub is not False:
            yield from _walk(sub, f"{path}.properties.{name}", defs, depth + 1)
    if isinstance(schema.get("items"), dict):
        yield from _walk(schema["items"], f"{path}.items", defs, depth + 1)


def _values(schema: Mapping[str, Any], path: str) -> Iterator[tuple[str, str]]:
    """An empty type list or enum, an enum with no value of the type, a const outside the enum, `not: {}`."""
    kinds = _types(schema)
    if kinds == []:
        yield f"{path}.type", "the type list is empty"
    values = schema.get("enum")
    if isinstance(values, list):
        if not values:
            yield f"{path}.enum", "the enum is empty"
        elif kinds and not any(any(_JSON_TYPES.get(k, lambda _v: True)(v) for k in kinds) for v in values):
            yield f"{path}.enum", f"no enum value is of the type {kinds}"
        if "const" in schema and schema["const"] not in values:
            yield f"{path}.const", "the const is not among the enum's values"
    if schema.get("not") == {} or schema.get("not") is True:
        yield f"{path}.not", "`not: {}` refuses every value"


def _bounds(schema: Mapping[str, Any], path: str) -> Iterator[tuple[str, str]]:
    """A lower bound above its upper bound."""
    for low, high in _BOUNDS:
        lo, hi = schema.get(low), schema.get(high)
        if isinstance(lo, int | float) and isinstance(hi, int | float) and _number(lo) and _number(hi) and lo > hi:
            yield f"{path}.{low}", f"{low} {lo} is above {high} {hi}"
    lo, hi = schema.get("exclusiveMinimum"), schema.get("exclusiveMaximum")
    if isinstance(lo, int | float) and isinstance(hi, int | float) and _number(lo) and _number(hi) and lo >= hi:
        yield f"{path}.exclusiveMinimum", f"exclusiveMinimum {lo} leaves nothing below exclusiveMaximum {hi}"


def _objects(schema: Mapping[str, Any], path: str) -> Iterator[tuple[str, str]]:
    """A required property that cannot be given."""
    properties = _props(schema)
    required = [r for r in schema.get("required") or [] if isinstance(r, str)]
    for name in required:
        if name not in properties and schema.get("additionalProperties") is False:
            yield f"{path}.required", f"{name!r} is required, but not a property and no other is allowed"
        elif properties.get(name) is False:
            yield f"{path}.properties.{name}", f"{name!r} is required, but its schema is `false`"


def _branches(schema: Mapping[str, Any], path: str) -> Iterator[tuple[str, str]]:
    """allOf branches with no common type; an empty anyOf or oneOf."""
    kinds = _types(schema)
    branches = schema.get("allOf")
    if isinstance(branches, list):
        sets = [set(t) for t in (_types(b) for b in branches if isinstance(b, dict)) if t is not None]
        if kinds is not None:
            sets.append(set(kinds))
        if len(sets) > 1 and not set.intersection(*[_widened(s) for s in sets]):
            yield f"{path}.allOf", "the allOf branches admit no common type"
    for key in ("anyOf", "oneOf"):
        options = schema.get(key)
        if isinstance(options, list) and not options:
            yield f"{path}.{key}", f"{key} is empty: no value matches a branch"


def _props(schema: Mapping[str, Any]) -> dict[str, Any]:
    properties = schema.get("properties")
    return properties if isinstance(properties, dict) else {}


def _widened(kinds: set[str]) -> set[str]:
    return kinds | {"integer"} if "number" in kinds else kinds


def _number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)
