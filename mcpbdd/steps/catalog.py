"""The vocabulary as data: every registered mcpbdd step, grouped by concern, with its example.

Read from behave's own step registry, so the listing `mcpbdd steps` prints can never
drift from the steps that actually exist. Each step function's docstring opens with a
concrete example line; that is what is shown.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from behave.step_registry import registry

GROUPS = {
    "mcpbdd.steps.server": "Server and harness",
    "mcpbdd.steps.callers": "Tenants and callers",
    "mcpbdd.steps.calls": "Calls",
    "mcpbdd.steps.outcomes": "Outcomes and error channels",
    "mcpbdd.steps.storage": "Seeded storage and clock",
    "mcpbdd.steps.rounds": "Input-required rounds",
    "mcpbdd.steps.consent": "Consent gates",
    "mcpbdd.steps.upstream": "Upstream services",
    "mcpbdd.steps.contracts": "Contracts",
}

NOTES = """
    Tags: @harness.context, @harness.client, @harness.client.legacy pick the harness of a
    feature or scenario (default: `harness` under [tool.mcpbdd], or -D mcpbdd.harness=...).
    Arguments: a JSON object doc string, inline JSON, or a table with the columns
    argument | value (a cell that reads as JSON is JSON, anything else is text).
    Error codes: a number (-32602) or a name (InvalidParams, MethodNotFound, InternalError, ...).
    Outcomes: ok, tool-error, protocol-error, input-required, transport-failure.
"""


@dataclass(frozen=True)
class Entry:
    keyword: str
    phrase: str
    example: str
    group: str


def _phrase(pattern: str) -> str:
    """`the tenant "{tenant:Text}"` -> `the tenant "{tenant}"`."""
    return re.sub(r"\{(\w+):\w+\}", r"{\1}", pattern)


def entries() -> list[Entry]:
    found: list[Entry] = []
    for step_type, matchers in registry.steps.items():
        for matcher in matchers:
            module = matcher.func.__module__
            if module not in GROUPS:
                continue
            doc = (matcher.func.__doc__ or "").strip().splitlines()
            found.append(Entry(step_type.capitalize(), _phrase(matcher.pattern), doc[0] if doc else "", GROUPS[module]))
    return found


def grouped() -> dict[str, list[Entry]]:
    groups: dict[str, list[Entry]] = {title: [] for title in GROUPS.values()}
    for entry in entries():
        groups[entry.group].append(entry)
    return {title: items for title, items in groups.items() if items}
