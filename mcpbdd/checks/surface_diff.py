"""What changed between two tool surfaces, each change classed breaking or not for a client.

A client depends on a tool's name, on the arguments it may send (input schema) and on the
fields it reads back (output schema). So the direction matters: an input may only get more
permissive, an output only more precise. Narrowing an input (a type, an enum value dropped, a
new required argument, a tighter bound) refuses calls that used to work; widening an output (a
new type or enum value, a field that may now be absent, a field removed) hands a client
something it was not written for. The reverse changes, and descriptions, are not breaking.

A schema change mcpbdd cannot judge (an unknown keyword changed) counts as breaking and says
so: a release check should make a person look, never pass by default.

    for difference in diff_surfaces(old, new):
        print(difference)   # BREAKING export_notes $.inputSchema.properties.format.enum: the value "pdf" was dropped
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any, Literal

from mcpbdd.surface_lint.visible import reveal

__all__ = ["Difference", "diff_surfaces", "diff_tools", "render_differences"]

Role = Literal["input", "output"]

_NOTES = frozenset({"title", "description", "examples", "$comment", "$schema", "deprecated"})
_STRUCTURE = frozenset(
    {"type", "anyOf", "oneOf", "enum", "properties", "required", "items", "$defs", "$ref", "default"}
)
_LOWER = frozenset({"minimum", "exclusiveMinimum", "minLength", "minItems", "minProperties"})
_UPPER = frozenset({"maximum", "exclusiveMaximum", "maxLength", "maxItems", "maxProperties"})
_RESTRICT = frozenset({"pattern", "format", "multipleOf", "uniqueItems", "additionalProperties"})
_SAFE_HINTS = {"readOnlyHint": True, "destructiveHint": False, "idempotentHint": True, "openWorldHint": False}
"""Annotations a client may act on without asking (auto-approve a read-only tool, retry an idempotent one):
losing the safe value breaks that client; gaining it does not."""


@dataclass(frozen=True)
class Difference:
    """One change to one tool, where it is (a JSON path in the tool's listing) and whether it breaks a client."""

    tool: str
    path: str
    breaking: bool
    message: str

    def __str__(self) -> str:
        return f"{'BREAKING' if self.breaking else 'not breaking'}: {self.tool} {self.path}: {self.message}"


def _show(value: Any) -> str:
    """A value as JSON, with every invisible character a server may have hidden in it shown by its code point."""
    return reveal(json.dumps(value, ensure_ascii=False, sort_keys=True), 20_000)


def diff_surfaces(old: Mapping[str, Any], new: Mapping[str, Any]) -> list[Difference]:
    """Every difference between two surfaces (`{"tools": {name: listing}}`), breaking ones first, then by tool."""
    old_tools, new_tools = old.get("tools", {}), new.get("tools", {})
    found: list[Difference] = []
    for name in sorted(set(old_tools) | set(new_tools)):
        if name not in new_tools:
            found.append(Difference(name, "$", True, "the tool was removed (a client calling it is refused)"))
        elif name not in old_tools:
            found.append(Difference(name, "$", False, "the tool was added"))
        else:
            found.extend(diff_tools(name, old_tools[name], new_tools[name]))
    return sorted(found, key=lambda d: (not d.breaking, d.tool, d.path))


def diff_tools(name: str, old: Mapping[str, Any], new: Mapping[str, Any]) -> list[Difference]:
    """The differences between two listings of one tool (its description, schemas and annotations)."""
    found: list[Difference] = []
    for key in sorted(set(old) | set(new)):
        before, after = old.get(key), new.get(key)
        if before == after:
            continue
        path = f"$.{key}"
        if key == "inputSchema":
            found.extend(_schemas(name, before or {}, after or {}, path, "input"))
        elif key == "outputSchema":
            if after is None:
                found.append(
                    Difference(name, path, True, "the output schema was removed (no structured result promised)")
                )
            elif before is None:
                found.append(Difference(name, path, False, "an output schema was added"))
            else:
                found.extend(_schemas(name, before, after, path, "output"))
        elif key == "annotations":
            found.extend(_annotations(name, before or {}, after or {}, path))
        else:
            found.append(Difference(name, path, False, f"the {key} changed from {_show(before)} to {_show(after)}"))
    return found


def _annotations(name: str, old: Mapping[str, Any], new: Mapping[str, Any], path: str) -> Iterator[Difference]:
    for hint in sorted(set(old) | set(new)):
        before, after = old.get(hint), new.get(hint)
        if before == after:
            continue
        safe = _SAFE_HINTS.get(hint)
        breaking = safe is not None and before is safe and after is not safe
        why = " (a client that acted on it without asking no longer may)" if breaking else ""
        yield Difference(name, f"{path}.{hint}", breaking, f"changed from {_show(before)} to {_show(after)}{why}")


# schemas ----------------------------------------------------------------------------------------------


def _resolve(schema: Any, defs: Mapping[str, Any], depth: int = 0) -> Any:
    """The schema with local `#/$defs/...` references inlined (a recursive model stops after a few levels)."""
    if isinstance(schema, list):
        return [_resolve(item, defs, depth) for item in schema]
    if not isinstance(schema, dict):
        return schema
    ref = schema.get("$ref")
    if isinstance(ref, str) and ref.startswith("#/$defs/") and depth < 8:
        target = defs.get(ref.removeprefix("#/$defs/"), {})
        merged = {**target, **{k: v for k, v in schema.items() if k != "$ref"}}
        return _resolve(merged, defs, depth + 1)
    return {key: _resolve(value, defs, depth) for key, value in schema.items() if key != "$defs"}


def _schemas(name: str, old: Any, new: Any, path: str, role: Role) -> list[Difference]:
    old_defs, new_defs = old.get("$defs", {}), new.get("$defs", {})
    found: list[Difference] = []
    _compare(name, _resolve(old, old_defs), _resolve(new, new_defs), path, role, found)
    return found


def _types(schema: Mapping[str, Any]) -> frozenset[str] | None:
    """The JSON types a schema admits; None when it admits any."""
    kind = schema.get("type")
    if isinstance(kind, str):
        return frozenset({kind})
    if isinstance(kind, list):
        return frozenset(kind)
    for key in ("anyOf", "oneOf"):
        branches = schema.get(key)
        if isinstance(branches, list):
            union: set[str] = set()
            for branch in branches:
                kinds = _types(branch) if isinstance(branch, dict) else None
                if kinds is None:
                    return None
                union |= kinds
            return frozenset(union)
    return None


def _covers(kinds: frozenset[str] | None, kind: str) -> bool:
    return kinds is None or kind in kinds or (kind == "integer" and "number" in kinds)


def _admits_all(wide: frozenset[str] | None, narrow: frozenset[str] | None) -> bool:
    """Whether every type `narrow` admits, `wide` admits too."""
    if narrow is None:
        return wide is None
    return all(_covers(wide, kind) for kind in narrow)


def _shape(schema: Mapping[str, Any]) -> Mapping[str, Any]:
    """The one non-null branch of an optional value (`anyOf: [X, {type: null}]`), whose insides are compared."""
    for key in ("anyOf", "oneOf"):
        branches = schema.get(key)
        if isinstance(branches, list):
            real = [b for b in branches if isinstance(b, dict) and b.get("type") != "null"]
            if len(real) == 1:
                return real[0]
    return schema


def _compare(name: str, old: Any, new: Any, path: str, role: Role, found: list[Difference]) -> None:
    if old == new:
        return
    if not isinstance(old, dict) or not isinstance(new, dict):
        found.append(Difference(name, path, True, f"changed from {_show(old)} to {_show(new)}"))
        return
    add = found.append
    narrowing_breaks = role == "input"  # an input may only widen; an output may only narrow
    old_types, new_types = _types(old), _types(new)
    if old_types != new_types:
        narrowed = not _admits_all(new_types, old_types)
        widened = not _admits_all(old_types, new_types)
        text = f"the type changed from {_describe(old_types)} to {_describe(new_types)}"
        if narrowed and widened:
            add(Difference(name, f"{path}.type", True, text))
        elif narrowed:
            add(Difference(name, f"{path}.type", narrowing_breaks, text.replace("changed", "was narrowed", 1)))
        elif widened:
            add(Difference(name, f"{path}.type", not narrowing_breaks, text.replace("changed", "was widened", 1)))
    old_shape, new_shape = _shape(old), _shape(new)
    _enums(name, _allowed(old_shape), _allowed(new_shape), f"{path}.enum", role, found)
    _properties(name, old_shape, new_shape, path, role, found)
    if "items" in old_shape or "items" in new_shape:
        _compare(name, old_shape.get("items", {}), new_shape.get("items", {}), f"{path}.items", role, found)
    for key in sorted((set(old) | set(new)) - _STRUCTURE):
        before, after = old.get(key), new.get(key)
        if before != after:
            add(_keyword(name, f"{path}.{key}", key, before, after, role))
    if old.get("default") != new.get("default"):
        change = f"the default changed from {_show(old.get('default'))} to {_show(new.get('default'))}"
        add(Difference(name, f"{path}.default", False, change))


def _allowed(schema: Mapping[str, Any]) -> list[Any] | None:
    """The values a schema allows by list: its `enum`, or its `const` (pydantic writes a one-value Literal so)."""
    if "enum" in schema:
        return list(schema["enum"])
    return [schema["const"]] if "const" in schema else None


def _describe(kinds: frozenset[str] | None) -> str:
    return "any" if kinds is None else " | ".join(sorted(kinds))


def _enums(name: str, old: Any, new: Any, path: str, role: Role, found: list[Difference]) -> None:
    if old == new:
        return
    if new is None:
        found.append(Difference(name, path, role == "output", "the value is no longer restricted to a list"))
        return
    if old is None:
        found.append(Difference(name, path, role == "input", f"the value is now restricted to {_show(new)}"))
        return
    before, after = {_show(v) for v in old}, {_show(v) for v in new}
    for value in sorted(before - after):
        why = " (a client sending it is now refused)" if role == "input" else ""
        found.append(Difference(name, path, role == "input", f"the value {value} was dropped{why}"))
    for value in sorted(after - before):
        why = " (a client may receive a value it does not know)" if role == "output" else ""
        found.append(Difference(name, path, role == "output", f"the value {value} was added{why}"))


def _properties(
    name: str, old: Mapping[str, Any], new: Mapping[str, Any], path: str, role: Role, found: list[Difference]
) -> None:
    old_props, new_props = old.get("properties") or {}, new.get("properties") or {}
    old_required, new_required = set(old.get("required") or ()), set(new.get("required") or ())
    noun = "argument" if role == "input" else "output field"
    for prop in sorted(set(old_props) | set(new_props)):
        where = f"{path}.properties.{prop}"
        if prop not in new_props:
            why = (
                "a client sending it is refused or ignored" if role == "input" else "a client reading it finds nothing"
            )
            found.append(Difference(name, where, True, f"the {noun} {prop!r} was removed ({why})"))
        elif prop not in old_props:
            required = prop in new_required
            kind = "required" if required else "optional"
            found.append(Difference(name, where, required and role == "input", f"the {kind} {noun} {prop!r} was added"))
        else:
            was, now = prop in old_required, prop in new_required
            if was != now:
                if role == "input":
                    text = "is now required" if now else "is now optional"
                    found.append(Difference(name, where, now, f"the {noun} {prop!r} {text}"))
                else:
                    text = "is now always present" if now else "may now be absent"
                    found.append(Difference(name, where, not now, f"the {noun} {prop!r} {text}"))
            _compare(name, old_props[prop], new_props[prop], where, role, found)


def _keyword(name: str, path: str, key: str, before: Any, after: Any, role: Role) -> Difference:
    """A change of one constraint keyword: tighter breaks an input, looser breaks an output."""
    change = f"{key} changed from {_show(before)} to {_show(after)}"
    if key in ("description", "title"):  # what a model reads: shown, so a review sees what it approves
        return Difference(name, path, False, f"the {key} changed from {_show(before)} to {_show(after)}")
    if key in _NOTES:
        return Difference(name, path, False, f"the {key} changed")
    tighter: bool | None = None
    if key in _LOWER or key in _UPPER:
        if before is None or after is None:
            tighter = before is None
        elif isinstance(before, int | float) and isinstance(after, int | float):
            tighter = after > before if key in _LOWER else after < before
    elif key in _RESTRICT:
        if key == "additionalProperties":
            tighter = True if after is False else False if before is False else None
        else:
            tighter = None if (before is not None and after is not None) else before is None
    if tighter is None:
        return Difference(name, path, True, f"{change} (mcpbdd cannot tell whether this breaks a client)")
    breaking = tighter if role == "input" else not tighter
    return Difference(name, path, breaking, f"{change} ({'tighter' if tighter else 'looser'})")


def render_differences(differences: list[Difference]) -> str:
    """A summary line, then one line per difference (breaking first): what a failure or `surface diff` prints."""
    if not differences:
        return "no difference"
    breaking = sum(d.breaking for d in differences)
    lines = [f"{breaking} breaking, {len(differences) - breaking} not breaking:"]
    lines += [f"  {d}" for d in differences]
    return "\n".join(lines)
