"""Form-client payloads: every optional field sent, empty strings inside optional objects, empty arrays.

A model fills in what it needs; a client with a form (the MCP Inspector, a web UI) sends every
field of the form, the ones left blank as `""`, `[]` or `{}`. Both are valid calls, so a tool
must accept both shapes or refuse the form's with a tool error naming the field: never crash,
never answer on the protocol channel.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from mcp_types import Tool

from mcpbdd.checks.schema import deref, schema_problems
from mcpbdd.conformance.probe import Probe, minimal_arguments
from mcpbdd.conformance.registry import SPEC, NotApplicable, check
from mcpbdd.conformance.verdict import broken, fail_unless, shown
from mcpbdd.model.outcome import Call, Channel

__all__ = ["blank", "form_arguments"]

_DEPTH = 4


def _types(schema: Mapping[str, Any], root: Any) -> list[str]:
    """The JSON types a property allows (through `anyOf`/`oneOf` and `$ref`)."""
    kind = schema.get("type")
    if isinstance(kind, str):
        return [kind]
    if isinstance(kind, list):
        return [k for k in kind if isinstance(k, str)]
    found: list[str] = []
    for key in ("anyOf", "oneOf"):
        for option in schema.get(key) or []:
            resolved = deref(option, root)
            if isinstance(resolved, Mapping):
                found += _types(resolved, root)
    if not found and "properties" in schema:
        found.append("object")
    return found


def blank(schema: Any, root: Any, depth: int = 0) -> tuple[bool, Any]:
    """What a form sends for a field left blank (`""`, `[]`, an object of blanks, or null), if it sends one."""
    resolved = deref(schema, root)
    if not isinstance(resolved, Mapping) or depth > _DEPTH:
        return False, None
    types = _types(resolved, root)
    if "string" in types:
        return True, ""
    if "array" in types:
        return True, []
    if "object" in types:
        options = [deref(o, root) for o in (resolved.get("anyOf") or resolved.get("oneOf") or [resolved])]
        shape = next((o for o in options if isinstance(o, Mapping) and "properties" in o), resolved)
        inner = {}
        for name, prop in (shape.get("properties") or {}).items():
            sent, value = blank(prop, root, depth + 1)
            if sent:
                inner[name] = value
        return True, inner
    if "null" in types:
        return True, None
    return False, None


def form_arguments(tool: Tool) -> tuple[dict[str, Any], list[str]]:
    """The model's smallest arguments plus every optional field as a form sends it blank, and those fields' names."""
    schema = tool.input_schema
    arguments = minimal_arguments(tool)
    required = set(schema.get("required") or [])
    blanks: list[str] = []
    for name, prop in (schema.get("properties") or {}).items():
        if name in required or name in arguments:
            continue
        sent, value = blank(prop, schema)
        if sent:
            arguments[name] = value
            blanks.append(name)
    return arguments, blanks


@check(
    "form-payloads",
    sends="Per tool with optional fields: its smallest valid arguments (a model's payload), then the same with "
    'every optional field as a form sends it left blank (`""`, `[]`, an object of blanks, `null`).',
    blind="Forms that send other blanks (`0`, `false`); nested required fields left blank; a tool that refuses "
    "the caller (reported as refused the caller, never judged).",
    title="Each tool takes a form client's payload as well as a model's",
    section="tools",
    url=f"{SPEC}/server/tools#calling-tools",
    rule="Clients with forms send every optional field, with empty strings inside optional objects and empty "
    "arrays, where a model sends only what it fills in. Both shapes are valid calls: a tool accepts both, or "
    "refuses the form's with a tool error that names the field. It never crashes, hangs, leaks, or answers on "
    "the protocol channel.",
    fix="Treat an empty optional value as absent (`if slug:` rather than `if slug is not None:`), or refuse it "
    'with a tool error naming the field ("slug, when given, cannot be empty").',
)
async def form_payloads(probe: Probe) -> None:
    problems: list[str] = []
    exercised = 0
    for tool in await probe.tools():
        if schema_problems(tool.input_schema):
            continue
        arguments, blanks = form_arguments(tool)
        if not blanks:
            continue
        exercised += 1
        model = await probe.send(Call.tool(tool.name, minimal_arguments(tool)))
        form = await probe.send(Call.tool(tool.name, arguments))
        form_broken = False
        for shape, outcome in (("the model's payload", model), ("the form's payload", form)):
            problem = broken(probe, outcome, outcome.call.arguments)
            if problem is None and outcome.channel is Channel.PROTOCOL_ERROR:
                problem = "a protocol error"
            if problem is not None:
                problems.append(f"{tool.name}, {shape}: {problem}: {shown(outcome)}")
                form_broken = outcome is form
        if not form_broken and form.channel is Channel.TOOL_ERROR and model.channel is not Channel.TOOL_ERROR:
            text = form.text.lower()
            if not any(name.lower() in text or name.replace("_", " ").lower() in text for name in blanks):
                fields = ", ".join(blanks)
                problems.append(
                    f"{tool.name}: the form's payload was refused without naming a field ({fields}): {shown(form)}"
                )
    if not exercised:
        raise NotApplicable("no tool has optional fields a form would send blank")
    fail_unless(problems, "a tool does not take a form client's payload")
