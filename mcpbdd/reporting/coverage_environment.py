"""The coverage totals in the Allure report, as environment entries (`environment.properties`).

Allure shows a results folder's `environment.properties` on the report's overview, so a reviewer
sees `coverage.context.tools = 8/8 (100%)` next to the results, without a made-up test that
would count as a scenario. Entries other than `coverage.*` already in the file are kept.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from mcpbdd.checks.coverage_summary import KINDS, TOTAL, summarise

__all__ = ["ENVIRONMENT_FILE", "environment_entries", "write_environment"]

ENVIRONMENT_FILE = "environment.properties"
PREFIX = "coverage."


def environment_entries(document: Mapping[str, Any]) -> dict[str, str]:
    """`coverage.<harness>.<kind>` -> `covered/offered (pct)`, for every kind with something offered."""
    entries: dict[str, str] = {}
    for harness, tallies in summarise(document).items():
        key = harness.replace(" ", "").replace("(", ".").replace(")", "")
        for kind in (TOTAL, *KINDS):
            tally = tallies[kind]
            if tally.offered:
                entries[f"{PREFIX}{key}.{kind}"] = f"{tally.covered}/{tally.offered} ({tally.percent:.0f}%)"
    return entries


def write_environment(results: Path, document: Mapping[str, Any]) -> Path:
    path = results / ENVIRONMENT_FILE
    kept = []
    if path.is_file():
        kept = [line for line in path.read_text(encoding="utf-8").splitlines() if not line.startswith(PREFIX)]
    lines = [*kept, *(f"{key} = {value}" for key, value in environment_entries(document).items())]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path
