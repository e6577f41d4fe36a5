"""`error-texts-leak-nothing`: every text a client can observe of a failing request, read for what stays inside.

A leak shows where a server fails for real, not where it refuses a malformed request (the SDK's
validation answers those before the server's code runs). So besides the refusals (an unknown tool,
arguments breaking the schema, an unknown resource) the check makes well-formed requests likely to
fail inside the server's own code: each tool with the smallest arguments its schema accepts, with
every string an unknown id and every string empty, with every number at a boundary; each resource
template with an unknown id; each prompt with unknown ids for its arguments. It reads the tool
errors, the protocol errors (whatever their code: an internal error -32603 whose message is a
traceback is a crash *and* a leak) and every log message sent during those calls (asked for from
`debug`), for a traceback, a stack frame, a path of the server's installation or machine, or a
configured secret (`mcpbdd.checks.generated.verdicts.judge`, the same rules as the generated calls).
"""

from __future__ import annotations

import re
import uuid
from collections.abc import Iterator
from dataclasses import replace

from mcp_types import CallToolResult, TextContent

from mcpbdd.checks.generated.verdicts import LEAK, judge
from mcpbdd.conformance.arguments import failing_arguments, schema_breaking_arguments, unknown_id
from mcpbdd.conformance.probe import Probe, unused_name
from mcpbdd.conformance.registry import SPEC, check
from mcpbdd.conformance.verdict import fail_unless, shown
from mcpbdd.model.outcome import Call, Channel, Outcome

__all__ = ["failing_calls"]

_VARIABLE = re.compile(r"\{[+#./;?&]?([^}]+)\}")


async def failing_calls(probe: Probe) -> Iterator[Call]:
    """Every request the check makes, refusals first, then the well-formed ones likely to fail."""
    tools = await probe.tools()
    calls = [Call.tool(unused_name([t.name for t in tools], "mcpbdd-no-such-tool"), {"mcpbdd": "x"})]
    for tool in tools:
        arguments = schema_breaking_arguments(tool)
        if arguments is not None:
            calls.append(Call.tool(tool.name, arguments))
        calls += [Call.tool(tool.name, chosen) for chosen in failing_arguments(tool)]
    if await probe.declares("resources"):
        calls.append(Call.resource(f"mcpbdd-conformance://no-such-resource/{uuid.uuid4().hex}"))
        for template in await probe.items("templates"):
            calls.append(Call.resource(_VARIABLE.sub(lambda _: unknown_id(), template.uri_template)))
    # No unknown prompt name: the Python SDK answers one with -32603 after rendering a traceback into its own
    # log (about a second a call); a listed prompt with unknown ids reaches the prompt's own code instead.
    for prompt in await probe.items("prompts"):
        names = [argument.name for argument in prompt.arguments or [] if argument.required]
        calls.append(Call.prompt(prompt.name, {name: unknown_id() for name in names}))
    return iter(calls)


def _log_outcomes(outcome: Outcome) -> list[Outcome]:
    """Each log message sent during the call, as an error text to judge (a log is diagnostic text, like one)."""
    return [
        replace(
            outcome,
            channel=Channel.TOOL_ERROR,
            result=CallToolResult(content=[TextContent(type="text", text=message.text)], is_error=True),
            error=None,
            note=f"log message {message}",
        )
        for message in outcome.log_messages
    ]


@check(
    "error-texts-leak-nothing",
    sends="An unknown tool; per tool its schema-breaking arguments and up to four well-formed calls likely to "
    "fail (as error-channels); an unknown resource and each resource template with unknown ids; each "
    "prompt with unknown ids for its required arguments; every call asking for log messages from `debug`.",
    blind="Logs the server writes on its own side (stderr, files); notifications outside a call; secrets it was"
    " not told (only `secrets` and `--token` are looked for); leaks behind state the calls never reach; "
    "an unknown prompt name (not sent: see the check's source).",
    title="Error texts and log messages leak no stack frame, path or secret",
    section="security",
    url=f"{SPEC}/server/tools#security-considerations",
    rule="Whatever fails, what the client reads is for the client and the model: no traceback, no "
    '`File "...", line N`, no path of the server\'s installation or machine, no configured secret. That holds for '
    "refusals (an unknown tool, arguments breaking the schema, an unknown resource) and, above all, for "
    "well-formed requests that fail inside the server: each tool called with arguments its schema accepts but "
    "that are likely to fail (unknown ids, empty strings, numeric boundaries), each resource template with an "
    "unknown id, each prompt with unknown ids; their tool errors, protocol errors (any code) and the log "
    "messages sent during them.",
    fix="Catch exceptions at the edge and answer with a sentence; log the details on the server's side, not in "
    "the client's log notifications. Do not put `str(exc)` or `traceback.format_exc()` of an unexpected "
    "exception into a result, an `MCPError` or a log message.",
)
async def error_texts_leak_nothing(probe: Probe) -> None:
    problems: list[str] = []
    level = probe.harness.log_level
    probe.harness.log_level = "debug"  # what a client that asked for every log message sees
    try:
        for call in await failing_calls(probe):
            outcome = await probe.send(call)
            for judged in (outcome, *_log_outcomes(outcome)):
                leak = judge(judged, call.arguments or {}, probe.rules(call.target)).get(LEAK)
                if leak is not None:
                    where = judged.note or "the answer"
                    problems.append(f"leak in {where}: {leak}: {shown(outcome)}")
    finally:
        probe.harness.log_level = level
    fail_unless(problems, "an error text leaks what stays on the server")
