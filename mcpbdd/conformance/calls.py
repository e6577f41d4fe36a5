"""The checks that call the server: refusals, request state, leaks, structured results, error channels.

Every call is derived from the server's own listings: tool names it never listed, arguments that
break the input schema it advertises (a required key left out, a property of the wrong type), the
smallest arguments it accepts (`mcpbdd.checks.schema.minimal`, as the generated calls build them),
a URI no resource or template can match.
"""

from __future__ import annotations

import uuid
from typing import Any

from mcp_types import (
    HEADER_MISMATCH,
    INTERNAL_ERROR,
    INVALID_PARAMS,
    METHOD_NOT_FOUND,
    MISSING_REQUIRED_CLIENT_CAPABILITY,
    UNSUPPORTED_PROTOCOL_VERSION,
    URL_ELICITATION_REQUIRED,
)

from mcpbdd.checks.schema import schema_problems, violations
from mcpbdd.conformance.arguments import failing_arguments, schema_breaking_arguments
from mcpbdd.conformance.probe import Probe, minimal_arguments, unused_name
from mcpbdd.conformance.registry import SPEC, NotApplicable, check
from mcpbdd.conformance.verdict import broken, fail_unless, refusal_problem, shown
from mcpbdd.harness.base import CLIENT_REFUSED
from mcpbdd.model.outcome import Call, Channel, Outcome, ProtocolError

__all__ = ["RESERVED"]

_TOOLS = f"{SPEC}/server/tools"


@check(
    "unknown-tool",
    sends="One `tools/call` of a name no tool of `tools/list` has (`mcpbdd-no-such-tool`, numbered until "
    "unused), with no arguments.",
    blind="A dispatcher that refuses only names it finds suspicious (one unknown name is tried); what the "
    "server does with the name beyond its answer (a log on its side).",
    title="A call of a tool the server does not offer is refused",
    section="tools",
    url=f"{_TOOLS}#error-handling",
    rule="A `tools/call` naming a tool the server never listed must be refused: as a tool error (`isError: true`, "
    "what the Python SDK answers by default) or as the protocol error -32602. Never a result, never a crash "
    "(-32603, no answer), and the refusal leaks no stack frame or path.",
    fix="Look the name up before dispatching and refuse an unknown one with a clear sentence "
    '("Unknown tool: NAME"); the official SDKs do this for you unless a custom dispatcher bypasses them.',
)
async def unknown_tool(probe: Probe) -> None:
    names = [tool.name for tool in await probe.tools()]
    outcome = await probe.send(Call.tool(unused_name(names, "mcpbdd-no-such-tool"), {}))
    problem = refusal_problem(probe, outcome, "the call of a tool nobody listed")
    fail_unless([f"{problem}: {shown(outcome)}"] if problem else [], "an unknown tool was not refused properly")


@check(
    "invalid-arguments",
    sends="Per tool whose input schema some arguments can break: one `tools/call` leaving out its first "
    "required argument, else setting one property to a value of the wrong type (an object, a number, a "
    "string, whichever the schema refuses).",
    blind="Tools whose schema accepts anything (no `required`, no `type`); whether the tool ran anyway when the"
    " refusal came as a tool error (a side effect on the server's side is not observable from the "
    "answer).",
    title="Arguments that break the input schema are refused",
    section="tools",
    url=f"{_TOOLS}#error-handling",
    rule="A server must validate a call's arguments against the `inputSchema` it advertises. A call that leaves "
    "out a required argument or sends one of the wrong type is refused, as a tool error the model can read "
    "(SEP-1303) or the protocol error -32602; it never runs the tool, never crashes, never leaks.",
    fix="Validate the arguments before the tool runs (the SDKs' decorators do, from the function's signature); "
    "a hand-written schema must say what the code needs (`required`, `type`).",
)
async def invalid_arguments(probe: Probe) -> None:
    problems: list[str] = []
    exercised = 0
    for tool in await probe.tools():
        arguments = schema_breaking_arguments(tool)
        if arguments is None:
            continue
        exercised += 1
        outcome = await probe.send(Call.tool(tool.name, arguments))
        problem = refusal_problem(probe, outcome, f"arguments breaking the input schema of {tool.name!r}")
        if problem is not None:
            problems.append(f"{problem}: {shown(outcome)}")
    if not exercised:
        raise NotApplicable("no tool has an input schema that any arguments could break")
    fail_unless(problems, "arguments that break an input schema were not refused properly")


@check(
    "unknown-resource",
    sends="One `resources/read` of `mcpbdd-conformance://no-such-resource/<random>`, when the server declares "
    "resources.",
    blind="A template that matches every URI (then the URI exists); unknown URIs of the server's own schemes "
    "(only the one scheme is tried).",
    title="Reading a resource that does not exist is -32602 with data.uri",
    section="resources",
    url=f"{SPEC}/server/resources#error-handling",
    rule="`resources/read` of a URI that no resource or template serves is the protocol error -32602 "
    "(invalid params) whose `data.uri` is the URI asked for (SEP-2164), so a client can tell which read failed. "
    "Not a result with empty contents, not -32002, not a crash.",
    fix="Raise the SDK's resource-not-found error (`ResourceNotFoundError` in the Python SDK) for an unknown URI, "
    "or `MCPError(INVALID_PARAMS, message, data={'uri': uri})` by hand.",
)
async def unknown_resource(probe: Probe) -> None:
    if not await probe.declares("resources"):
        raise NotApplicable("the server declares no resources capability")
    uri = f"mcpbdd-conformance://no-such-resource/{uuid.uuid4().hex}"
    outcome = await probe.send(Call.resource(uri))
    problem = broken(probe, outcome)
    error = outcome.error
    if problem is None and (outcome.channel is not Channel.PROTOCOL_ERROR or error is None):
        problem = "it was not a protocol error"
    elif problem is None and error is not None and error.code != INVALID_PARAMS:
        problem = f"the error code is {error.code}, not -32602"
    elif problem is None and error is not None and (not isinstance(error.data, dict) or error.data.get("uri") != uri):
        problem = f"the error's data is {error.data!r}, not {{'uri': {uri!r}}}"
    fail_unless([f"{problem}: {shown(outcome)}"] if problem else [], "an unknown resource was not refused properly")


async def asking_call(probe: Probe) -> Outcome | None:
    """The first well-formed tool call that asks for input with a request state, or None."""
    for tool in await probe.tools():
        outcome = await probe.send(Call.tool(tool.name, minimal_arguments(tool)))
        if outcome.channel is Channel.INPUT_REQUIRED and outcome.request_state:
            return outcome
    return None


def _tampered(state: str) -> str:
    middle = len(state) // 2
    flipped = "A" if state[middle] != "A" else "B"
    return state[:middle] + flipped + state[middle + 1 :]


@check(
    "tampered-request-state",
    sends="Per tool, its smallest valid arguments until one answers `InputRequiredResult` with a "
    "`requestState`; then that call again with empty `inputResponses` and the state with one character "
    "changed (2026-07-28 only).",
    blind="Tools that ask only for other arguments than their smallest; a state bound to the wrong caller or "
    "replayed (one alteration is tried); 2025-11-25, whose questions come mid-call with no state.",
    title="A tampered request state is refused",
    section="multi-round-trip",
    url=f"{SPEC}/server/tools",
    rule="On 2026-07-28 a call that needs input returns `InputRequiredResult` with an opaque `requestState` the "
    "client echoes back (SEP-2322). The server must not trust a state it did not issue: a retry carrying an "
    "altered state is refused with the protocol error -32602, and the tool does not run.",
    fix="Seal the request state (the Python SDK's `MCPServer` does: AES-GCM bound to the caller, request and "
    "arguments) and refuse one that does not open; never decode a client-held state as plain JSON.",
    modern_only=True,
)
async def tampered_request_state(probe: Probe) -> None:
    asked = await asking_call(probe)
    if asked is None or asked.request_state is None:
        raise NotApplicable("no tool asks for input (with a request state) when called with its smallest arguments")
    retry = await probe.harness.send(
        probe.caller, asked.call, input_responses={}, request_state=_tampered(asked.request_state)
    )
    error = retry.error
    if retry.channel is Channel.PROTOCOL_ERROR and error is not None and error.code == INVALID_PARAMS:
        return
    fail_unless([f"the retry with an altered request state: {shown(retry)}"], "a tampered request state was accepted")


@check(
    "structured-results",
    sends="Per tool with an `outputSchema`: one `tools/call` with its smallest valid arguments.",
    blind="Results of other arguments (a tool that fails on its smallest arguments is never judged: not "
    "applicable when none succeeds); content blocks beside `structuredContent`.",
    title="Structured results match the tool's output schema",
    section="tools",
    url=f"{_TOOLS}#output-schema",
    rule="A tool that advertises an `outputSchema` must return `structuredContent` that conforms to it in every "
    "successful result (clients validate it and refuse a result that does not).",
    fix="Return the declared model from the tool (the SDK derives the schema from the return type and serialises "
    "it); when the schema is hand-written, keep it in step with what the code returns.",
)
async def structured_results(probe: Probe) -> None:
    problems: list[str] = []
    exercised = 0
    for tool in await probe.tools():
        if tool.output_schema is None or schema_problems(tool.output_schema):
            continue
        outcome = await probe.send(Call.tool(tool.name, minimal_arguments(tool)))
        if outcome.channel is Channel.TRANSPORT_FAILURE and CLIENT_REFUSED in (outcome.failure or ""):
            exercised += 1
            problems.append(f"{tool.name}: {outcome.failure}")
        if outcome.channel is not Channel.OK:
            continue
        exercised += 1
        structured = outcome.structured
        if structured is None:
            problems.append(f"{tool.name}: a successful result without structuredContent")
            continue
        found = violations(tool.output_schema, structured)
        if found:
            problems.append(f"{tool.name}: " + "; ".join(str(v) for v in found[:3]))
    if not exercised:
        raise NotApplicable("no tool with an output schema returned a result for its smallest arguments")
    fail_unless(problems, "a structured result breaks its output schema")


RESERVED = range(-32768, -32000 + 1)
"""JSON-RPC 2.0's reserved block: pre-defined errors and "implementation-defined server-errors" (-32000 to -32099);
"the remainder of the space is available for application defined errors". MCP and its SDKs give codes in it their
own meanings (-32000 connection closed and -32001 request timeout in the SDKs, -32002 an unknown resource on
2025-11-25, -32042 URL elicitation required), so a domain refusal there reads as something it is not."""

MCP_ANSWERS = {
    URL_ELICITATION_REQUIRED: "URL elicitation required",
    MISSING_REQUIRED_CLIENT_CAPABILITY: "missing required client capability",
    UNSUPPORTED_PROTOCOL_VERSION: "unsupported protocol version",
    HEADER_MISMATCH: "header mismatch",
}
"""The reserved codes MCP defines for what a well-formed call may legitimately meet (the tool needs a URL
elicitation, a capability the client did not declare, another protocol version; an HTTP header that disagrees
with the body): answers of the protocol, not domain refusals."""


def _wrong_channel(error: ProtocolError, arguments: dict[str, Any]) -> str | None:
    """Why a protocol error of a schema-valid call is on the wrong channel, or None when it is a legitimate one.

    -32603 is a crash and -32601 a tool the server listed but cannot find; -32602 may refuse a value the schema
    cannot express (an unsupported format) when it names the argument, in its data or its message; the codes MCP
    defines for the protocol's own answers (`MCP_ANSWERS`) pass. Any other code in JSON-RPC's reserved block
    (-32768 to -32000: -32600, -32700, the server range) is a reserved meaning borrowed for a domain refusal.
    Codes outside it are the application's own (an error contract's) and pass.
    """
    if error.code == INVALID_PARAMS:
        data = error.data if isinstance(error.data, dict) else {}
        if any(name in data or name in error.message for name in arguments):
            return None
        return "invalid params -32602 naming no argument"
    if error.code in (INTERNAL_ERROR, METHOD_NOT_FOUND):
        return {INTERNAL_ERROR: "the internal error -32603 (a crash)", METHOD_NOT_FOUND: "method not found -32601"}[
            error.code
        ]
    if error.code in RESERVED and error.code not in MCP_ANSWERS:
        return f"the reserved JSON-RPC code {error.code}, not a domain refusal's (a tool error, or a code outside it)"
    return None


@check(
    "error-channels",
    sends="Per tool: `tools/call` with arguments its schema accepts that are likely to fail (the smallest, "
    "every string an unknown id, every string empty, every number at -1, 0 and 2^31, each only when "
    "valid; at most four, stopping at the first wrong channel), then one call with schema-breaking "
    "arguments.",
    blind="Failures that need state the server does not have yet (an id that exists, a second call); whether a "
    "tool error should have been a protocol error (any tool error passes); codes outside JSON-RPC's "
    "reserved block (an application's own, which pass).",
    title="A well-formed call is never a protocol error; a malformed one is never a result",
    section="tools",
    url=f"{_TOOLS}#error-handling",
    rule="Tool failures (a note not found, a refused operation) are tool errors the model can read and recover "
    "from; protocol errors are for requests the server cannot process. A call with arguments the input schema "
    "accepts is never an internal error (-32603) or method not found (-32601), nor invalid params (-32602) unless "
    "the error names the argument whose value it refuses (a value the schema cannot express), nor any other code "
    "JSON-RPC reserves (-32768 to -32000: -32600 invalid request, -32700 parse error, the -32000..-32099 server "
    "range, whose codes MCP and its SDKs give meanings: connection closed, request timeout, resource not found) "
    "but those MCP defines for its own answers (-32042 URL elicitation required, -32021 missing required client "
    "capability, -32022 unsupported protocol version, -32020 header mismatch); and a call of an unknown tool or "
    "with schema-breaking arguments never comes back as a successful result.",
    fix="Report what went wrong inside the tool as a tool error (raise the SDK's `ToolError`, or return "
    "`isError: true`); keep `MCPError` for failures of the request itself.",
)
async def error_channels(probe: Probe) -> None:
    problems: list[str] = []
    tools = await probe.tools()
    for tool in tools:
        for arguments in failing_arguments(tool):  # the smallest first; then unknown ids, empty strings, bounds
            outcome = await probe.send(Call.tool(tool.name, arguments))
            error = outcome.error
            wrong = _wrong_channel(error, arguments) if outcome.channel is Channel.PROTOCOL_ERROR and error else None
            if wrong is not None:
                problems.append(f"a well-formed call answered with {wrong}: {shown(outcome)}")
                break
        breaking = schema_breaking_arguments(tool)
        if breaking is not None:
            refused = await probe.send(Call.tool(tool.name, breaking))
            if refused.channel is Channel.OK:
                problems.append(f"a malformed call: {shown(refused)}")
    if not tools:
        raise NotApplicable("the server offers no tools")
    fail_unless(problems, "an answer came on the wrong channel")
