"""The parity matrix: each scenario's verdict on every harness and protocol era, and where they differ, why.

`mcpbdd run --harness all` runs every scenario on the context harness, the client harness
(2026-07-28), the client on the 2025-11-25 handshake (and over stdio when configured), then
writes `reports/parity.json` and `reports/parity.md` from the verdicts its behave processes
recorded (`mcpbdd.reporting.verdicts`). The product's promise is one specification checked at
several depths; the matrix shows where that promise holds and where it does not.

A scenario whose verdicts differ between columns is either

- **documented**: a tag says the difference is expected. `@era.<name>` (e.g. `@era.modern`:
  the legacy pass skips it) and `@parity.<reason>` (e.g. `@parity.sealed_state`) explain any
  difference; a harness pin (`@harness.client`, `@harness.client.legacy`, ...) explains only the
  columns where the scenario did not run;
- **unexplained**: nothing says why. That is the finding: a harness (or the server on one era)
  behaves differently, and the matrix names the columns and the first line of each failure.

A column where a scenario did not run at all (pinned elsewhere, or left out by the run's
tags) reads `not run`.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mcpbdd._text import markdown_text
from mcpbdd.reporting.verdicts import Verdict

__all__ = ["DOCUMENTING_PREFIXES", "NOT_RUN", "Column", "ParityMatrix", "Row", "build_matrix", "write_matrix"]

NOT_RUN = "not run"
DOCUMENTING_PREFIXES = ("era.", "parity.")
"""Tags that document any difference in verdicts between columns."""
PIN_PREFIX = "harness."
"""Tags that document a column where the scenario did not run."""

_MARKS = {
    "passed": "✅ passed",
    "failed": "❌ failed",
    "broken": "💥 broken",
    "skipped": "⏭ skipped",
    NOT_RUN: "· not run",
}
"""Each verdict's cell: failed (the server missed an expectation) and broken (the specification or its set-up is
wrong) apart, as the console and the Allure report tell them (`mcpbdd.reporting.broken`)."""


@dataclass(frozen=True)
class Column:
    name: str
    """The pass (`context`, `client.auto`, `client.legacy`, `stdio`)."""
    title: str
    """What a reader sees (`client 2025-11-25`)."""


@dataclass
class Row:
    """One scenario across the columns."""

    feature: str
    line: int
    name: str
    tags: list[str]
    verdicts: dict[str, str]
    messages: dict[str, str] = field(default_factory=dict)
    explained_by: list[str] = field(default_factory=list)

    @property
    def differs(self) -> bool:
        return len(set(self.verdicts.values())) > 1

    @property
    def parity(self) -> str:
        """`same`, `documented` or `unexplained`."""
        if not self.differs:
            return "same"
        return "documented" if self.explained_by else "unexplained"

    def to_json(self) -> dict[str, Any]:
        return {
            "feature": self.feature,
            "line": self.line,
            "name": self.name,
            "tags": self.tags,
            "verdicts": self.verdicts,
            "parity": self.parity,
            "differs": self.differs,
            "explained_by": [f"@{tag}" for tag in self.explained_by],
            "messages": self.messages,
        }


def _explanation(tags: Sequence[str], verdicts: dict[str, str]) -> list[str]:
    """The tags that explain every difference, or none when something is left unexplained."""
    documenting = [tag for tag in tags if tag.startswith(DOCUMENTING_PREFIXES)]
    if documenting:
        return documenting
    ran = {verdict for verdict in verdicts.values() if verdict != NOT_RUN}
    pins = [tag for tag in tags if tag.startswith(PIN_PREFIX)]
    if pins and len(ran) <= 1:
        return pins  # every column where it ran agrees; the others are explained by the pin
    return []


@dataclass
class ParityMatrix:
    columns: list[Column]
    rows: list[Row]

    def count(self, parity: str) -> int:
        return sum(1 for row in self.rows if row.parity == parity)

    def to_json(self) -> dict[str, Any]:
        return {
            "columns": [{"name": c.name, "title": c.title} for c in self.columns],
            "summary": {
                "scenarios": len(self.rows),
                "same": self.count("same"),
                "documented": self.count("documented"),
                "unexplained": self.count("unexplained"),
            },
            "scenarios": [row.to_json() for row in self.rows],
        }

    def markdown(self) -> str:
        """The matrix for a reader: the unexplained differences first, then every scenario."""
        titles = [c.title for c in self.columns]
        lines = [
            "# Parity matrix",
            "",
            f"{len(self.rows)} scenarios on {', '.join(titles)}: {self.count('same')} the same everywhere, "
            f"{self.count('documented')} differ as documented, **{self.count('unexplained')} differ unexplained**.",
            "",
            "A difference is documented by a tag: `@era.*` or `@parity.*` (any difference), a harness pin "
            "`@harness.*` (the columns where the scenario does not run).",
            "",
        ]
        unexplained = [row for row in self.rows if row.parity == "unexplained"]
        if unexplained:
            lines += ["## Unexplained differences", ""]
            for row in unexplained:
                lines.append(f"- **{_cell(row.name)}** ({_cell(row.feature)}:{row.line})")
                for column in self.columns:
                    verdict = row.verdicts.get(column.name, NOT_RUN)
                    why = row.messages.get(column.name)
                    lines.append(f"  - {column.title}: {verdict}" + (f" — {_cell(why)}" if why else ""))
            lines.append("")
        lines += ["## Every scenario", ""]
        lines.append("| feature | scenario | " + " | ".join(titles) + " | parity |")
        lines.append("|---|---|" + "---|" * len(titles) + "---|")
        for row in self.rows:
            cells = [
                _MARKS.get(row.verdicts.get(c.name, NOT_RUN), row.verdicts.get(c.name, NOT_RUN)) for c in self.columns
            ]
            if row.parity == "unexplained":
                parity = "**differs, unexplained**"
            elif row.parity == "documented":
                parity = "differs, documented: " + ", ".join(f"`@{tag}`" for tag in row.explained_by)
            else:
                parity = "same"
            where = f"{_cell(row.feature)}:{row.line}"
            lines.append(f"| {where} | {_cell(row.name)} | " + " | ".join(cells) + f" | {parity} |")
        return "\n".join(lines) + "\n"


def _cell(text: str) -> str:
    """A name or message quoted literally (`mcpbdd._text.markdown_text`): a scenario's name is the author's text."""
    return markdown_text(text)


def build_matrix(columns: Sequence[Column], verdicts: Iterable[Verdict]) -> ParityMatrix:
    """Join every pass's verdicts by scenario (feature file and line), in file order."""
    rows: dict[tuple[str, int], Row] = {}
    for verdict in verdicts:
        row = rows.get(verdict.key)
        if row is None:
            row = rows[verdict.key] = Row(verdict.feature, verdict.line, verdict.name, list(verdict.tags), {})
        row.verdicts[verdict.column] = verdict.verdict
        if verdict.verdict != "passed" and verdict.message:
            row.messages[verdict.column] = verdict.message
    for row in rows.values():
        row.verdicts = {c.name: row.verdicts.get(c.name, NOT_RUN) for c in columns}
        row.messages = {c.name: row.messages[c.name] for c in columns if c.name in row.messages}
        row.explained_by = _explanation(row.tags, row.verdicts) if row.differs else []
    ordered = sorted(rows.values(), key=lambda r: (r.feature, r.line))
    return ParityMatrix(list(columns), ordered)


def write_matrix(matrix: ParityMatrix, folder: Path) -> tuple[Path, Path]:
    """`parity.json` and `parity.md` in `folder`."""
    folder.mkdir(parents=True, exist_ok=True)
    as_json, as_md = folder / "parity.json", folder / "parity.md"
    as_json.write_text(json.dumps(matrix.to_json(), indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    as_md.write_text(matrix.markdown(), encoding="utf-8")
    return as_json, as_md
