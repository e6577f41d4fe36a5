"""The storage and clock steps never pass against a server that cannot see them (behave in a subprocess).

Same pattern as tests/test_behave_runs.py: tests/behave_cases/features/failing_doubles.feature
must fail scenario by scenario, each with its message. Over stdio the storage steps read what the
server process wrote (the issue's scenario now fails, naming the key); against a server that never
took the scenario's doubles every storage and clock step fails, naming the server and both fixes.
"""

from __future__ import annotations

import json
from pathlib import Path

from expected_failures import assert_each_scenario_fails_with, behave

FEATURE = "tests/behave_cases/features/failing_doubles.feature"

FIXES = [
    "Either take them in its lifespan: `doubles = scenario_doubles()` (from mcpbdd.kit.doubles)",
    'storage_adapter = "package.module:factory" under [tool.mcpbdd]',
    "Without them the step would check nothing.",
]

EXPECTED_FAILURES: dict[str, list[str]] = {
    "over stdio, unchanged, but the server wrote a note": [
        "The storage of tenant 'acme' changed:",
        '+ notes/n-1 = {"author": "alice", "body": "B", "created_at": "2026-01-01T00:00:00Z"',
    ],
    "over stdio, no key, but the server wrote it": [
        "Expected the storage of tenant 'acme' to have no key 'notes/n-1', but it holds",
    ],
    "seeded storage for an in-process server that keeps its own state": [
        'An earlier step relies on the scenario\'s doubles (seeding the storage of tenant "acme"), '
        'but the server "servers:awkward" did not take them.',
        *FIXES,
    ],
    "a storage check after a call to a server that keeps its own state": [
        'This step relies on the scenario\'s doubles (comparing the storage of tenant "acme" with before), '
        'but the server "servers:awkward" did not take them.',
        *FIXES,
    ],
    "the clock moved for a server that reads its own clock": [
        "This step relies on the scenario's doubles (moving the clock forward by 2 hours), "
        'but the server "servers:awkward" did not take them.',
        *FIXES,
    ],
    "the clock set for a server process that keeps its own state": [
        "An earlier step relies on the scenario's doubles (setting the clock to 2026-03-01T09:00:00+00:00), "
        'but the server "stdio: {python} -m servers" did not take them.',
        *FIXES,
    ],
}


def test_storage_and_clock_steps_fail_against_servers_that_cannot_see_them(tmp_path: Path) -> None:
    options = ["-D", "mcpbdd.harness=client"]
    assert_each_scenario_fails_with(FEATURE, EXPECTED_FAILURES, options, tmp_path / "report.json")


def test_a_scenario_naming_a_server_process_is_skipped_on_a_context_pass(tmp_path: Path) -> None:
    """Not a green: the context harness cannot reach a process, so a context pass reports the scenario skipped.

    A tag pins a scenario to a harness whatever the pass (`@harness.client`, as the project's own
    over_stdio.feature does); a scenario that only names its server process is one for the client passes.
    """
    features = tmp_path / "features"
    (features / "steps").mkdir(parents=True)
    (features / "steps" / "steps.py").write_text("from mcpbdd.steps import *  # noqa: F403\n")
    (features / "environment.py").write_text("from mcpbdd.behave import *  # noqa: F403\n")
    (features / "stdio.feature").write_text(
        "Feature: a server process\n"
        "  Scenario: named by the scenario\n"
        '    Given the MCP server "stdio: {python} -m mcpbdd.examples.notes"\n'
        '    When the client calls "list_notes"\n'
        "    Then the call succeeds\n"
        "  @harness.client\n"
        "  Scenario: pinned by a tag\n"
        '    Given the MCP server "stdio: {python} -m mcpbdd.examples.notes"\n'
        '    And the user "alice" of tenant "acme"\n'
        '    When the client calls "export_notes" with {"format": "json"}\n'
        "    Then the call succeeds\n"
    )
    report = tmp_path / "report.json"
    run = behave(str(features), "--format", "json", "--outfile", str(report), "-D", "mcpbdd.harness=context")
    assert run.returncode == 0, run.stdout + run.stderr
    statuses = {
        element["name"]: element["status"]
        for feature in json.loads(report.read_text())
        for element in feature["elements"]
        if element["type"] == "scenario"
    }
    assert statuses == {
        "named by the scenario [context harness]": "skipped",
        "pinned by a tag [client harness]": "passed",
    }
