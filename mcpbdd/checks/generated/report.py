"""What generated calls found, and the text a failing step shows.

The report is the only output of `check_generated_calls` (a broken verdict never raises),
so it carries everything a reader needs to act: which verdicts broke and how often, the
first failing input of each kind and its shrunk form, each other distinct way of failing
once with its smallest input, the answer, how all calls ended, and the call that
reproduces the run. A run with a dozen crashes of one kind reads as one failure, not a dozen.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from mcpbdd._text import clip
from mcpbdd.checks.generated.rendering import render_input
from mcpbdd.checks.generated.verdicts import CRASH, HANG, KINDS, LEAK, MUTATION, REFUSED

__all__ = ["FailedCall", "GeneratedReport", "Shrunk"]

_KIND_TITLES = {
    CRASH: "crashed",
    LEAK: "leaked",
    HANG: "hung",
    REFUSED: "got an answer the client refused",
    MUTATION: "changed state although rejected",
}


@dataclass(frozen=True)
class FailedCall:
    """One call that broke a verdict: what was sent (and why), what came back, and what is wrong with it."""

    kind: str
    detail: str
    arguments: dict[str, Any]
    source: str
    answer: str


@dataclass(frozen=True)
class Shrunk:
    """The smallest input found that still fails the same way, and how many calls shrinking took."""

    kind: str
    arguments: dict[str, Any]
    detail: str
    answer: str
    calls: int


@dataclass
class GeneratedReport:
    """What `check_generated_calls` found. `ok` when every call passed every verdict."""

    tool: str
    seed: int
    planned: int = 0
    calls: int = 0
    channels: Counter[str] = field(default_factory=Counter)
    sources: Counter[str] = field(default_factory=Counter)
    failures: dict[str, list[FailedCall]] = field(default_factory=dict)
    shrunk: dict[str, Shrunk] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    limits: list[tuple[str, str]] = field(default_factory=list)
    """Calls that met a transport/SDK limit and never reached the tool: (source, why). Not failures."""
    failed_calls: int = 0
    duration: float = 0.0

    @property
    def ok(self) -> bool:
        return not self.failures

    def describe(self) -> str:
        """The whole story in plain text: verdicts, failing inputs (shrunk), how calls ended, how to reproduce."""
        if self.ok:
            head = f"{self.tool!r} survived {self.calls} generated calls (seed {self.seed})."
        else:
            kinds = ", ".join(f"{len(self.failures[k])} {_KIND_TITLES[k]}" for k in KINDS if k in self.failures)
            head = (
                f"{self.tool!r} did not survive {self.planned or self.calls} generated calls (seed {self.seed}): "
                f"{self.failed_calls} call(s) failed ({kinds})."
            )
        lines = [head]
        for kind in KINDS:
            if self.failures.get(kind):
                lines.extend(self._describe_kind(kind))
        endings = ", ".join(f"{count} {channel}" for channel, count in self.channels.most_common())
        sources = ", ".join(f"{count} {source}" for source, count in self.sources.most_common())
        lines.append(f"How the calls ended: {endings or 'no calls'}. Inputs: {sources or 'none'}.")
        if self.limits:
            source, why = self.limits[0]
            lines.append(
                f"Not the tool's: {len(self.limits)} call(s) hit a transport/SDK limit and never reached the tool, "
                f"first ({source}): {why}"
            )
        lines.extend(f"Note: {note}" for note in self.notes)
        if not self.ok:
            lines.append(
                "Reproduce: await mcpbdd.checks.generated.check_generated_calls("
                f"harness, {self.tool!r}, {self.planned}, seed={self.seed})"
            )
        return "\n".join(lines)

    def _describe_kind(self, kind: str) -> list[str]:
        """The lines about one broken verdict: its first failing input, shrunk if it could be, and a few others."""
        calls = self.failures[kind]
        first = calls[0]
        lines = [f"  {kind} in {len(calls)} call(s): {first.detail}"]
        lines.append(f"    input ({first.source}): {render_input(first.arguments)}")
        shrunk = self.shrunk.get(kind)
        if shrunk is not None and shrunk.arguments != first.arguments:
            lines.append(f"    shrunk to (in {shrunk.calls} calls): {render_input(shrunk.arguments)}")
            if shrunk.detail != first.detail:
                lines.append(f"      which {shrunk.detail}")
            lines.append(f"    answer: {clip(shrunk.answer, 400)}")
        else:
            if shrunk is not None:
                tries = f"{shrunk.calls} call{'s' if shrunk.calls != 1 else ''}"
                lines.append(f"    shrinking ({tries}) found nothing smaller that fails this way")
            lines.append(f"    answer: {clip(first.answer, 400)}")
        groups = _distinct(calls)
        same = len(groups.pop(_signature(first.detail)))
        if same > 1:
            lines.append(f"    and {same - 1} more call(s) failed the same way")
        for others in groups.values():  # each other way of failing once, with its smallest input
            smallest = min(others, key=lambda call: len(render_input(call.arguments)))
            lines.append(f"  {kind}, another way, in {len(others)} call(s): {smallest.detail}")
            lines.append(f"    smallest input ({smallest.source}): {render_input(smallest.arguments)}")
            lines.append(f"    answer: {clip(smallest.answer, 400)}")
        return lines

    def assert_ok(self) -> None:
        """Raise AssertionError with `describe()` unless the tool survived every call."""
        if not self.ok:
            raise AssertionError(self.describe())


def _signature(detail: str) -> str:
    """What makes two failures of a kind the same: the detail without its excerpt (`a traceback (...)`)."""
    return detail.split(" (", 1)[0]


def _distinct(calls: list[FailedCall]) -> dict[str, list[FailedCall]]:
    """The failed calls of one kind, grouped by the way they failed (first seen first)."""
    groups: dict[str, list[FailedCall]] = {}
    for call in calls:
        groups.setdefault(_signature(call.detail), []).append(call)
    return groups
