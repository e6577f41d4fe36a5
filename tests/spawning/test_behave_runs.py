"""behave runs in a subprocess (behave's main() leaks step definitions within one process): what a run says as a whole.

A bad setting stops the run at once; a passing run through `mcpbdd run` writes one Allure result per scenario and
harness (the session's one run of the specifications, `project_run`); a scenario naming a server process is
skipped, not green, on a context pass; a misspelt step is answered with the nearest phrases; an answer given in
advance that no question used fails its scenario. (Each step's own failure message is checked by the table in
test_failing_steps.py.)
"""

from __future__ import annotations

import json
from pathlib import Path

from behave_passes import BehavePass
from expected_failures import behave

from spawning.conftest import ProjectRun

FEATURE = "tests/behave_cases/features/failing_assertions.feature"


def test_a_bad_setting_stops_the_run_at_once_with_a_clear_message() -> None:
    run = behave(FEATURE, "-D", "mcpbdd.harness=wire")
    assert run.returncode != 0
    assert "harness: Input should be 'context' or 'client' (from -D mcpbdd.harness=wire)" in run.stdout + run.stderr


def test_mcpbdd_run_writes_one_allure_result_per_scenario_and_harness(project_run: ProjectRun) -> None:
    results, run = project_run.results, project_run.process  # the session's `mcpbdd run --harness both --jobs 2`
    assert run.returncode == 0, run.stdout + run.stderr
    outcomes = [json.loads(p.read_text()) for p in results.glob("*-result.json")]
    names = sorted(result["name"] for result in outcomes)
    context = {n.rsplit(" [", 1)[0] for n in names if n.endswith("[context harness]")}
    client = {n.rsplit(" [", 1)[0] for n in names if n.endswith("[client harness]")}
    assert len(context) > 10
    assert context <= client, "every scenario the context pass ran, the client pass ran too"
    assert {result["status"] for result in outcomes} == {"passed"}
    exchanges = [json.loads(p.read_text()) for p in results.glob("*-attachment.json")]
    exchanges = [e for e in exchanges if isinstance(e, dict) and "request" in e]
    assert exchanges, "each MCP exchange is attached to the step that made it"
    assert all({"harness", "request", "channel", "duration_ms"} <= e.keys() for e in exchanges)


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


MISSPELT = "tests/behave_cases/features/misspelt_steps.feature"


def test_a_misspelt_step_is_answered_with_the_nearest_phrases() -> None:
    run = behave(MISSPELT, "--format", "progress")
    assert run.returncode == 1, run.stdout + run.stderr
    nearest = f"{MISSPELT}:9: no step matches 'Then the call succeed'; did you mean:\n    Then the call succeeds\n"
    assert nearest in run.stderr, run.stderr  # the nearest first; the rest follow as the vocabulary grows
    suggested = run.stderr.split(nearest, 1)[1].split("\n\n", 1)[0]
    assert "    Then the call does not succeed" in suggested.splitlines(), suggested
    assert f"{MISSPELT}:12: no step matches 'When the client calls the tool \"list_notes\"'; did you mean:\n" in (
        run.stderr
    )
    assert '    When the client calls "{tool}"\n' in run.stderr
    assert (
        f"{MISSPELT}:16: no step matches 'Then the moon is made of cheese'; no phrase of the vocabulary is close "
        "(`mcpbdd steps` lists them all)"
    ) in run.stderr
    # A Then step is a check: its seeding Given (the same words) is the wrong advice.
    assert (
        f'{MISSPELT}:20: no step matches \'Then the storage of tenant "acme" holds "notes/n-1" equals to:\'; '
        'did you mean:\n    Then the storage of tenant "{tenant}" holds "{key}" equal to:\n'
    ) in run.stderr
    assert run.stderr.count("no step matches") == 4, "each undefined step once"


UNUSED = "tests/behave_cases/features/unused_answer.feature"


def test_an_answer_given_in_advance_that_no_question_used_fails_the_scenario(behave_pass: BehavePass) -> None:
    run = behave(UNUSED, "--format", "progress", *behave_pass.options)
    assert run.returncode == 1, run.stdout + run.stderr
    assert "0 scenarios passed, 0 failed, 4 hook_error" in run.stdout, run.stdout
    assert (
        "The model's answer given in advance 'Weekly groceries' was never used: the server never asked the model "
        "(no question was asked in this scenario)"
    ) in run.stdout
    assert (
        "The model's answer given in advance 'Monthly groceries' was never used: the server asked the model only once "
        "(questions asked: "
    ) in run.stdout
    assert (
        "The answer given in advance for 'confirm_cancel' was never used: no question by that name was asked "
        "(no question was asked in this scenario)"
    ) in run.stdout
    assert "The answer given in advance for 'confirm_archive' was never used" in run.stdout
    assert "(questions asked: " in run.stdout and "'elicitation-1')" in run.stdout
