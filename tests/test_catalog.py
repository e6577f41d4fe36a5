"""`mcpbdd catalog`: declared failures per tool, joined with the scenarios that specify them.

The tests of this concern that start processes are in tests/spawning/test_catalog.py.
"""

from __future__ import annotations

from pathlib import Path

from mcpbdd.checks.error_catalog import catalog

ROOT = Path(__file__).resolve().parent.parent
NOTES = "mcpbdd.examples.notes:mcp"


def test_each_declared_failure_is_listed_with_its_channel_and_the_scenarios_that_specify_it() -> None:
    text = catalog(NOTES, ROOT / "features")
    assert "## `export_notes`" in text
    assert (
        "| `export_format_unsupported` | protocol error -32602 (InvalidParams) | no | Export as markdown or json."
        in text
    )
    assert "features/consent.feature:26 Without consent nothing is deleted" in text
    assert "| `note_exists` | tool error | no | Pick another slug" in text
    lines = (ROOT / "features" / "notes.feature").read_text(encoding="utf-8").splitlines()
    line = next(n for n, text_line in enumerate(lines, 1) if "A new note never replaces an existing one" in text_line)
    assert f"features/notes.feature:{line} A new note never replaces an existing one" in text
    without = text.split("## Tools without an error contract", 1)[1]
    assert "`list_notes`" in without and "`create_note`" not in without


def test_a_failure_no_scenario_specifies_is_shown_as_a_gap(tmp_path: Path) -> None:
    (tmp_path / "empty.feature").write_text("Feature: nothing yet\n  Scenario: no errors\n    Then the call succeeds\n")
    text = catalog(NOTES, tmp_path)
    assert (
        "| `note_not_found` | tool error | no | List the notes to see which ids exist. | unchanged | **no scenario** |"
        in text
    )
