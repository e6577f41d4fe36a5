"""Log messages: the Outcome of a call knows those the server sent for it, when the client asked, on every harness.

The bundled notes server's `import_notebook` logs at info, debug and warning (`notes.import`).
On 2026-07-28 (the context harness, the client's auto mode) a request that asks for no level
gets no message at all, and one that asks gets that level and above; on 2025-11-25 the notes
server (no `logging/setLevel` handler) sends every level. The checks are shown failing in
tests/spawning/test_failing_steps.py; here, what they read.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from mcpbdd.checks import logs
from mcpbdd.kit.principals import Principal
from mcpbdd.model.errors import VacuousCheck
from mcpbdd.model.outcome import Call, Channel, LogMessage, Outcome

pytestmark = pytest.mark.anyio

ALICE = Principal("alice", "acme")
DRAFTS = {"notes": [{"title": "Milk", "body": "two litres"}, {"title": "Eggs"}]}


async def test_a_call_that_asked_gets_that_level_and_above(notes_harness: Any) -> None:
    notes_harness.log_level = "info"
    outcome = await notes_harness.call_tool(ALICE, "import_notebook", DRAFTS)
    assert outcome.channel is Channel.OK, outcome.describe()
    assert outcome.log_level == "info"
    seen = [(m.level, m.text, m.logger) for m in outcome.log_messages]
    expected = [
        ("info", "Importing 2 notes", "notes.import"),
        ("warning", "Note 'Eggs' has no body", "notes.import"),
        ("info", "Imported 2 notes", "notes.import"),
    ]
    if outcome.logs_opt_in:
        assert seen == expected
    else:  # 2025-11-25: no setLevel handler on the notes server, so its debug messages come too
        assert [entry for entry in seen if entry[0] != "debug"] == expected
    logs.logged(outcome, "Importing 2 notes", "info", "notes.import")
    logs.logged_nothing_above(outcome, "warning")


async def test_a_call_that_asked_for_nothing_gets_nothing_on_2026_07_28(notes_harness: Any) -> None:
    outcome = await notes_harness.call_tool(ALICE, "import_notebook", DRAFTS)
    assert outcome.channel is Channel.OK
    if getattr(notes_harness, "mode", "auto") == "legacy":
        assert outcome.log_messages  # 2025-11-25 has no per-request opt-in
    else:
        assert outcome.log_messages == ()
    with pytest.raises(VacuousCheck, match="the client asked for none"):
        logs.logged(outcome, "Importing", "info")


def _outcome(*messages: LogMessage, level: str | None = "debug", opt_in: bool = True) -> Outcome:
    return Outcome(
        Channel.OK, Call.tool("chatty"), log_messages=messages, log_level=level, logs_opt_in=opt_in, caller="alice"
    )


def test_a_2026_server_logging_unasked_fails_every_check_naming_what_arrived() -> None:
    unasked = _outcome(LogMessage("error", "disk almost full", "chatty"), level=None)
    checks: list[Callable[[], None]] = [
        lambda: logs.logged(unasked, "disk", "error"),
        lambda: logs.logged_nothing_above(unasked, "error"),
        lambda: logs.no_log_message_mentions([unasked], "secret"),
    ]
    for check in checks:
        with pytest.raises(AssertionError, match="on 2026-07-28 a server must then send none") as raised:
            check()
        assert not isinstance(raised.value, VacuousCheck)
        assert "error 'disk almost full' (from chatty)" in str(raised.value)
    logs.unasked_messages(_outcome(LogMessage("error", "fine on 2025-11-25"), level=None, opt_in=False))


def test_structured_log_data_is_read_as_json() -> None:
    outcome = _outcome(LogMessage("info", {"imported": 2, "tenant": "acme"}))
    logs.logged(outcome, '"imported": 2', "info")
    with pytest.raises(AssertionError, match="mention 'acme'"):
        logs.no_log_message_mentions([outcome], "acme")


async def test_a_harness_asks_only_as_its_current_level_says(notes_harness: Any) -> None:
    """A harness shared by a feature's scenarios serves each the level it asks for: the World sets it per call."""
    notes_harness.log_level = "debug"
    asked = await notes_harness.call_tool(ALICE, "import_notebook", DRAFTS)
    assert any(message.level == "debug" for message in asked.log_messages)
    notes_harness.log_level = None
    after = await notes_harness.call_tool(ALICE, "import_notebook", DRAFTS)
    assert after.log_level is None
    if after.logs_opt_in or getattr(notes_harness, "mode", None) != "legacy":
        assert after.log_messages == ()


@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_each_era_asks_its_way_and_gets_that_level_and_above(mode: str) -> None:
    """2026-07-28: the level in each request's `_meta`; 2025-11-25: one `logging/setLevel` for the session."""
    from event_server import SET_LEVELS, levelled

    from mcpbdd.harness import ClientHarness

    SET_LEVELS.clear()
    async with ClientHarness(levelled, mode=mode, timeout=5.0) as harness:
        harness.log_level = "info"
        first = await harness.call_tool(None, "report", {})
        second = await harness.call_tool(None, "report", {})
    assert [m.text for m in first.log_messages] == ["a info message", "a warning message"], first.log_messages
    assert [m.text for m in second.log_messages] == ["a info message", "a warning message"]
    assert ([] if mode == "auto" else ["info"]) == SET_LEVELS  # once per session, not per call
    assert first.logs_opt_in is (mode == "auto")
