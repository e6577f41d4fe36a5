"""docs/reference/configuration.md lists every setting the code reads, and nothing the code does not read.

The table claims to be complete; a newcomer found `coverage_file` missing from it. The settings are the fields of
`Settings` (`[tool.mcpbdd]`, `-D mcpbdd.<name>=...`) and of `ConformanceSettings` (`[tool.mcpbdd.conformance]`).
"""

from __future__ import annotations

import re
from pathlib import Path

from mcpbdd.model.config import ConformanceSettings, Settings

PAGE = Path(__file__).parent.parent / "docs" / "reference" / "configuration.md"


def documented_settings(text: str) -> list[str]:
    """The first column of the settings table: `| \\`name\\` | default | meaning |` rows."""
    return re.findall(r"^\| `([a-z_]+)` \|", text, flags=re.MULTILINE)


def test_every_setting_the_code_reads_is_in_the_table_and_no_other() -> None:
    documented = documented_settings(PAGE.read_text(encoding="utf-8"))
    assert len(documented) == len(set(documented)), "a setting is listed twice"
    assert set(documented) == set(Settings.model_fields), (
        f"missing from the table: {sorted(set(Settings.model_fields) - set(documented))}; "
        f"in the table but not read: {sorted(set(documented) - set(Settings.model_fields))}"
    )


def test_the_conformance_row_names_every_conformance_setting() -> None:
    row = next(line for line in PAGE.read_text(encoding="utf-8").splitlines() if line.startswith("| `conformance` |"))
    named = set(re.findall(r"`([a-z_]+)`", row)) - {"conformance"}
    assert set(ConformanceSettings.model_fields) <= named, sorted(set(ConformanceSettings.model_fields) - named)


def test_the_table_reader_sees_a_missing_row() -> None:
    """The check can fail: a table without one row is caught."""
    text = PAGE.read_text(encoding="utf-8")
    without = "\n".join(line for line in text.splitlines() if not line.startswith("| `coverage_file` |"))
    assert "coverage_file" not in documented_settings(without)
    assert set(documented_settings(without)) != set(Settings.model_fields)
