"""The app steps fail when they should, with a message that says why; without a browser they skip, never pass.

Same pattern as tests/spawning/test_behave_runs.py: the failing-case features run in a behave subprocess
with the JSON formatter, and each scenario's failure message must hold the expected fragments.
"""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest
from behave_passes import PASSES, BehavePass
from expected_failures import (
    ROOT,
    FailingRun,
    FailingRunsOfPasses,
    assert_scenarios_failed_with,
    behave,
    run_failing,
)
from processes import mcpbdd_run

from mcpbdd.apps.browser import INSTALL_CHROMIUM, INSTALL_PLAYWRIGHT

FEATURE = "tests/behave_cases/features/failing_apps.feature"
VIEWS = "tests/behave_cases/features/failing_app_views.feature"

needs_a_browser = pytest.mark.skipif(
    shutil.which("chromium") is None or importlib.util.find_spec("playwright") is None,
    reason=f"the app host needs Chromium and Playwright: {INSTALL_CHROMIUM}, {INSTALL_PLAYWRIGHT}",
)

EXPECTED_FAILURES: dict[str, list[str]] = {
    "shows, but the text is not there": [
        "the app of the tool 'show_note_card' does not show 'Groceries'; it shows: Launch plan Friday No tags"
    ],
    "no content security rule broken, but a script from an unlisted domain was refused": [
        "the app of the tool 'show_note_card_embedded' broke 1 content security rule(s) of its resource "
        "ui://notes/card-embedded.html:\n  - script-src-elem refused https://widgets.example.net/embed.js"
    ],
    "matches the screenshot, but the view looks different": [
        "the app differs from the screenshot features/screenshots/note-card-dark.png in ",
        "more than the 1.0% allowed); if the change is intended, rewrite it with `mcpbdd run --update-screenshots`",
    ],
    "matches a screenshot that was never recorded": [
        "no screenshot tests/behave_cases/no-such-screenshot.png to compare the app with: record it with "
        "`mcpbdd run --update-screenshots`"
    ],
    "matches a screenshot above the project": [
        "the screenshot '../../outside-the-project.png' climbs out with '..': a screenshot is a .png named "
        "relative to the project, inside it (e.g. features/screenshots/card.png)"
    ],
    "matches a screenshot at an absolute path": [
        "the screenshot '/tmp/mcpbdd-absolute-screenshot.png' is an absolute path: a screenshot is a .png named"
    ],
    "called the tool, but nothing was clicked": ["the app of the tool 'show_note_card' did not call 'pin_note'"],
    "asked to open a link it did not ask for": [
        "the app did not ask to open https://notes.example.com/n/n-1; it asked to open nothing"
    ],
    "clicks a control the view does not have": [
        "the app of the tool 'show_note_card' has nothing labelled 'Archive' to click; it shows: Launch plan"
    ],
    "opens the app of a tool that has none": ["the tool 'get_note' has no app: its _meta.ui.resourceUri is not set"],
}

VIEW_FAILURES: dict[str, list[str]] = {
    "no error, but the view throws and logs one": [
        "the app of the tool 'throwing' has 2 error(s):",
        "  - uncaught exception: Uncaught TypeError: Cannot read properties of null (reading 'price')",
        "  - console error: the chart data is missing",
    ],
    "no error, but the view never initializes": [
        "initialization failed: the view sent nothing to the host within 5 s (no ui/initialize)"
    ],
    "no content security rule broken, but the view loads a tracker": [
        "broke 1 content security rule(s) of its resource ui://broken/tracking.html:\n"
        "  - script-src-elem refused https://tracker.example.org/t.js"
    ],
    "opens the app of a tool added to the app after the server was built": [
        "the server offers no tool 'late'; it offers: throwing, silent, tracking (broken_apps.apps declares the app "
        "tool 'late', but it was added after the MCPServer was built"
    ],
}


FAILING_RUNS = {"context": (FEATURE, VIEWS), "client": (VIEWS,)}
"""The runs of the failing-case features the table tests read: per pass, the features one behave process runs (one
start-up and one browser for both features of the context pass), each feature's results read apart."""


@pytest.fixture(scope="module")
def app_runs(failing_runs: FailingRunsOfPasses) -> Callable[[str, BehavePass], FailingRun]:
    """The failing-case features' runs, begun together, side by side (`FailingRuns`); a feature's part of its pass's
    run, once it has ended."""
    for name, features in FAILING_RUNS.items():
        failing_runs.start_together(features, PASSES[name])
    return lambda feature, behave_pass: failing_runs.together(FAILING_RUNS[behave_pass.name], behave_pass)[feature]


@needs_a_browser
def test_every_app_step_fails_with_a_readable_message(app_runs: Callable[[str, BehavePass], FailingRun]) -> None:
    assert_scenarios_failed_with(app_runs(FEATURE, PASSES["context"]), EXPECTED_FAILURES)


@needs_a_browser
def test_a_screenshot_name_leading_out_of_the_project_is_never_written(tmp_path: Path) -> None:
    outside = [ROOT.parent.parent / "outside-the-project.png", Path("/tmp/mcpbdd-absolute-screenshot.png")]
    for path in outside:
        path.unlink(missing_ok=True)
    run = run_failing(
        FEATURE,
        [*PASSES["context"].options, "-D", "mcpbdd.update_screenshots=true", "-n", "above the project|absolute"],
        tmp_path / "report.json",
    )
    assert run.returncode == 1, run.output
    assert set(run.messages) == {"matches a screenshot above the project", "matches a screenshot at an absolute path"}
    for name, message in run.messages.items():
        assert EXPECTED_FAILURES[name][0] in message
    assert not any(path.exists() for path in outside), "written outside the project"


@needs_a_browser
@pytest.mark.parametrize("behave_pass", ["context", "client"], indirect=True)
def test_a_broken_view_is_named_by_what_broke(
    app_runs: Callable[[str, BehavePass], FailingRun], behave_pass: BehavePass
) -> None:
    assert_scenarios_failed_with(app_runs(VIEWS, behave_pass), VIEW_FAILURES)


@pytest.mark.skipif(importlib.util.find_spec("playwright") is None, reason=INSTALL_PLAYWRIGHT)
def test_without_chromium_optional_app_scenarios_are_skipped_with_the_install_line(tmp_path: Path) -> None:
    empty = tmp_path / "bin"
    empty.mkdir()
    report = tmp_path / "report.json"
    env_path = os.environ.get("PATH", "")
    try:
        os.environ["PATH"] = str(empty)  # behave's subprocess inherits it: no chromium on its PATH
        run = behave(
            "features/apps.feature",
            *PASSES["context"].options,
            *("-D", "mcpbdd.require=", "-D", "mcpbdd.optional=apps"),  # this project requires apps; here they may skip
            *("--no-capture", "-f", "json", "-o", str(report)),
        )
    finally:
        os.environ["PATH"] = env_path
    assert run.returncode == 0, run.stdout + run.stderr
    scenarios = [element for feature in json.loads(report.read_text()) for element in feature["elements"]]
    scenarios = [s for s in scenarios if s["type"] == "scenario"]
    assert scenarios and {s["status"] for s in scenarios} == {"skipped"}, "skipped, never passed"
    assert f"no Chromium ({INSTALL_CHROMIUM})" in run.stdout + run.stderr
    assert (ROOT / "features" / "apps.feature").exists()


@needs_a_browser
def test_each_opened_view_is_attached_to_its_step_with_its_messages(tmp_path: Path) -> None:
    results = tmp_path / "allure-results"
    messages = tmp_path / "run.ndjson"
    run = mcpbdd_run(
        "--harness",
        "context",
        "--results",
        str(results),
        "--no-junit",
        "--no-coverage",
        "--messages",
        str(messages),
        "features/apps.feature",
        "-n",
        "The card asks the host to open the note on the web",
    )
    assert run.returncode == 0, run.stdout + run.stderr
    (result,) = [json.loads(p.read_text()) for p in results.glob("*-result.json")]
    opened = next(step for step in result["steps"] if "opens the app" in step["name"])
    clicked = next(step for step in result["steps"] if "clicks" in step["name"])
    for step in (opened, clicked):
        kinds = {a["name"]: a for a in step["attachments"]}
        assert kinds["app: show_note_card"]["type"] == "image/png"
        assert (results / kinds["app: show_note_card"]["source"]).read_bytes().startswith(b"\x89PNG")
        log = json.loads((results / kinds["app show_note_card: view-host messages"]["source"]).read_text())
        assert {"view_host_messages", "csp_violations", "errors", "tool_calls", "links"} <= log.keys()
    methods = [entry["message"].get("method") for entry in log["view_host_messages"]]
    assert methods[:2] == ["ui/initialize", None]  # the view asks, the host answers
    assert {"ui/notifications/initialized", "ui/notifications/tool-input", "ui/notifications/tool-result"} <= set(
        methods
    )
    assert log["links"] == ["https://notes.example.com/n/n-1"]
    assert messages.read_text().count('"mediaType":"image/png"') == 2, "the Messages report carries them too"
