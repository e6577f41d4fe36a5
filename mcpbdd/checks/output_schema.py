"""Tool contracts: what a server advertises about a tool (its input and output schemas) against what it does.

A client, and the model behind it, trusts a tool's advertised schemas: it builds arguments
from the input schema and reads the structured result by the output schema. A server whose
code drifted from its schemas breaks that trust silently, so mcpbdd checks both sides:

- `check_results_match_output_schema(world, tool)` (the step
  `Then every result of "{tool}" matches its output schema`): every successful result of
  the tool in the scenario conforms to the output schema the server advertises, each
  violation named by its JSON path. A tool that advertises no output schema, or a scenario
  with no successful call of it, fails the step: "nothing to check" must never read as a pass.
- `run_tool_contract(harness, tool, arguments)` (Python, either harness): the advertised
  input schema is valid JSON Schema with an object root, the given arguments satisfy it,
  the server does not refuse them with a schema error, the structured content matches the
  output schema and the result carries text content.

Validation is `mcpbdd.checks.schema`'s: the `jsonschema` library, the same one the SDK's
client uses, with the dialect the schema names in `$schema` and JSON Schema 2020-12 (MCP's
default) otherwise. As in the SDK's client, `format` is an annotation, not an assertion.

Where the violations come from: an `MCPServer` tool validates its return value with pydantic
before it answers, so a violation means the advertised schema says more than pydantic checks
(`json_schema_extra`, `WithJsonSchema`, a hand-built schema) or the server is not an SDK
`MCPServer` at all. On the client harness the SDK's client revalidates every result and
refuses a non-conforming one with `RuntimeError("Invalid structured content returned by
tool ...")`; `run_tool_contract` reports that refusal as the output-schema violation it is.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from mcp_types import INVALID_PARAMS, CallToolResult, TextContent, Tool
from referencing.exceptions import Unresolvable

from mcpbdd._text import clip
from mcpbdd.checks.schema import SchemaViolation, schema_problems, violations
from mcpbdd.harness.base import CLIENT_REFUSED, Harness
from mcpbdd.kit.principals import Principal
from mcpbdd.model.outcome import Channel, Outcome

__all__ = [
    "Check",
    "CheckStatus",
    "ContractReport",
    "check_results_match_output_schema",
    "find_tool",
    "is_schema_rejection",
    "result_violations",
    "run_tool_contract",
]

_VALIDATION_FAILURE = re.compile(r"\d+ validation errors? for ")


# --------------------------------------------------------------------------- describing violations


def _describe_violations(found: Sequence[SchemaViolation], indent: str = "    ", limit: int = 20) -> str:
    lines = [f"{indent}{violation}" for violation in found[:limit]]
    if len(found) > limit:
        lines.append(f"{indent}… and {len(found) - limit} more")
    return "\n".join(lines)


# --------------------------------------------------------------------------- the step's check


def find_tool(tools: Sequence[Tool], name: str) -> Tool:
    """The tool called `name`, or an AssertionError naming the tools the server offers."""
    for tool in tools:
        if tool.name == name:
            return tool
    offered = ", ".join(tool.name for tool in tools) or "no tools"
    raise AssertionError(f"The server offers no tool {name!r}; it offers: {offered}")


def result_violations(schema: Mapping[str, Any], outcome: Outcome) -> list[SchemaViolation]:
    """How one successful tool result breaks the output schema (a missing structured content is one violation)."""
    if outcome.structured is None:
        return [SchemaViolation("$", "no structured content (the tool advertises an output schema)", "required")]
    return violations(schema, outcome.structured)


def _usable_schema(tool: Tool, which: str, schema: Mapping[str, Any]) -> Mapping[str, Any]:
    problems = schema_problems(schema)
    if problems:
        raise AssertionError(
            f"The {which} schema {tool.name!r} advertises is not valid JSON Schema, so nothing can be checked "
            f"against it:\n{_describe_violations(problems)}"
        )
    return schema


def check_results_match_output_schema(world: Any, tool: str) -> list[Outcome]:
    """Every successful result of `tool` in the scenario conforms to its advertised output schema.

    Fails (AssertionError) naming, per non-conforming call, its arguments and each violation
    with its JSON path. Also fails when the tool advertises no output schema or no call of it
    succeeded in the scenario, because then the check would pass without checking anything.
    Returns the outcomes it checked. `world` is a `mcpbdd.scenario.world.World`.
    """
    advertised = find_tool(world.offered_tools(), tool)
    if advertised.output_schema is None:
        raise AssertionError(
            f"The tool {tool!r} advertises no output schema, so its results cannot be checked against one. "
            "Give it a structured return type (a pydantic model, a TypedDict, a dataclass) or drop this step."
        )
    schema = _usable_schema(advertised, "output", advertised.output_schema)
    calls = [o for o in world.outcomes if o.method == "tools/call" and o.target == tool]
    checked = [o for o in calls if o.ok]
    if not checked:
        if calls:
            endings = ", ".join(f"{o.channel.value}" for o in calls)
            detail = f"its {len(calls)} call(s) ended: {endings}. Last: {calls[-1].describe()}"
        else:
            detail = "it was not called"
        raise AssertionError(
            f"No call of {tool!r} succeeded in this scenario, so there is no result to check against its output "
            f"schema ({detail}). Add a When step that calls it successfully first."
        )
    failures: list[str] = []
    for number, outcome in enumerate(checked, start=1):
        try:
            found = result_violations(schema, outcome)
        except Unresolvable as exc:
            raise AssertionError(f"The output schema of {tool!r} has a $ref that does not resolve: {exc}") from None
        if found:
            arguments = _compact(outcome.arguments or {})
            failures.append(f"  result {number} (arguments {arguments}):\n{_describe_violations(found)}")
    if failures:
        raise AssertionError(
            f"{len(failures)} of {len(checked)} result(s) of {tool!r} do not match its output schema:\n"
            + "\n".join(failures)
            + f"\nThe advertised output schema: {_compact(schema, 400)}"
        )
    return checked


# --------------------------------------------------------------------------- run_tool_contract


class CheckStatus(StrEnum):
    PASSED = "passed"
    FAILED = "failed"
    SKIPPED = "skipped"


@dataclass(frozen=True)
class Check:
    """One clause of a tool's contract and how it fared (`detail` says why it failed or was skipped)."""

    name: str
    status: CheckStatus
    detail: str = ""

    def __str__(self) -> str:
        detail = "" if not self.detail else f":{self.detail}" if self.detail.startswith("\n") else f": {self.detail}"
        return f"[{self.status.value}] {self.name}{detail}"


INPUT_SCHEMA = "the input schema is valid JSON Schema with an object root"
ARGUMENTS = "the arguments satisfy the input schema"
ACCEPTED = "the server accepts arguments its input schema allows"
OUTPUT = "the structured content matches the output schema"
TEXT = "the result carries text content"


@dataclass
class ContractReport:
    """What `run_tool_contract` found: one Check per clause, and the call's Outcome (None if no call was made)."""

    tool: str
    arguments: dict[str, Any]
    checks: list[Check] = field(default_factory=list)
    outcome: Outcome | None = None
    client_error: str | None = None
    """The SDK client's refusal of the answer (client harness), if it refused it."""

    @property
    def ok(self) -> bool:
        return not self.failures

    @property
    def failures(self) -> list[Check]:
        return [check for check in self.checks if check.status is CheckStatus.FAILED]

    def check(self, name: str) -> Check:
        """The check called `name` (one of the module constants INPUT_SCHEMA, ARGUMENTS, ACCEPTED, OUTPUT, TEXT)."""
        for check in self.checks:
            if check.name == name:
                return check
        raise KeyError(name)

    def describe(self) -> str:
        verdict = "keeps its contract" if self.ok else f"breaks its contract ({len(self.failures)} failed check(s))"
        lines = [f"Tool {self.tool!r} called with {_compact(self.arguments)} {verdict}:"]
        lines.extend(f"  {check}" for check in self.checks)
        if self.outcome is not None:
            lines.append(f"  the call: {self.outcome.describe()}")
        return "\n".join(lines)

    def assert_ok(self) -> None:
        """Raise AssertionError with `describe()` unless every check passed (or was skipped)."""
        if not self.ok:
            raise AssertionError(self.describe())


def is_schema_rejection(outcome: Outcome, tool: str) -> bool:
    """Whether the server refused the call's arguments as invalid rather than ran the tool.

    Two forms: the SDK's argument-validation tool error ("Error executing tool NAME: 1
    validation error for ...") and the protocol error InvalidParams (-32602). A server that
    answers InvalidParams to arguments its schema allows advertises a looser schema than it
    takes: say so in the schema (an `enum`, a `pattern`) and clients will stop sending them.
    """
    if outcome.channel is Channel.PROTOCOL_ERROR and outcome.error is not None:
        return outcome.error.code == INVALID_PARAMS
    if outcome.channel is Channel.TOOL_ERROR:
        text = outcome.text
        return text.startswith(f"Error executing tool {tool}: ") and _VALIDATION_FAILURE.search(text) is not None
    return False


async def run_tool_contract(
    harness: Harness, tool: str, arguments: dict[str, Any], *, caller: Principal | None = None
) -> ContractReport:
    """Check one call of `tool` with `arguments` against what the server advertises for it.

    Checks, in order (a check that cannot apply is `skipped` with the reason):
    the input schema is valid JSON Schema with an object root; `arguments` satisfy it; the
    server does not refuse them with a schema error; a successful result's structured
    content matches the output schema (when one is advertised); a successful or failed
    result carries text content (for clients that read text only). Works on both harnesses;
    `caller` is who makes the call (None: anonymous). Never raises for a broken contract:
    read `report.ok` / `report.describe()` or call `report.assert_ok()`.
    """
    report = ContractReport(tool, dict(arguments))
    advertised = find_tool(await harness.list_tools(caller), tool)
    input_schema: Any = advertised.input_schema

    problems = schema_problems(input_schema)
    if problems:
        report.checks.append(Check(INPUT_SCHEMA, CheckStatus.FAILED, "\n" + _describe_violations(problems)))
    elif not isinstance(input_schema, Mapping) or input_schema.get("type") != "object":
        kind = input_schema.get("type") if isinstance(input_schema, Mapping) else input_schema
        report.checks.append(
            Check(INPUT_SCHEMA, CheckStatus.FAILED, f'MCP requires "type": "object" at the root, got {kind!r}')
        )
    else:
        report.checks.append(Check(INPUT_SCHEMA, CheckStatus.PASSED))

    unchecked = ""
    if problems:
        unchecked = "the input schema is not valid JSON Schema"
        report.checks.append(Check(ARGUMENTS, CheckStatus.SKIPPED, unchecked))
        arguments_ok = False
    else:
        try:
            found = violations(input_schema, arguments)
        except Unresolvable as exc:
            found = [SchemaViolation("$", f"a $ref in the input schema does not resolve: {exc}", "$ref")]
        arguments_ok = not found
        if found:
            unchecked = "the arguments do not satisfy the input schema"
            report.checks.append(Check(ARGUMENTS, CheckStatus.FAILED, "\n" + _describe_violations(found)))
        else:
            report.checks.append(Check(ARGUMENTS, CheckStatus.PASSED))

    outcome = await harness.call_tool(caller, tool, arguments)
    if outcome.failure and outcome.failure.startswith(CLIENT_REFUSED):
        # the SDK client refused an answer it cannot accept (e.g. structured content breaking the output schema)
        report.client_error = clip(outcome.failure[len(CLIENT_REFUSED) :], 600)
        _checks_after_client_refusal(report, advertised, arguments_ok)
        return report
    report.outcome = outcome

    if not arguments_ok:
        report.checks.append(Check(ACCEPTED, CheckStatus.SKIPPED, unchecked))
    elif is_schema_rejection(outcome, tool):
        report.checks.append(
            Check(
                ACCEPTED,
                CheckStatus.FAILED,
                f"the input schema allows these arguments but the server refused them: {outcome.describe()}",
            )
        )
    else:
        report.checks.append(Check(ACCEPTED, CheckStatus.PASSED))

    report.checks.append(_output_check(advertised, outcome))
    report.checks.append(_text_check(outcome))
    return report


def _checks_after_client_refusal(report: ContractReport, advertised: Tool, arguments_ok: bool) -> None:
    """The client harness's SDK client raised instead of returning the answer: say what that means per check."""
    refusal = report.client_error or ""
    about_output = "structured content" in refusal or "schema" in refusal.lower()
    if about_output and arguments_ok:
        report.checks.append(Check(ACCEPTED, CheckStatus.PASSED, "the tool ran and returned a result"))
    else:
        report.checks.append(Check(ACCEPTED, CheckStatus.SKIPPED, "the client refused the answer"))
    if about_output and advertised.output_schema is not None:
        report.checks.append(Check(OUTPUT, CheckStatus.FAILED, f"the SDK client refused the result: {refusal}"))
    else:
        report.checks.append(Check(OUTPUT, CheckStatus.FAILED, f"the client could not complete the call: {refusal}"))
    report.checks.append(Check(TEXT, CheckStatus.SKIPPED, "the client refused the answer"))


def _output_check(advertised: Tool, outcome: Outcome) -> Check:
    if outcome.channel is not Channel.OK:
        return Check(OUTPUT, CheckStatus.SKIPPED, f"the call did not succeed ({outcome.channel.value})")
    schema = advertised.output_schema
    if schema is None:
        return Check(OUTPUT, CheckStatus.SKIPPED, "the tool advertises no output schema")
    problems = schema_problems(schema)
    if problems:
        return Check(
            OUTPUT, CheckStatus.FAILED, "the output schema is not valid JSON Schema:\n" + _describe_violations(problems)
        )
    try:
        found = result_violations(schema, outcome)
    except Unresolvable as exc:
        return Check(OUTPUT, CheckStatus.FAILED, f"a $ref in the output schema does not resolve: {exc}")
    if found:
        return Check(OUTPUT, CheckStatus.FAILED, "\n" + _describe_violations(found))
    return Check(OUTPUT, CheckStatus.PASSED)


def _text_check(outcome: Outcome) -> Check:
    if not isinstance(outcome.result, CallToolResult):
        return Check(TEXT, CheckStatus.SKIPPED, f"no tool result ({outcome.channel.value})")
    if any(isinstance(block, TextContent) and block.text.strip() for block in outcome.result.content):
        return Check(TEXT, CheckStatus.PASSED)
    kinds = ", ".join(block.type for block in outcome.result.content) or "no content blocks"
    return Check(
        TEXT,
        CheckStatus.FAILED,
        f"no non-empty text block ({kinds}); clients that read text only see nothing "
        "(MCP: a tool returning structured content should also return it serialized as text)",
    )


# --------------------------------------------------------------------------- helpers


def _compact(value: Any, limit: int = 300) -> str:
    return clip(json.dumps(value, ensure_ascii=False, default=str), limit)
