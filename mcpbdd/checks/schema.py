"""JSON Schema for the checks: validating against an advertised schema, and walking one to build values.

Both checks read the schemas a server advertises. The output-schema contracts validate
documents against them (`schema_problems`, `validator`, `violations`); generated calls
validate their inputs the same way and also walk the input schema to build values from it
(`deref`, `minimal`, `accepts`, `implied_type`, `flatten_all_of`). One module keeps both
sides reading a schema the same way: the same dialect, the same `$ref`s, the same `allOf`.

Validation is the `jsonschema` library's, the same one the SDK's client uses, with the
dialect the schema names in `$schema` and JSON Schema 2020-12 (MCP's default) otherwise.
The walkers follow only `#/...` references inside the schema, as the validator does.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import UnionType
from typing import Any

from jsonschema import Draft202012Validator
from jsonschema.exceptions import SchemaError, ValidationError
from jsonschema.protocols import Validator
from jsonschema.validators import validator_for
from referencing import Registry

from mcpbdd._text import clip

__all__ = [
    "SchemaViolation",
    "accepts",
    "defs_of",
    "deref",
    "flatten_all_of",
    "implied_type",
    "merge",
    "minimal",
    "resolve_ref",
    "schema_problems",
    "validator",
    "violations",
]

_MESSAGE_WIDTH = 200
_MAX_DEREF = 10
_MAX_MINIMAL_DEPTH = 12


# --------------------------------------------------------------------------- validation


@dataclass(frozen=True)
class SchemaViolation:
    """One place where a document breaks a schema: `$.notes[0].title: 3 is not of type 'string'`."""

    path: str
    message: str
    keyword: str

    def __str__(self) -> str:
        return f"{self.path}: {self.message}"


def _dialect(schema: Mapping[str, Any] | bool) -> type[Validator]:
    """The validator class for the dialect the schema names, JSON Schema 2020-12 (MCP's default) if none."""
    return validator_for(schema, default=Draft202012Validator)


def schema_problems(schema: Any) -> list[SchemaViolation]:
    """Why `schema` is not a valid JSON Schema (its own dialect's metaschema decides); `[]` when it is.

    Each problem names where in the schema it is (`$.properties.count.type`).
    """
    if not isinstance(schema, Mapping | bool):
        return [SchemaViolation("$", f"a schema is a JSON object or a boolean, got {_kind(schema)}", "type")]
    cls = _dialect(schema)
    found = sorted(cls(cls.META_SCHEMA).iter_errors(schema), key=lambda e: (list(e.absolute_path), e.message))
    return [_violation(error) for error in found]


def validator(schema: Mapping[str, Any] | bool) -> Validator:
    """A compiled validator for a schema already known to be valid (`$ref`s resolve inside the document only).

    The empty registry is what the SDK's client uses too: a schema that points outside itself
    cannot be checked the same way by every client, so it does not resolve here either.
    """
    return _dialect(schema)(schema, registry=Registry())


def violations(schema: Mapping[str, Any] | bool, instance: Any) -> list[SchemaViolation]:
    """Every way `instance` breaks `schema`, ordered by JSON path; `[]` when it conforms.

    Raises `SchemaError` when the schema itself is invalid (check `schema_problems` first)
    and `referencing.exceptions.Unresolvable` when one of its `$ref`s points outside it.
    """
    found = validator(schema).iter_errors(instance)
    ordered = sorted(found, key=lambda e: ([str(part) for part in e.absolute_path], e.message))
    return [_violation(error) for error in ordered]


def _violation(error: ValidationError | SchemaError) -> SchemaViolation:
    return SchemaViolation(error.json_path, clip(error.message, _MESSAGE_WIDTH), str(error.validator))


_JSON_KINDS: tuple[tuple[type | UnionType, str], ...] = (
    (type(None), "null"),
    (bool, "a boolean"),  # before numbers: a bool is an int in Python
    (int | float, "a number"),
    (str, "a string"),
    (list, "an array"),
)


def _kind(value: Any) -> str:
    """What a JSON value is, for a sentence ("a string"); a Python type's name for anything else."""
    return next((name for kind, name in _JSON_KINDS if isinstance(value, kind)), type(value).__name__)


# --------------------------------------------------------------------------- walking


def resolve_ref(root: Any, ref: Any) -> Any:
    """A `#/...` JSON pointer inside the root schema (None for anything else)."""
    if not isinstance(ref, str) or not ref.startswith("#"):
        return None
    node = root
    for raw in ref[1:].split("/")[1:] if ref != "#" else []:
        part = raw.replace("~1", "/").replace("~0", "~")
        if isinstance(node, Mapping) and part in node:
            node = node[part]
        elif isinstance(node, list) and part.isdigit() and int(part) < len(node):
            node = node[int(part)]
        else:
            return None
    return node


def deref(schema: Any, root: Any) -> Any:
    """`schema` with its `$ref` replaced by the target (its other keywords kept on top), a few levels deep."""
    for _ in range(_MAX_DEREF):
        if not (isinstance(schema, Mapping) and "$ref" in schema):
            break
        target = resolve_ref(root, schema["$ref"])
        if target is None:
            break
        schema = {**target, **{k: v for k, v in schema.items() if k != "$ref"}}
    return schema


def defs_of(root: Any) -> dict[str, Any]:
    """The root's definitions (`$defs`, `definitions`), to validate a subschema whose `$ref`s point at them."""
    if not isinstance(root, Mapping):
        return {}
    return {key: root[key] for key in ("$defs", "definitions") if key in root}


def merge(base: Mapping[str, Any], extra: Any) -> dict[str, Any]:
    """Two subschemas as one: `extra`'s keywords win, except that properties and required add up."""
    if not isinstance(extra, Mapping):
        return dict(base)
    merged = dict(base)
    for key, value in extra.items():
        if key == "properties" and isinstance(merged.get(key), Mapping) and isinstance(value, Mapping):
            merged[key] = {**merged[key], **value}
        elif key == "required" and isinstance(merged.get(key), list) and isinstance(value, list):
            merged[key] = list(dict.fromkeys([*merged[key], *value]))
        else:
            merged[key] = value
    return merged


def flatten_all_of(schema: Mapping[str, Any], root: Any) -> dict[str, Any]:
    """`schema` without its `allOf`, each part (dereferenced) merged into it instead."""
    merged: dict[str, Any] = {k: v for k, v in schema.items() if k != "allOf"}
    for part in schema.get("allOf") or []:
        merged = merge(merged, deref(part, root))
    return merged


def implied_type(schema: Mapping[str, Any]) -> str | None:
    """The JSON type a schema without `type` means by its other keywords (`properties`: an object), if any."""
    if any(k in schema for k in ("properties", "required", "additionalProperties")):
        return "object"
    if any(k in schema for k in ("items", "prefixItems", "minItems", "maxItems")):
        return "array"
    if any(k in schema for k in ("minLength", "maxLength", "pattern", "format")):
        return "string"
    if any(k in schema for k in ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf")):
        return "number"
    return None


def accepts(prop: Any, root: Any, kind: str) -> bool:
    """Whether a property schema allows values of a JSON type (looking through $ref and anyOf/oneOf)."""
    prop = deref(prop, root)
    if not isinstance(prop, Mapping):
        return prop is True
    types = prop.get("type")
    if types == kind:
        return True
    if isinstance(types, list) and kind in types:
        return True
    options = list(prop.get("anyOf", [])) + list(prop.get("oneOf", []))
    if any(accepts(option, root, kind) for option in options):
        return True
    return types is None and not options and not any(k in prop for k in ("enum", "const", "$ref"))


def minimal(schema: Any, root: Any = None, depth: int = 0) -> Any:
    """A small valid instance: required keys only, the first enum value, the lower bound, "a" for strings."""
    root = schema if root is None else root
    schema = deref(schema, root)
    if depth > _MAX_MINIMAL_DEPTH or not isinstance(schema, Mapping):
        return None
    if "const" in schema:
        return schema["const"]
    if schema.get("enum"):
        return schema["enum"][0]
    if "default" in schema:
        return schema["default"]
    for key in ("anyOf", "oneOf"):
        options = schema.get(key)
        if options:
            non_null = [o for o in options if not (isinstance(o, Mapping) and o.get("type") == "null")]
            return minimal((non_null or options)[0], root, depth + 1)
    if schema.get("allOf"):
        return minimal(flatten_all_of(schema, root), root, depth + 1)
    kind = schema.get("type")
    if isinstance(kind, list):
        kind = next((k for k in kind if k != "null"), kind[0] if kind else None)
    if kind == "object" or (kind is None and "properties" in schema):
        properties = schema.get("properties", {})
        return {
            name: minimal(properties.get(name, {}), root, depth + 1)
            for name in schema.get("required", [])
            if isinstance(name, str)
        }
    if kind == "array":
        items = schema.get("items")
        count = int(schema.get("minItems", 0))
        return [minimal(items, root, depth + 1) for _ in range(count)] if isinstance(items, Mapping) else []
    if kind == "string":
        return "a" * max(1, int(schema.get("minLength", 1)))
    if kind in ("integer", "number"):
        low = schema.get("minimum", schema.get("exclusiveMinimum"))
        if isinstance(low, int | float) and not isinstance(low, bool):
            return int(low) + 1 if kind == "integer" else low + 1
        return 1
    if kind == "boolean":
        return True
    return None
