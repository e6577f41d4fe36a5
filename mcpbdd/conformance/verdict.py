"""The judgements the call checks share: a crash, a leak, a protocol error where a tool error belongs.

Built on the generated calls' verdicts (`mcpbdd.checks.generated.verdicts.judge`), so the pack
and `"tool" survives N generated calls` call the same answer a crash or a leak.
"""

from __future__ import annotations

from typing import Any

from mcp_types import INTERNAL_ERROR, INVALID_PARAMS

from mcpbdd.checks.generated.verdicts import CRASH, HANG, LEAK, judge
from mcpbdd.conformance.probe import Probe
from mcpbdd.conformance.registry import ConformanceFailure
from mcpbdd.model.outcome import Call, Channel, Outcome

__all__ = ["broken", "fail_unless", "refusal_problem", "shown"]


def shown(outcome: Outcome) -> str:
    """`tools/call x {...} came back as ...`: the call and its answer, for a failure message."""
    return f"{outcome.call} {outcome.call.arguments or {}} came back as {outcome.describe()}"


def broken(probe: Probe, outcome: Outcome, arguments: dict[str, Any] | None = None) -> str | None:
    """Why the answer is broken whatever the call was (a crash, a hang, a leak), or None."""
    found = judge(outcome, arguments or {}, probe.rules(outcome.call.target))
    for kind in (CRASH, HANG, LEAK):
        if kind in found:
            return f"{kind}: {found[kind]}"
    return None


def refusal_problem(probe: Probe, outcome: Outcome, what: str) -> str | None:
    """What is wrong with how a malformed tool call (`what`) was refused: it must be a tool error or -32602."""
    problem = broken(probe, outcome, outcome.call.arguments)
    if problem is not None:
        return problem
    if outcome.channel is Channel.TOOL_ERROR:
        return None
    if outcome.channel is Channel.PROTOCOL_ERROR and outcome.error is not None:
        if outcome.error.code == INVALID_PARAMS:
            return None
        if outcome.error.code == INTERNAL_ERROR:
            return f"{what} is the internal error -32603 (a crash), not a refusal"
        return f"{what} is the protocol error {outcome.error.code}, where the spec names -32602 (invalid params)"
    return f"{what} was not refused"


def fail_unless(problems: list[str], heading: str) -> None:
    """Raise `ConformanceFailure` listing `problems` under `heading` when there are any."""
    if problems:
        listed = "".join(f"\n  - {problem}" for problem in problems)
        raise ConformanceFailure(f"{heading}:{listed}")


def call_of(tool: str, arguments: dict[str, Any]) -> Call:
    return Call.tool(tool, arguments)
