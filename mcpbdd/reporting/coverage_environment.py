"""The coverage totals in the Allure report, as environment entries (`environment.properties`).

Allure shows a results folder's `environment.properties` on the report's overview, so a reviewer
sees `coverage.context.tools = 8/8 (100%)` next to the results, without a made-up test that
would count as a scenario. Entries other than `coverage.*` already in the file are kept.

Several results folders (CI shards) rendered into one report: Allure 3 (3.18) shows the
environment of the *last* folder it is given, wholesale, not a union, so the report would show
one shard's coverage. `with_coverage` hands the renderer copies of the folders whose
environment carries the run's merged coverage instead (`mcpbdd report --coverage`).
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from mcpbdd.checks.coverage_summary import KINDS, TOTAL, summarise

__all__ = ["ENVIRONMENT_FILE", "environment_entries", "with_coverage", "write_environment"]

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


def _link_or_copy(source: str, destination: str) -> None:
    """A hard link where the file system allows it (results can hold large attachments), else a copy.

    The environment file is always copied: it is rewritten in the copy, and a write through a link
    would change the input folder.
    """
    if Path(source).name != ENVIRONMENT_FILE:
        try:
            os.link(source, destination)
            return
        except OSError:
            pass
    shutil.copy2(source, destination)


def with_coverage(results: Sequence[Path], document: Mapping[str, Any], scratch: Path) -> list[Path]:
    """Copies of the results folders under `scratch`, each environment carrying `document`'s totals.

    Every copy carries the same entries, so the report shows them whichever folder's environment
    Allure picks (the last one in 3.18) or however it combines them. The input folders are not touched.
    """
    copies = []
    for index, folder in enumerate(results):
        copy = scratch / f"{index}-{folder.name}"
        shutil.copytree(folder, copy, copy_function=_link_or_copy)
        write_environment(copy, document)
        copies.append(copy)
    return copies
