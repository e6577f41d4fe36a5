"""What changed between two runs: the scenarios a reviewer of a pull request wants named.

    mcpbdd diff OLD NEW [--slower SECONDS] [--format text|markdown|json] [--output FILE]

Both runs are read by `mcpbdd.reporting.runs` (Allure results, JUnit XML or Cucumber Messages,
each in any of those forms) and joined by the scenario's one name (its pass included: the same
scenario on two harnesses is two entries). Each scenario that changed falls in one list:

- **new failures**: failed now, not failing before (passed, skipped or absent);
- **newly broken**: broken now (the specification or its set-up is wrong), not failing before;
- **still failing**: failed or broken in both (a change of word is named);
- **fixed**: passed now, failed or broken before;
- **newly skipped**: skipped now, run before;
- **slower**: took more than `slower` seconds longer than before (both runs ran it);
- **added** and **removed**: in one run only (not failing: a new failing scenario is a new failure).

Text for a terminal, Markdown for `$GITHUB_STEP_SUMMARY` (names quoted literally: a scenario's name
is the author's text), JSON for a script.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from mcpbdd._text import markdown_text
from mcpbdd.reporting.runs import Scenario

__all__ = ["CATEGORIES", "Change", "RunDiff", "diff_runs"]

CATEGORIES = {
    "new_failures": "new failures",
    "newly_broken": "newly broken",
    "still_failing": "still failing",
    "fixed": "fixed",
    "newly_skipped": "newly skipped",
    "slower": "slower",
    "added": "added",
    "removed": "removed",
}
"""Each list's key (JSON) and title (text and Markdown), in the order a reviewer reads them."""

_FAILING = ("failed", "broken")


@dataclass(frozen=True)
class Change:
    """One scenario in one list: its name, its verdicts before and now, its durations and the message now."""

    name: str
    old: str
    new: str
    old_seconds: float = 0.0
    new_seconds: float = 0.0
    message: str = ""

    def describe(self) -> str:
        if self.old == "absent" or self.new == "absent" or self.old == self.new:
            text = self.new if self.new != "absent" else self.old
        else:
            text = f"{self.old} -> {self.new}"
        if self.new_seconds - self.old_seconds > 0 and self.old != "absent" and self.new != "absent":
            text += f", {self.old_seconds:.3f} s -> {self.new_seconds:.3f} s"
        return text


@dataclass
class RunDiff:
    old: str
    new: str
    slower_than: float
    lists: dict[str, list[Change]] = field(default_factory=lambda: {key: [] for key in CATEGORIES})

    @property
    def regressions(self) -> int:
        """How many scenarios fail now that did not before (new failures and newly broken)."""
        return len(self.lists["new_failures"]) + len(self.lists["newly_broken"])

    def to_json(self) -> dict[str, Any]:
        return {
            "old": self.old,
            "new": self.new,
            "slower_than_seconds": self.slower_than,
            **{key: [change.__dict__ for change in changes] for key, changes in self.lists.items()},
        }

    def json(self) -> str:
        return json.dumps(self.to_json(), indent=2, ensure_ascii=False) + "\n"

    def _counts(self) -> str:
        return ", ".join(f"{len(changes)} {CATEGORIES[key]}" for key, changes in self.lists.items() if changes)

    def text(self) -> str:
        lines = [f"mcpbdd diff: {self.old} -> {self.new}: {self._counts() or 'no change'}"]
        for key, changes in self.lists.items():
            if changes:
                lines.append(f"{CATEGORIES[key]} ({len(changes)}):")
                for change in changes:
                    lines.append(f"  {change.name}: {change.describe()}")
                    if change.message and key != "slower":
                        lines.append(f"    {change.message.splitlines()[0]}")
        return "\n".join(lines) + "\n"

    def markdown(self) -> str:
        lines = [
            "## mcpbdd diff",
            "",
            f"`{markdown_text(self.old)}` → `{markdown_text(self.new)}`: {self._counts() or 'no change'}.",
            "",
        ]
        for key, changes in self.lists.items():
            if changes:
                lines += [f"### {CATEGORIES[key].capitalize()} ({len(changes)})", ""]
                for change in changes:
                    why = f" — {markdown_text(change.message.splitlines()[0])}" if change.message else ""
                    lines.append(f"- **{markdown_text(change.name)}**: {change.describe()}{why}")
                lines.append("")
        return "\n".join(lines)


def diff_runs(
    old: Mapping[str, Scenario], new: Mapping[str, Scenario], *, slower_than: float, old_name: str, new_name: str
) -> RunDiff:
    """The lists of what changed from `old` to `new` (each scenario in at most one list, but `slower`)."""
    diff = RunDiff(old_name, new_name, slower_than)
    for name in sorted(set(old) | set(new)):
        before, now = old.get(name), new.get(name)
        was, is_ = before.verdict if before else "absent", now.verdict if now else "absent"
        change = Change(
            name,
            was,
            is_,
            before.seconds if before else 0.0,
            now.seconds if now else 0.0,
            now.message if now and is_ != "passed" else "",
        )
        key = _category(was, is_)
        if key is not None:
            diff.lists[key].append(change)
        if before is not None and now is not None and now.seconds - before.seconds > slower_than:
            diff.lists["slower"].append(change)
    return diff


def _category(was: str, is_: str) -> str | None:
    if is_ in _FAILING:
        if was in _FAILING:
            return "still_failing"
        return "new_failures" if is_ == "failed" else "newly_broken"
    if was in _FAILING and is_ == "passed":
        return "fixed"
    if is_ == "skipped" and was not in ("skipped", "absent"):
        return "newly_skipped"
    if is_ == "absent":
        return "removed"
    if was == "absent":
        return "added"
    return None
