"""The totals of Allure results: passed, failed, broken and skipped scenarios, overall and per harness.

`mcpbdd report` ends with them (and `make demo` with it), so the last lines a newcomer reads
say where the report is and what it holds, without opening it. They are read from the results
the report was rendered from, not from a run's console: a report of several shards or of a
`--keep-results` run counts what it shows. A scenario reported more than once (the same Allure
`historyId`, a re-run kept in the folder) counts once, by its latest result, as Allure shows it.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = ["Totals", "read_totals", "totals_lines"]


@dataclass
class Totals:
    """Scenarios by verdict. *Broken* (the specification or its set-up is wrong: `mcpbdd.reporting.broken`) is
    counted apart from *failed* (the server did not meet an expectation), as the Allure report shows them."""

    passed: int = 0
    failed: int = 0
    skipped: int = 0
    broken: int = 0

    def add(self, status: str) -> None:
        if status == "passed":
            self.passed += 1
        elif status == "failed":
            self.failed += 1
        elif status == "broken":
            self.broken += 1
        else:
            self.skipped += 1

    def __str__(self) -> str:
        broken = f", {self.broken} broken" if self.broken else ""
        return f"{self.passed} passed, {self.failed} failed{broken}, {self.skipped} skipped"


def _latest_results(folders: Iterable[Path]) -> list[dict[str, Any]]:
    latest: dict[str, dict[str, Any]] = {}
    for folder in folders:
        for path in sorted(folder.glob("*-result.json")):
            try:
                result = json.loads(path.read_text(encoding="utf-8"))
            except (OSError, ValueError):
                continue  # not a result Allure could read either
            key = str(result.get("historyId") or path.name)
            if key not in latest or int(result.get("stop") or 0) >= int(latest[key].get("stop") or 0):
                latest[key] = result
    return list(latest.values())


def read_totals(folders: Iterable[Path]) -> tuple[Totals, dict[str, Totals]]:
    """The overall totals and those per harness (by the `harness` label mcpbdd's formatter writes)."""
    overall = Totals()
    per_harness: dict[str, Totals] = {}
    for result in _latest_results(folders):
        status = str(result.get("status") or "unknown")
        overall.add(status)
        labels = result.get("labels") or []
        harness = next(
            (str(label.get("value")) for label in labels if isinstance(label, dict) and label.get("name") == "harness"),
            "",
        )
        per_harness.setdefault(harness, Totals()).add(status)
    return overall, per_harness


def totals_lines(folders: Iterable[Path]) -> list[str]:
    """`mcpbdd: scenarios: 3 passed, 1 failed, 2 broken, 0 skipped` (broken when there are), then one line per
    harness when there are several."""
    overall, per_harness = read_totals(folders)
    lines = [f"mcpbdd: scenarios: {overall}"]
    if len(per_harness) > 1:
        ordered = sorted(per_harness.items(), key=lambda item: (item[0] != "context", item[0]))  # as a run's passes
        lines += [f"mcpbdd:   {name or 'no'} harness: {totals}" for name, totals in ordered]
    return lines
