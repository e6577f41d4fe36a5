"""Every progress check fails when it should, naming the call and each report that arrived.

tests/behave_cases/features/failing_progress.feature holds one scenario per failure (a count,
a point never reached, a report going back, a message never said) and per broken
specification (one report to compare, a read's progress, a point beyond the total, an empty
message); each must fail on every harness with its message. Same pattern as
tests/test_behave_vacuous.py.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from expected_failures import assert_each_scenario_fails_with

FEATURE = "tests/behave_cases/features/failing_progress.feature"

EXPECTED_FAILURES: dict[str, list[str]] = {
    "reported progress, but another number of times": [
        "Expected 3 progress report(s), but the call (tools/call 'import_notebook' as alice of tenant acme) "
        "sent 2 progress reports: 1 of 2 (\"Imported 'Milk'\"), 2 of 2 (\"Imported 'Eggs'\")"
    ],
    "the progress reached, but it stopped short": [
        "Expected a progress report of 3 of 3, but the call (tools/call 'stops_short' as alice of tenant acme) "
        "sent 2 progress reports: 1 of 3, 2 of 3"
    ],
    "the progress went backwards": [
        "Expected the progress never to go backwards, but it went back from 3 of 3 ('step 3') to 2 of 3 ('step 2')",
        "sent 3 progress reports: 1 of 3 ('step 1'), 3 of 3 ('step 3'), 2 of 3 ('step 2')",
    ],
    "a progress message says, but none does": [
        "Expected a progress message saying 'Imported', but the call (tools/call 'mumbles' as alice of tenant acme) "
        "sent 1 progress report: 1 of 1"
    ],
    "never went backwards, with a single report": [
        "'Never went backwards' compares each progress report with the one before, but the call "
        "(tools/call 'mumbles' as alice of tenant acme) sent 1 progress report: 1 of 1",
        "make a call that reports progress at least twice",
    ],
    "the progress of a resource read": [
        "'reported progress 0 times' is about a tool call's progress, but the last call was resources/read "
        "'notes://n-1' as alice of tenant acme"
    ],
    "the progress reached a point beyond its total": ["'2 of 1' is no point a progress can reach"],
    "a progress message says an empty text": ["The text the progress message must say is empty"],
}


@pytest.mark.parametrize(
    "options",
    [
        ["-D", "mcpbdd.harness=context"],
        ["-D", "mcpbdd.harness=client"],
        ["-D", "mcpbdd.harness=client", "-D", "mcpbdd.client_mode=legacy"],
    ],
    ids=["context", "client", "client-legacy"],
)
def test_every_progress_check_fails_naming_what_arrived(tmp_path: Path, options: list[str]) -> None:
    assert_each_scenario_fails_with(FEATURE, EXPECTED_FAILURES, options, tmp_path / "report.json")
