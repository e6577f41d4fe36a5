"""The adversarial corpus: values a schema allows or nearly allows that break careless tool code.

Inputs generated from a schema are valid and mostly tame; the bugs generated calls look for
sit at the edges: very long strings, control characters, unicode edge cases (direction
overrides, combining marks, zero-width and non-characters, emoji sequences, case-mapping
surprises), format strings, wrong types, huge numbers, deep nesting, extra keys
(`__class__`, `__proto__`, `constructor`, ...), missing required keys. Each mutates one
top-level argument of a minimal valid input, so the value gets past validation to the tool.

Deep nesting stays well inside what every transport carries (`DEEP`; the measured limits are
in `limits`): a value nested deeper than the SDK's stdio parser reads is never answered, and
that silence is the SDK's, not the tool's.

Lone surrogates are left out on purpose: the SDK itself fails to serialise any result that
echoes one (an SDK matter, not the server's), so every `MCPServer` tool that echoes its
input would "crash" on them.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from mcpbdd.checks.schema import accepts, defs_of, minimal, validator

__all__ = ["ADVERSARIAL_STRINGS", "DEEP", "EXTRA_KEYS", "LONG", "WRONG_TYPES", "adversarial_inputs"]

LONG = 10_000
DEEP = 100
"""Nesting depth of the deep adversarial values (arguments 102 levels deep).

Below every limit measured on the way to a tool, with room for a server that echoes the
value inside its answer: mcp 2.3.0's stdio server parses at most 199 levels of arguments,
its client serialises at most 256 (`limits`), and Rust's serde_json stops at 128. Deep
enough to break code that recurses without a bound or caps depth at 32 or 64.
"""

Labelled = tuple[str, dict[str, Any]]

ADVERSARIAL_STRINGS: tuple[tuple[str, str], ...] = (
    ("a 10,000-character string", "x" * LONG),
    ("5,000 emoji (4 bytes each in UTF-8, 2 units in UTF-16)", "\U0001f600" * 5000),
    ("control characters", "\x00\x01\x07\x08\x1b[2J\x7f\r\n\t"),
    ("a NUL character", "a\x00b"),
    ("a right-to-left override", "\u202eevil.exe\u202c"),
    ("zero-width characters and a BOM", "\ufeff\u200b\u200c\u200d\u2060"),
    ("1,000 combining marks", "e" + "\u0301" * 1000),
    ("an emoji ZWJ sequence", "\U0001f469\U0001f3fd\u200d\U0001f4bb\U0001f3f3\ufe0f\u200d\U0001f308"),
    ("non-characters and the last code point", "\ufffe\uffff\U0010ffff"),
    ("characters whose case mapping changes length", "\u0130\u0131\u017f\u212a\u00df\ufb01"),
    ("a character NFKC expands to 18", "\ufdfa"),
    ("format strings", "%s%n%x {0} {0.__class__} ${x} {{7*7}}"),
    ("a path traversal", "../../../../etc/passwd"),
    ("only whitespace", " \t\n "),
)

WRONG_TYPES: tuple[tuple[str, Any], ...] = (
    ("null", None),
    ("true", True),
    ("the number 2^64", 2**64),
    ("the number -1e308", -1e308),
    ("an empty array", []),
    ("an object", {"__proto__": {"polluted": True}}),
    ("a string", "not the expected type"),
)

EXTRA_KEYS: tuple[tuple[str, dict[str, Any]], ...] = (
    (
        "Python dunder keys",
        {"__class__": "str", "__init__": None, "__dict__": {}, "__globals__": {}, "__builtins__": {}},
    ),
    ("prototype-pollution keys", {"__proto__": {"polluted": True}, "constructor": {"prototype": {"polluted": True}}}),
    ("an empty key and a 1,000-character key", {"": "", "k" * 1000: 1}),
)


def adversarial_inputs(schema: Any, depth: int = DEEP) -> list[Labelled]:
    """Adversarial inputs for a tool's input schema, each labelled with what makes it adversarial.

    Each mutates one top-level argument of a minimal valid input (so the value reaches the
    tool's code, not just the validation), or adds or removes keys. Ordered round-robin over
    the kinds (long strings, control characters, unicode, wrong types, nesting, extra keys,
    missing keys, extremes), so the first few already try every kind. `depth` is how deep
    the nested values go (see `DEEP` before raising it).
    """
    properties = schema.get("properties", {}) if isinstance(schema, Mapping) else {}
    properties = properties if isinstance(properties, Mapping) else {}
    required = schema.get("required", []) if isinstance(schema, Mapping) else []
    base = minimal(schema)
    if not isinstance(base, dict):
        base = {}
    names = list(properties) or ["value"]
    string_names = [name for name in properties if accepts(properties[name], schema, "string")] or names

    groups: list[list[Labelled]] = []
    long_values = ADVERSARIAL_STRINGS[:2]
    control = ADVERSARIAL_STRINGS[2:4]
    unicode = ADVERSARIAL_STRINGS[4:11]
    tricky = ADVERSARIAL_STRINGS[11:]
    for strings in (long_values, control, unicode, tricky):
        groups.append(
            [
                (f"adversarial: {label} in $.{name}", {**base, name: value})
                for label, value in strings
                for name in string_names
            ]
        )
    groups.append(
        [
            (f"adversarial: {label} as $.{name}", {**base, name: value})
            for label, value in WRONG_TYPES
            for name in names
            if not _schema_allows(properties.get(name), schema, value)
        ]
    )
    groups.append(
        [(f"adversarial: arrays nested {depth} deep in $.{name}", {**base, name: _nested([], depth)}) for name in names]
        + [
            (f"adversarial: objects nested {depth} deep in $.{name}", {**base, name: _nested({}, depth)})
            for name in names
        ]
    )
    groups.append([(f"adversarial: {label}", {**base, **extra}) for label, extra in EXTRA_KEYS])
    missing: list[Labelled] = [("adversarial: no arguments at all", {})] if base else []
    missing += [
        (f"adversarial: the required $.{name} left out", {k: v for k, v in base.items() if k != name})
        for name in required
        if isinstance(name, str) and name in base and len(required) > 1
    ]
    groups.append(missing)
    groups.append(_extremes(properties, schema, base))
    return _round_robin(groups)


def _round_robin(groups: list[list[Labelled]]) -> list[Labelled]:
    ordered: list[Labelled] = []
    index = 0
    while any(index < len(group) for group in groups):
        ordered.extend(group[index] for group in groups if index < len(group))
        index += 1
    return ordered


def _extremes(properties: Mapping[str, Any], root: Any, base: dict[str, Any]) -> list[Labelled]:
    """Values of the right type at its edges: huge and tiny numbers, an empty string, a 10,000-item array."""
    found: list[Labelled] = []
    for name, prop in properties.items():
        if accepts(prop, root, "integer"):
            found += [(f"adversarial: 2^63 in $.{name}", {**base, name: 2**63})]
            found += [(f"adversarial: -2^63-1 in $.{name}", {**base, name: -(2**63) - 1})]
            found += [(f"adversarial: 10^30 in $.{name}", {**base, name: 10**30})]
        if accepts(prop, root, "number"):
            found += [(f"adversarial: 1e308 in $.{name}", {**base, name: 1e308})]
            found += [(f"adversarial: 5e-324 in $.{name}", {**base, name: 5e-324})]
        if accepts(prop, root, "string"):
            found += [(f"adversarial: an empty string in $.{name}", {**base, name: ""})]
        if accepts(prop, root, "array"):
            found += [(f"adversarial: a 10,000-item array in $.{name}", {**base, name: [""] * LONG})]
    return found


def _nested(leaf: Any, depth: int) -> Any:
    value: Any = leaf
    for _ in range(depth):
        value = [value] if isinstance(leaf, list) else {"a": value}
    return value


def _schema_allows(prop: Any, root: Any, value: Any) -> bool:
    """Whether the property's schema already allows a "wrong type" value (then it is not adversarial)."""
    if prop is None:
        return False
    try:
        return validator({**defs_of(root), **prop} if isinstance(prop, Mapping) else prop).is_valid(value)
    except Exception:
        return False
