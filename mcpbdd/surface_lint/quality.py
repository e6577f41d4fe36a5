"""The quality rules: what a model needs from a listing to choose a tool and fill its arguments.

Each function takes the listings (`{"name", "description", "inputSchema", ...}` as a client receives
them, in the server's order) and yields findings. Heuristics are narrow on purpose: a rule that cries
wolf is switched off, so each one fires only where the text or schema says enough to be sure.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from mcpbdd.surface_lint.findings import Finding, finding
from mcpbdd.surface_lint.schemas import contradictions
from mcpbdd.surface_lint.visible import reveal

__all__ = ["COMMON_TOOLS", "MIN_WORDS", "quality_findings"]

Listing = Mapping[str, Any]

MIN_WORDS = 5
"""A description of fewer words is too short to choose by."""

COMMON_TOOLS = frozenset(
    {
        "bash",
        "shell",
        "terminal",
        "exec",
        "execute_command",
        "run_command",
        "run_terminal_cmd",
        "read_file",
        "write_file",
        "edit_file",
        "create_file",
        "delete_file",
        "list_directory",
        "list_dir",
        "list_files",
        "str_replace_editor",
        "text_editor",
        "computer",
        "web_search",
        "web_fetch",
        "fetch",
        "browser",
        "python",
        "code_interpreter",
        "grep",
        "glob",
    }
)
"""Names of tools hosts and agents commonly build in; a server tool of the same name competes with them."""

_STRUCTURED = re.compile(
    r"\b(returns?|gives?|answers?|responds?|yields?)\b[^.]{0,60}\b(json|objects?|fields?|structured|records?|"
    r"dict(ionary)?|mapping|key-value)\b",
    re.IGNORECASE,
)
_NO_ARGUMENTS = re.compile(r"\b(takes|needs|requires|accepts) no (arguments|parameters|input)\b", re.IGNORECASE)
_NAMED = re.compile(
    r"(?:\b(?:argument|parameter|param)\s+[`'\"](?P<a>[A-Za-z_][\w-]*)[`'\"])"
    r"|(?:[`'\"](?P<b>[A-Za-z_][\w-]*)[`'\"]\s+(?:argument|parameter|param)\b)",
    re.IGNORECASE,
)
_OPTIONAL = re.compile(r"[`'\"]([A-Za-z_][\w-]*)[`'\"]\s+is\s+optional|optional\s+[`'\"]([A-Za-z_][\w-]*)[`'\"]")


def _description(listing: Listing) -> str:
    value = listing.get("description")
    return value if isinstance(value, str) else ""


def _properties(listing: Listing) -> dict[str, Any]:
    schema = listing.get("inputSchema")
    props = schema.get("properties") if isinstance(schema, dict) else None
    return props if isinstance(props, dict) else {}


def _required(listing: Listing) -> list[str]:
    schema = listing.get("inputSchema")
    required = schema.get("required") if isinstance(schema, dict) else None
    return [r for r in required or [] if isinstance(r, str)]


def _resolved(schema: Any, listing: Listing) -> Any:
    root = listing.get("inputSchema")
    defs = root.get("$defs", {}) if isinstance(root, dict) else {}
    if isinstance(schema, dict) and isinstance(schema.get("$ref"), str):
        return defs.get(schema["$ref"].removeprefix("#/$defs/"), schema)
    return schema


def quality_findings(listings: Sequence[Listing]) -> Iterator[Finding]:
    """Every quality finding of the surface, tool by tool, then across tools."""
    for listing in listings:
        yield from _descriptions(listing)
        yield from _parameters(listing)
        yield from _unsatisfiable(listing)
        yield from _output_schema(listing)
        yield from _contradicts(listing, {str(other.get("name")) for other in listings})
    yield from _names(listings)
    yield from _duplicates(listings)


def _descriptions(listing: Listing) -> Iterator[Finding]:
    name, text = str(listing.get("name")), _description(listing).strip()
    if not text:
        yield finding("description-missing", name, "$.description", "the tool has no description")
    elif len(text.split()) < MIN_WORDS:
        words = len(text.split())
        yield finding(
            "description-short", name, "$.description", f"{words} word(s), fewer than {MIN_WORDS}", reveal(text)
        )


def _parameters(listing: Listing) -> Iterator[Finding]:
    name = str(listing.get("name"))
    for param, raw in _properties(listing).items():
        where = f"$.inputSchema.properties.{param}"
        schema = _resolved(raw, listing)
        if not isinstance(schema, dict):
            continue
        described = raw.get("description") if isinstance(raw, dict) else None
        if not (isinstance(described, str) and described.strip()) and not schema.get("description"):
            yield finding(
                "parameter-undocumented", name, where, f"the parameter {reveal(param, 80)!r} has no description"
            )
        if not any(key in schema for key in ("type", "anyOf", "oneOf", "allOf", "enum", "const")):
            yield finding("parameter-untyped", name, where, f"the parameter {reveal(param, 80)!r} has no type")
        yield from _enum(name, param, schema, where)


def _opaque(value: Any) -> bool:
    return isinstance(value, int | float) or (isinstance(value, str) and len(value.strip()) <= 2)


def _enum(name: str, param: str, schema: Mapping[str, Any], where: str) -> Iterator[Finding]:
    values = schema.get("enum")
    if not isinstance(values, list) or not values or not all(_opaque(v) for v in values):
        return
    described = str(schema.get("description") or "")
    explained = all(re.search(rf"(?<!\w){re.escape(str(v))}(?!\w)", described) for v in values)
    if not explained:
        shown = ", ".join(json.dumps(v, ensure_ascii=True) for v in values[:10])
        yield finding(
            "enum-without-meaning",
            name,
            f"{where}.enum",
            f"the values of {reveal(param, 80)!r} ({reveal(shown, 200)}) say nothing, and its description does not "
            "explain each",
        )


def _unsatisfiable(listing: Listing) -> Iterator[Finding]:
    name = str(listing.get("name"))
    for path, why in contradictions(listing.get("inputSchema", {})):
        yield finding("schema-unsatisfiable", name, path, reveal(why, 300))


def _output_schema(listing: Listing) -> Iterator[Finding]:
    if listing.get("outputSchema"):
        return
    match = _STRUCTURED.search(_description(listing))
    if match:
        yield finding(
            "output-schema-missing",
            str(listing.get("name")),
            "$.outputSchema",
            "the description promises structured data, but the tool declares no output schema",
            reveal(match.group(0), 120),
        )


def _contradicts(listing: Listing, tools: set[str]) -> Iterator[Finding]:
    name, text = str(listing.get("name")), _description(listing)
    properties, required = _properties(listing), _required(listing)
    said = _NO_ARGUMENTS.search(text)
    if said and required:
        yield finding(
            "description-contradicts-schema",
            name,
            "$.description",
            f"the description says it {said.group(0).lower()}, but the schema requires {', '.join(required)}",
            reveal(said.group(0), 80),
        )
    for match in _NAMED.finditer(text):
        param = match.group("a") or match.group("b")
        if param not in properties and param not in tools:
            known = ", ".join(properties) or "none"
            yield finding(
                "description-contradicts-schema",
                name,
                "$.description",
                f"the description names the argument {reveal(param, 80)!r}, which the schema does not have "
                f"(its arguments: {reveal(known, 200)})",
                reveal(match.group(0), 120),
            )
    for match in _OPTIONAL.finditer(text):
        param = match.group(1) or match.group(2)
        if param in required:
            yield finding(
                "description-contradicts-schema",
                name,
                "$.description",
                f"the description calls {reveal(param, 80)!r} optional, but the schema requires it",
                reveal(match.group(0), 120),
            )


def _names(listings: Sequence[Listing]) -> Iterator[Finding]:
    by_fold: dict[str, list[str]] = {}
    for listing in listings:
        tool = str(listing.get("name"))
        if tool not in by_fold.setdefault(tool.casefold(), []):
            by_fold[tool.casefold()].append(tool)
        if tool.casefold() in COMMON_TOOLS:
            yield finding(
                "name-shadows-common-tool", tool, "$.name", f"{reveal(tool, 80)!r} is the name of a common host tool"
            )
    for names in by_fold.values():
        if len(names) > 1:
            for tool in names:
                others = ", ".join(reveal(n, 80) for n in names if n != tool)
                yield finding("name-case-collision", tool, "$.name", f"differs only in case from {others}")


def _duplicates(listings: Sequence[Listing]) -> Iterator[Finding]:
    seen: dict[str, int] = {}
    bodies: dict[str, str] = {}
    for listing in listings:
        tool = str(listing.get("name"))
        seen[tool] = seen.get(tool, 0) + 1
        if seen[tool] == 2:
            yield finding("duplicate-tool", tool, "$.name", "the tool is listed more than once")
        body = json.dumps([listing.get("description"), listing.get("inputSchema")], sort_keys=True)
        if _description(listing).strip() and body in bodies and bodies[body] != tool:
            yield finding(
                "duplicate-tool",
                tool,
                "$",
                f"the same description and input schema as {reveal(bodies[body], 80)!r}: a model cannot choose",
            )
        bodies.setdefault(body, tool)
