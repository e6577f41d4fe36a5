"""The scenario's journal (`World.hear`): what the server sent on its own, taken step by step for the reports.

The World feeds it the progress reports and log messages of each call it records; a source of its own
(a listen) calls `World.hear`. The reports attach each step's entries (`attach_heard`), redacted like
every attachment: shown here with allure-commons' plugin hook, which is what the Allure and Messages
formatters listen to.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from typing import Any

import allure_commons
import pytest

from mcpbdd.reporting.attachments import attach_heard, heard_title
from mcpbdd.scenario.journal import LOG_MESSAGE, PROGRESS, Heard, Journal

NOTES = "mcpbdd.examples.notes:mcp"
DRAFTS = {"notes": [{"title": "Milk", "body": "two litres"}, {"title": "Eggs"}]}


class _Attached:
    """Every `allure.attach` made while registered: (name, body, extension)."""

    def __init__(self) -> None:
        self.made: list[tuple[str, str, str | None]] = []

    @allure_commons.hookimpl
    def attach_data(self, body: Any, name: str, attachment_type: Any, extension: Any) -> None:
        self.made.append((name, body if isinstance(body, str) else body.decode(), extension))


@pytest.fixture
def attached() -> Iterator[_Attached]:
    plugin = _Attached()
    allure_commons.plugin_manager.register(plugin)
    try:
        yield plugin
    finally:
        allure_commons.plugin_manager.unregister(plugin)


def test_take_hands_over_what_arrived_since_the_last_take_in_order() -> None:
    journal = Journal()
    assert journal.take() == []
    journal.hear("tools list changed", {"listen": "l-1"})
    journal.hear("resource updated", {"uri": "notes://n-1"})
    first = journal.take()
    assert [(h.kind, dict(h.payload)) for h in first] == [
        ("tools list changed", {"listen": "l-1"}),
        ("resource updated", {"uri": "notes://n-1"}),
    ]
    assert journal.take() == []
    journal.hear("tools list changed", {"listen": "l-1"})
    assert len(journal.take()) == 1 and len(journal) == 3 and len(journal.entries) == 3
    with pytest.raises(ValueError, match="needs a kind"):
        journal.hear(" ", {})


def test_the_world_hears_the_progress_and_log_messages_of_each_call(make_world: Callable[..., Any]) -> None:
    world = make_world(server=NOTES)
    world.add_tenant("acme")
    world.call_tool("list_notes")  # nothing sent on its own: nothing heard
    assert world.journal.take() == []
    world.ask_for_log_messages("info")
    world.call_tool("import_notebook", DRAFTS)
    world.hear("tools list changed", {"listen": "l-1"})  # what another source (a listen) feeds in
    heard = world.journal.take()
    assert [h.kind for h in heard] == [PROGRESS, PROGRESS, LOG_MESSAGE, LOG_MESSAGE, LOG_MESSAGE, "tools list changed"]
    assert heard[0].to_json() == {
        "kind": "progress",
        "call": "tools/call import_notebook",
        "caller": "acme-user of tenant acme",
        "progress": 1,
        "total": 2,
        "message": "Imported 'Milk'",
    }
    assert heard[3].payload["data"] == "Note 'Eggs' has no body" and heard[3].payload["level"] == "warning"
    assert heard_title(heard) == "notifications: 2 progress reports, 3 log messages, tools list changed (1)"


def test_the_attachment_of_a_step_is_redacted_and_says_what_it_holds(attached: _Attached) -> None:
    entries = [
        Heard(PROGRESS, {"call": "tools/call import_notebook", "progress": 1, "total": 1, "message": None}, 0.0),
        Heard(LOG_MESSAGE, {"level": "warning", "data": "token sk-live-77 expires", "logger": None}, 1.5),
    ]
    attach_heard(entries, secrets=["sk-live-77"])
    attach_heard([], secrets=["sk-live-77"])  # nothing heard: no attachment
    ((name, body, extension),) = attached.made
    assert name == "notifications: 1 progress report, 1 log message"
    assert extension == "notifications.json"
    assert "sk-live-77" not in body
    shown = json.loads(body)
    assert shown[1] == {
        "kind": "log message",
        "level": "warning",
        "data": "token «redacted» expires",
        "logger": None,
        "at": "1970-01-01T00:00:01.500Z",
    }
