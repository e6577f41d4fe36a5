"""Progress reports: the Outcome of a tool call knows them, on every harness, and the checks read them.

The harness tests run the bundled notes server's `import_notebook` (one report per note) on
the context harness (what the mock context records) and the client harness in both eras (the
SDK's progress callback, which makes the client send the progress token a server needs). The
check tests build Outcomes as a harness would and show each check failing, or refusing a
check that would compare nothing.
"""

from __future__ import annotations

from typing import Any

import pytest

from mcpbdd.checks import progress as progress_checks
from mcpbdd.kit.principals import Principal
from mcpbdd.model.errors import VacuousCheck
from mcpbdd.model.outcome import Call, Channel, Outcome, Progress

ALICE = Principal("alice", "acme")
DRAFTS = {"notes": [{"title": "Milk"}, {"title": "Eggs"}, {"title": "Bread"}]}


@pytest.mark.anyio
async def test_a_tool_calls_outcome_knows_its_progress_reports_in_order(notes_harness: Any) -> None:
    outcome = await notes_harness.call_tool(ALICE, "import_notebook", DRAFTS)
    assert outcome.channel is Channel.OK, outcome.describe()
    assert outcome.progress == (
        Progress(1, 3, "Imported 'Milk'"),
        Progress(2, 3, "Imported 'Eggs'"),
        Progress(3, 3, "Imported 'Bread'"),
    )
    quiet = await notes_harness.call_tool(ALICE, "list_notes", {})
    assert quiet.progress == ()  # the next call's reports are its own, not the import's


@pytest.mark.anyio
async def test_a_failed_import_keeps_the_reports_it_sent_and_stores_nothing(notes_harness: Any) -> None:
    outcome = await notes_harness.call_tool(ALICE, "import_notebook", {"notes": [{"title": "Milk"}, {"title": ""}]})
    assert outcome.channel is Channel.TOOL_ERROR
    assert [report.progress for report in outcome.progress] == [1]
    listed = await notes_harness.call_tool(ALICE, "list_notes", {})
    assert listed.structured["count"] == 0


def _outcome(*reports: Progress, call: Call | None = None) -> Outcome:
    return Outcome(Channel.OK, call or Call.tool("import_notebook"), progress=reports, caller="alice of tenant acme")


def test_each_check_passes_on_what_the_server_reported() -> None:
    outcome = _outcome(Progress(1, 2, "Imported 'Milk'"), Progress(2, 2, "Imported 'Eggs'"))
    progress_checks.reported_progress(outcome, 2)
    progress_checks.progress_reached(outcome, 2, 2)
    progress_checks.progress_never_went_backwards(outcome)
    progress_checks.progress_message_says(outcome, "Eggs")
    progress_checks.reported_progress(_outcome(), 0)


def test_each_check_fails_naming_every_report_that_arrived() -> None:
    outcome = _outcome(Progress(1, 3), Progress(3, 3), Progress(2, 3))
    listed = "sent 3 progress reports: 1 of 3, 3 of 3, 2 of 3"
    with pytest.raises(AssertionError, match="Expected 2 progress report") as counted:
        progress_checks.reported_progress(outcome, 2)
    assert listed in str(counted.value) and "tools/call 'import_notebook' as alice of tenant acme" in str(counted.value)
    with pytest.raises(AssertionError, match="went back from 3 of 3 to 2 of 3"):
        progress_checks.progress_never_went_backwards(outcome)
    with pytest.raises(AssertionError, match="Expected a progress report of 3 of 4"):
        progress_checks.progress_reached(outcome, 3, 4)
    with pytest.raises(AssertionError, match="Expected a progress message saying 'Milk'"):
        progress_checks.progress_message_says(outcome, "Milk")
    for check in (
        progress_checks.reported_progress,
        progress_checks.progress_reached,
        progress_checks.progress_message_says,
    ):
        assert not issubclass(type(_raised(check, outcome)), VacuousCheck)  # a failure, not a broken specification


def _raised(check: Any, outcome: Outcome) -> BaseException:
    arguments = {
        progress_checks.reported_progress: (5,),
        progress_checks.progress_reached: (3, 4),
        progress_checks.progress_message_says: ("x",),
    }
    with pytest.raises(AssertionError) as raised:
        check(outcome, *arguments[check])
    return raised.value


def test_a_check_that_would_compare_nothing_is_a_broken_specification() -> None:
    with pytest.raises(VacuousCheck, match="nothing to compare"):
        progress_checks.progress_never_went_backwards(_outcome(Progress(1, 1)))
    with pytest.raises(VacuousCheck, match="nothing to compare"):
        progress_checks.progress_never_went_backwards(_outcome())
    with pytest.raises(VacuousCheck, match="is empty"):
        progress_checks.progress_message_says(_outcome(Progress(1, 1, "x")), " ")
    with pytest.raises(VacuousCheck, match="no point a progress can reach"):
        progress_checks.progress_reached(_outcome(Progress(1, 1)), 2, 1)
    with pytest.raises(VacuousCheck, match="without asking for progress"):
        progress_checks.reported_progress(_outcome(call=Call.resource("notes://n-1")), 0)
