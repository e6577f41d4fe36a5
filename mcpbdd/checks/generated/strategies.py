"""mcpbdd's own hypothesis strategy for a JSON Schema: the fallback when hypothesis-jsonschema cannot be used.

hypothesis-jsonschema is the thorough generator, but it rejects some schemas and its
releases lag behind hypothesis (0.23.1 breaks with hypothesis >= 6.170.10). Generated
calls must still run then, so this strategy covers the keywords tool schemas actually use.
It may produce values the schema rejects; the caller filters them with the schema's validator.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Mapping
from typing import Any

from mcpbdd.checks.schema import flatten_all_of, implied_type, merge, resolve_ref

__all__ = ["schema_strategy"]

_MAX_REF_DEPTH = 4


def schema_strategy(schema: Any) -> Any:
    """A hypothesis strategy for a JSON Schema's usual keywords; the fallback when hypothesis-jsonschema fails.

    Covers type (and type lists), properties/required/additionalProperties, items/prefixItems
    and their bounds, enum, const, anyOf/oneOf/allOf, `#/...` `$ref`s (recursion cut after a
    few levels), numeric bounds and multipleOf, string lengths, pattern and common formats.
    Values it gets wrong are filtered out by validating against the schema.
    """
    return _strategy(schema, schema, 0)


def _scalars() -> Any:
    from hypothesis import strategies as st

    return st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text()


def _any_json() -> Any:
    from hypothesis import strategies as st

    return st.recursive(
        _scalars(),
        lambda children: st.lists(children, max_size=3) | st.dictionaries(st.text(), children, max_size=3),
        max_leaves=6,
    )


def _strategy(schema: Any, root: Any, depth: int) -> Any:
    from hypothesis import strategies as st

    if schema is False:
        return st.nothing()
    if not isinstance(schema, Mapping) or not schema:  # True, {} or not a schema at all: any JSON
        return _any_json()
    if "$ref" in schema:
        if depth >= _MAX_REF_DEPTH:
            return st.nothing()
        target = resolve_ref(root, schema["$ref"])
        if not isinstance(target, Mapping):
            return _any_json()
        return _strategy({**target, **{k: v for k, v in schema.items() if k != "$ref"}}, root, depth + 1)
    if "const" in schema:
        return st.just(schema["const"])
    if "enum" in schema:
        values = list(schema["enum"])
        return st.sampled_from(values) if values else st.nothing()
    for key in ("anyOf", "oneOf"):
        options = schema.get(key)
        if isinstance(options, list) and options:
            rest = {k: v for k, v in schema.items() if k != key}
            return st.one_of([_strategy(merge(rest, option), root, depth) for option in options])
    if isinstance(schema.get("allOf"), list):
        return _strategy(flatten_all_of(schema, root), root, depth)
    kind = schema.get("type")
    if isinstance(kind, list):
        return st.one_of([_strategy({**schema, "type": k}, root, depth) for k in kind]) if kind else _any_json()
    if kind is None:
        kind = implied_type(schema)
    builder = _BUILDERS.get(kind) if isinstance(kind, str) else None
    return builder(schema, root, depth) if builder is not None else _any_json()


def _string(schema: Mapping[str, Any], root: Any, depth: int) -> Any:
    from hypothesis import strategies as st

    low = int(schema.get("minLength", 0))
    high = schema.get("maxLength")
    fmt = schema.get("format")
    if isinstance(schema.get("pattern"), str):
        strategy = st.from_regex(schema["pattern"])
    elif fmt == "date-time":
        strategy = st.datetimes().map(lambda d: d.isoformat() + "Z")
    elif fmt == "date":
        strategy = st.dates().map(lambda d: d.isoformat())
    elif fmt == "email":
        strategy = st.emails()
    elif fmt == "uuid":
        strategy = st.uuids().map(str)
    elif fmt in ("uri", "url", "iri"):
        strategy = st.sampled_from(["https://example.com/", "https://example.org/a?b=c#d", "urn:isbn:0451450523"])
    else:
        return st.text(min_size=low, max_size=int(high) if isinstance(high, int) else None)
    return strategy.filter(lambda s: len(s) >= low and (not isinstance(high, int) or len(s) <= high))


def _number(schema: Mapping[str, Any], root: Any, depth: int, *, integer: bool = False) -> Any:
    from hypothesis import strategies as st

    def bound(key: str) -> float | None:
        value = schema.get(key)
        return value if isinstance(value, int | float) and not isinstance(value, bool) else None

    low, high = bound("minimum"), bound("maximum")
    exclusive_low, exclusive_high = bound("exclusiveMinimum"), bound("exclusiveMaximum")
    step = bound("multipleOf")
    if integer or (step is not None and float(step).is_integer()):
        lo = math.ceil(low) if low is not None else None
        hi = math.floor(high) if high is not None else None
        if exclusive_low is not None:
            lo = max(lo, math.floor(exclusive_low) + 1) if lo is not None else math.floor(exclusive_low) + 1
        if exclusive_high is not None:
            hi = min(hi, math.ceil(exclusive_high) - 1) if hi is not None else math.ceil(exclusive_high) - 1
        if step is not None and step > 0:
            unit = int(step)
            return st.integers(
                min_value=None if lo is None else -(-lo // unit), max_value=None if hi is None else hi // unit
            ).map(lambda k: k * unit)
        return st.integers(min_value=lo, max_value=hi)
    floats = st.floats(
        min_value=low if low is not None else exclusive_low,
        max_value=high if high is not None else exclusive_high,
        exclude_min=low is None and exclusive_low is not None,
        exclude_max=high is None and exclusive_high is not None,
        allow_nan=False,
        allow_infinity=False,
    )
    return floats


def _array(schema: Mapping[str, Any], root: Any, depth: int) -> Any:
    from hypothesis import strategies as st

    low = int(schema.get("minItems", 0))
    high = schema.get("maxItems")
    high = int(high) if isinstance(high, int) else low + 5
    prefix = schema.get("prefixItems")
    items = schema.get("items", True)
    if isinstance(items, list):  # draft 4-2019 tuple form
        prefix, items = items, schema.get("additionalItems", True)
    element = _strategy(items, root, depth + 1) if items is not False else st.nothing()
    unique = bool(schema.get("uniqueItems"))
    rest = st.lists(
        element,
        min_size=max(0, low - len(prefix or [])),
        max_size=max(0, high - len(prefix or [])),
        unique_by=(lambda v: json.dumps(v, sort_keys=True)) if unique else None,
    )
    if prefix:
        head = st.tuples(*[_strategy(p, root, depth + 1) for p in prefix]).map(list)
        return st.tuples(head, rest).map(lambda pair: pair[0] + pair[1])
    return rest


def _object(schema: Mapping[str, Any], root: Any, depth: int) -> Any:
    from hypothesis import strategies as st

    properties = schema.get("properties") or {}
    required = [name for name in schema.get("required", []) if isinstance(name, str)]
    fixed = {name: _strategy(properties.get(name, True), root, depth + 1) for name in required}
    optional = {name: _strategy(sub, root, depth + 1) for name, sub in properties.items() if name not in fixed}
    known = st.fixed_dictionaries(fixed, optional=optional)
    additional = schema.get("additionalProperties", True)
    if additional is False or depth > 2:
        return known
    extra_values = _strategy(additional, root, depth + 1) if isinstance(additional, Mapping) else _scalars()
    extra = st.dictionaries(st.text(min_size=1).filter(lambda k: k not in properties), extra_values, max_size=1)
    return st.tuples(known, extra).map(lambda pair: {**pair[1], **pair[0]})


def _integer(schema: Mapping[str, Any], root: Any, depth: int) -> Any:
    return _number(schema, root, depth, integer=True)


def _boolean(schema: Mapping[str, Any], root: Any, depth: int) -> Any:
    from hypothesis import strategies as st

    return st.booleans()


def _null(schema: Mapping[str, Any], root: Any, depth: int) -> Any:
    from hypothesis import strategies as st

    return st.none()


_BUILDERS: dict[str, Callable[[Mapping[str, Any], Any, int], Any]] = {
    "string": _string,
    "integer": _integer,
    "number": _number,
    "boolean": _boolean,
    "null": _null,
    "array": _array,
    "object": _object,
}
