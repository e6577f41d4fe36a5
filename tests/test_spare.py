"""The warm spare: server processes started ahead for the next scenarios, taken only when started exactly so.

Real processes over stdio: the notes example server for scenarios built as behave builds them (a
`World` per scenario on the run's one loop), and the fork server tests' small server for whole
behave runs, whose processes are found by their temporary folder, after a pass, a failure, a crash,
SIGINT and SIGTERM.

The tests of this concern that start processes are in tests/spawning/test_spare.py.
"""

from __future__ import annotations

import sys
from pathlib import Path

from mcpbdd.harness import handover
from mcpbdd.harness.processes import spare, spawn
from mcpbdd.kit.doubles import ENV_DOUBLES
from mcpbdd.kit.upstream import ENV_ALL

# -- what the setting means ------------------------------------------------------------------------------------


def test_spare_is_what_spare_means_for_any_command_and_auto_for_a_command_that_is_not_python() -> None:
    python = [sys.executable, "-m", "mcpbdd.examples.notes"]
    node = ["node", "server.js"]
    assert spawn.resolve("spare", node) == spawn.resolve("spare", python) == "spare"
    assert spawn.resolve("auto", node) == "spare"
    assert spawn.resolve("auto", python) == "fork"
    assert spawn.resolve("fork", node) == spawn.resolve("plain", node) == "plain"
    assert "not built" not in spawn.describe("spare") + spawn.describe("auto")


def test_reserved_doubles_files_are_handed_out_first_in_order_and_released_ones_removed() -> None:
    first, second = handover.reserve_doubles_file(), handover.reserve_doubles_file()
    assert handover.is_reserved(first.path) and handover.is_reserved(second.path)
    handed = handover.temporary_doubles_file()
    assert handed is first and not handover.is_reserved(first.path)
    handover.release_reservation(second.path)
    assert not Path(second.path).parent.exists()
    fresh = handover.temporary_doubles_file()
    assert fresh.path not in (first.path, second.path)
    for file in (handed, fresh):
        handover.remove_doubles_file(file)


def test_a_start_names_what_differs_by_name_only_and_loopback_urls_cannot_be_known_ahead() -> None:
    ahead = spare.Launch.of(["srv"], {"NOTES_USER": "alice", ENV_DOUBLES: "/d1"}, "/a")
    asked = spare.Launch.of(["srv"], {"NOTES_USER": "bob", ENV_DOUBLES: "/d1"}, "/b")
    assert ahead.differences(asked) == ["the working directory", "$NOTES_USER"]  # no value: it may be a secret
    assert ahead.with_doubles("/d2").doubles == "/d2"
    assert not ahead.unpredictable()
    assert not spare.Launch.of(["srv"], {ENV_ALL: "{}"}, None).unpredictable()
    assert spare.Launch.of(["srv"], {ENV_ALL: '{"https://a.example": "http://127.0.0.1:5"}'}, None).unpredictable()
