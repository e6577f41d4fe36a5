"""The error catalog: every failure a server's tools declare, next to the scenarios that specify it.

Reviewers read it beside the tool catalog: for each tool, each declared failure's reason,
channel (tool error, or protocol error with its JSON-RPC code), whether a retry can help,
the recovery hint, whether state may have changed, and which scenarios pin it down. A
declared failure no scenario specifies is shown as such, so gaps are visible.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from behave.parser import parse_file

from mcpbdd._sdk import registered_tools
from mcpbdd._text import markdown_code, markdown_text
from mcpbdd.harness.targets import ServerTarget, load_inprocess
from mcpbdd.kit.errors import CONTRACTS, ErrorContract, code_name

_REASON_STEP = re.compile(r'(?:the error reason is|the call fails with the tool error) "([^"]+)"')
"""The steps that assert a declared reason: on its own, or with the tool-error channel in one step."""
_QUOTED = re.compile(r'"([^"]+)"')


@dataclass
class Specified:
    """Scenarios that assert a (tool, reason) pair."""

    by_pair: dict[tuple[str, str], list[str]] = field(default_factory=dict)


def specifications(features: Path, tools: set[str]) -> Specified:
    """Scenario `file:line name` per (tool, reason): a scenario that calls the tool and asserts the reason."""
    found = Specified()
    for path in sorted(features.rglob("*.feature")):
        feature = parse_file(str(path))
        if feature is None:
            continue
        for scenario in feature.walk_scenarios():
            texts = [step.name for step in scenario.all_steps]
            reasons = [m.group(1) for text in texts for m in [_REASON_STEP.search(text)] if m]
            called = {q for text in texts if "calls" in text for q in _QUOTED.findall(text) if q in tools}
            for tool in called:
                for reason in reasons:
                    where = f"{path.as_posix()}:{scenario.line} {scenario.name}"
                    found.by_pair.setdefault((tool, reason), []).append(where)
    return found


def render(contracts: list[ErrorContract], specified: Specified, undeclared_tools: list[str]) -> str:
    """The catalog as Markdown: one table per tool."""
    lines = ["# Error catalog", ""]
    for contract in contracts:
        lines += [f"## {markdown_code(contract.tool, cell=False)}", ""]
        lines += [
            "| reason | channel | retry helps | recovery hint | state | specified by |",
            "| --- | --- | --- | --- | --- | --- |",
        ]
        for failure in contract.failures.values():
            channel = "tool error" if failure.channel == "tool" else f"protocol error {code_name(failure.code)}"
            state = "may have changed" if failure.changes_state else "unchanged"
            scenarios = specified.by_pair.get((contract.tool, failure.reason), [])
            shown = "<br>".join(markdown_text(where) for where in scenarios) if scenarios else "**no scenario**"
            row = [
                markdown_code(failure.reason),
                channel,
                "yes" if failure.retryable else "no",
                markdown_text(failure.hint) if failure.hint else "—",
                state,
                shown,
            ]
            lines.append("| " + " | ".join(row) + " |")
        lines.append("")
    if undeclared_tools:
        lines += [
            "## Tools without an error contract",
            "",
            ", ".join(markdown_code(t, cell=False) for t in undeclared_tools),
            "",
        ]
    return "\n".join(lines)


def _load(server: str, features: Path) -> tuple[list[ErrorContract], Specified, list[str]]:
    """Load the in-process server (which declares its contracts on import): contracts, specifications, the rest."""
    mcp: Any = load_inprocess(ServerTarget.parse(server))
    tools = sorted(tool.name for tool in registered_tools(mcp))  # the registry the server itself lists
    contracts = [CONTRACTS[name] for name in tools if name in CONTRACTS]
    undeclared = [name for name in tools if name not in CONTRACTS]
    return contracts, specifications(features, set(tools)), undeclared


def catalog(server: str, features: Path) -> str:
    """The server's catalog as Markdown."""
    return render(*_load(server, features))


def catalog_json(server: str, features: Path) -> dict[str, Any]:
    """The catalog for machines: per tool, each declared failure with its scenarios; the tools with no contract."""
    contracts, specified, undeclared = _load(server, features)
    tools = {
        contract.tool: [
            {
                "reason": failure.reason,
                "channel": failure.channel,
                "code": failure.code if failure.channel == "protocol" else None,
                "retryable": failure.retryable,
                "hint": failure.hint,
                "changes_state": failure.changes_state,
                "scenarios": specified.by_pair.get((contract.tool, failure.reason), []),
            }
            for failure in contract.failures.values()
        ]
        for contract in contracts
    }
    return {"tools": tools, "without_contract": undeclared}


def unspecified(data: dict[str, Any]) -> list[str]:
    """`tool:reason` of every declared failure no scenario specifies (what `mcpbdd catalog --strict` refuses)."""
    return [f"{tool}:{f['reason']}" for tool, failures in data["tools"].items() for f in failures if not f["scenarios"]]


__all__ = ["Specified", "catalog", "catalog_json", "render", "specifications", "unspecified"]
