"""Coverage in numbers: per harness and kind, what was covered of what the server offers, and what was not.

Kinds and what "covered" means for each:

- `tools`, `resources`, `templates`, `prompts`: offered and called at least once (any outcome);
- `arguments`: a tool's declared input property (or a prompt's argument) that some call passed;
- `values`: an enum value (or a boolean's true and false) that some call passed;
- `failures`: a declared failure observed in an answer and asserted by a step naming its reason.

`total` pools every kind. A threshold on a kind with nothing offered fails (nothing was checked).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from mcpbdd._text import markdown_code, markdown_text

__all__ = ["KINDS", "TOTAL", "Tally", "below", "markdown", "summarise"]

KINDS = ("tools", "resources", "templates", "prompts", "arguments", "values", "failures")
TOTAL = "total"


@dataclass
class Tally:
    """Covered of offered, and the names of what was not covered."""

    covered: int = 0
    offered: int = 0
    uncovered: list[str] = field(default_factory=list)

    @property
    def percent(self) -> float | None:
        return None if self.offered == 0 else 100.0 * self.covered / self.offered

    def count(self, name: str, covered: bool) -> None:
        self.offered += 1
        if covered:
            self.covered += 1
        else:
            self.uncovered.append(name)

    def to_json(self) -> dict[str, Any]:
        percent = self.percent
        return {
            "covered": self.covered,
            "offered": self.offered,
            "percent": None if percent is None else round(percent, 2),
            "uncovered": self.uncovered,
        }


def _harness(section: Mapping[str, Any]) -> dict[str, Tally]:
    tallies = {kind: Tally() for kind in (*KINDS, TOTAL)}
    for kind in ("tools", "resources", "templates", "prompts"):
        for name, item in sorted(section.get(kind, {}).items()):
            if item.get("offered"):
                tallies[kind].count(name, bool(item.get("calls")))
    _count_tool_inputs(section, tallies["arguments"], tallies["values"])
    _count_prompt_arguments(section, tallies["arguments"])
    _count_failures(section, tallies["failures"])
    for kind in KINDS:
        tallies[TOTAL].covered += tallies[kind].covered
        tallies[TOTAL].offered += tallies[kind].offered
    return tallies


def _count_tool_inputs(section: Mapping[str, Any], arguments: Tally, values: Tally) -> None:
    """Each offered tool's declared arguments (`tool.prop`) and enum or boolean values (`tool.prop=value`)."""
    for tool, item in sorted(section.get("tools", {}).items()):
        if not item.get("offered"):
            continue
        for prop, usage in sorted(item.get("arguments", {}).items()):
            if usage.get("declared"):
                arguments.count(f"{tool}.{prop}", usage.get("used", 0) > 0)
        for prop, counts in sorted(item.get("values", {}).items()):
            for value, used in sorted(counts.items()):
                values.count(f"{tool}.{prop}={value}", used > 0)


def _count_prompt_arguments(section: Mapping[str, Any], arguments: Tally) -> None:
    """Each offered prompt's declared arguments (`prompt.argument`), after the tools' in the same tally."""
    for prompt, item in sorted(section.get("prompts", {}).items()):
        for argument, usage in sorted(item.get("arguments", {}).items()) if item.get("offered") else ():
            if usage.get("declared"):
                arguments.count(f"{prompt}.{argument}", usage.get("used", 0) > 0)


def _count_failures(section: Mapping[str, Any], failures: Tally) -> None:
    """Each declared failure (`tool:reason`): covered once a step asserted it."""
    for tool, declared in sorted(section.get("failures", {}).items()):
        for reason, entry in sorted(declared.items()):
            if entry.get("declared"):
                failures.count(f"{tool}:{reason}", entry.get("asserted", 0) > 0)


def summarise(document: Mapping[str, Any]) -> dict[str, dict[str, Tally]]:
    """Harness -> kind (and `total`) -> Tally."""
    return {name: _harness(section) for name, section in sorted(document.get("harnesses", {}).items())}


def below(summary: Mapping[str, Mapping[str, Tally]], thresholds: Mapping[str, float]) -> list[str]:
    """Every (harness, kind) under its threshold, as a sentence; [] when the gate passes."""
    failures: list[str] = []
    if not thresholds:
        return failures
    if not summary:
        return ["the coverage holds no harness (no scenario ran)"]
    for harness, tallies in summary.items():
        for kind, minimum in thresholds.items():
            tally = tallies[kind]
            percent = tally.percent
            if percent is None:
                failures.append(f"{harness}: {kind}: nothing offered to cover (threshold {minimum:g}%)")
            elif percent < minimum:
                failures.append(
                    f"{harness}: {kind} {percent:.1f}% ({tally.covered}/{tally.offered}) is below {minimum:g}%"
                )
    return failures


def _names(names: list[str], limit: int = 12) -> str:
    shown = ", ".join(markdown_code(name) for name in names[:limit])
    return shown + (f" and {len(names) - limit} more" if len(names) > limit else "") if names else "—"


def _percent(tally: Tally) -> str:
    percent = tally.percent
    return "n/a" if percent is None else f"{percent:.0f}%"


def markdown(document: Mapping[str, Any]) -> str:
    """The Markdown a CI job summary shows: per harness, a table of kinds, then one row per tool."""
    lines = ["# MCP coverage", ""]
    for harness, tallies in summarise(document).items():
        section = document["harnesses"][harness]
        lines += [f"## {markdown_text(harness)} harness ({section.get('scenarios', 0)} scenarios)", ""]
        lines += ["| kind | covered | offered | % | not covered |", "| --- | ---: | ---: | ---: | --- |"]
        for kind in (*KINDS, TOTAL):
            tally = tallies[kind]
            uncovered = "" if kind == TOTAL else _names(tally.uncovered)
            lines.append(f"| {kind} | {tally.covered} | {tally.offered} | {_percent(tally)} | {uncovered} |")
        lines += ["", "| tool | calls | arguments used | scenarios |", "| --- | --- | --- | ---: |"]
        for tool, item in sorted(section.get("tools", {}).items()):
            calls = ", ".join(f"{markdown_text(channel)} {n}" for channel, n in sorted(item.get("calls", {}).items()))
            calls = calls or "**none**"
            arguments = item.get("arguments", {})
            used = sum(1 for usage in arguments.values() if usage.get("declared") and usage.get("used"))
            declared = sum(1 for usage in arguments.values() if usage.get("declared"))
            name = markdown_code(tool) + ("" if item.get("offered") else " (not offered)")
            lines.append(f"| {name} | {calls} | {used}/{declared} | {len(item.get('scenarios', []))} |")
        lines.append("")
    return "\n".join(lines)
