"""One scenario, one verdict: tests/behave_cases/features/one_verdict.feature on every target.

The feature runs against tests/verdict_server.py on the context harness, the client harness in-process
on 2026-07-28 and on 2025-11-25, over stdio and over Streamable HTTP (a process mcpbdd starts per
scenario); one behave run per target, shared by every assertion below. Each scenario must get the same
verdict everywhere:

- what a scenario registers on the module-level server (a tool added, a tool removed) is gone for the
  next one in-process, as it is in a fresh process;
- a cancel lets a handler's shielded work finish, in-process as over a wire;
- a listen for what the server declared it would not announce fails at once, saying what it declared;
- a server's error on `completion/complete`, `prompts/get` or `resources/read` (a resource or a template's)
  fails the scenario (a *failed* step naming the request and what the server said), never a Python error.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from behave_process import side_by_side
from conftest import TESTS
from expected_failures import behave

FEATURE = "tests/behave_cases/features/one_verdict.feature"
SCRIPT = f"{sys.executable} {TESTS / 'verdict_server.py'}"
TARGETS: dict[str, tuple[str, ...]] = {
    "context": ("-D", "mcpbdd.harness=context", "-D", "mcpbdd.server=verdict_server:mcp"),
    "client": ("-D", "mcpbdd.harness=client", "-D", "mcpbdd.server=verdict_server:mcp"),
    "client-legacy": (
        *("-D", "mcpbdd.harness=client", "-D", "mcpbdd.client_mode=legacy"),
        *("-D", "mcpbdd.server=verdict_server:mcp"),
    ),
    "stdio": ("-D", "mcpbdd.harness=client", "-D", f"mcpbdd.server=stdio: {SCRIPT}"),
    "http": ("-D", "mcpbdd.harness=client", "-D", f"mcpbdd.server=http: {SCRIPT} --http 127.0.0.1:{{port}}"),
}

REGISTRATIONS = [
    "a tool adds a tool to the server",
    "the tool added in the scenario before is gone",
    "a tool removes a tool from the server",
    "the tool removed in the scenario before is back",
]
SHIELD = "a save inside a shield finishes although the call is cancelled"
LISTENS: dict[str, str] = {
    "listens for the tools list of a server that declared no announcements": (
        "the server declared tools.listChanged: false in its capabilities"
    ),
    "listens for a resource of a server that declared no subscriptions": (
        'No client can listen for changes to the resource "verdict://status": the server declared '
        "resources.subscribe: false in its capabilities"
    ),
}
COMPLETION = "asks for completions the server fails to give"
SERVER_ERROR = "The server answered completion/complete with the protocol error -32603: Error completing argument name"
CALLS: dict[str, str] = {  # the code and message are the SDK's, which differ by era and dispatcher
    "gets a prompt the server fails to render": "prompts/get 'broken_prompt' as alice of tenant acme failed with the "
    "protocol error",
    "reads a resource the server fails to read": "resources/read 'verdict://broken' as alice of tenant acme failed "
    "with the protocol error",
    "reads a resource of a template the server fails to read": "resources/read 'verdict://broken/milk' as alice of "
    "tenant acme failed with the protocol error",
}

Verdict = tuple[str, str, str, float]
"""A scenario's status, the status of its first step that did not pass, that step's message, its steps' seconds."""
Verdicts = Callable[[str], dict[str, Verdict]]


def _verdicts(report: list[dict[str, Any]]) -> dict[str, Verdict]:
    """Scenario -> its verdict."""
    verdicts = {}
    for feature in report:
        for element in feature.get("elements", []):
            if element.get("type") != "scenario":
                continue
            name = element["name"].rsplit(" [", 1)[0]
            status, message, seconds = "passed", "", 0.0
            for step in element.get("steps", []):
                result = step.get("result", {})
                seconds += result.get("duration", 0.0)
                if result.get("status") not in ("passed", None) and status == "passed":
                    status = result["status"]
                    text = result.get("error_message", "")
                    message = "\n".join(text) if isinstance(text, list) else text
            verdicts[name] = (element.get("status", "?"), status, message, seconds)
    return verdicts


@pytest.fixture(scope="module")
def verdicts(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Verdicts:
    """The feature's verdicts on a target, from one behave run per target however many tests read them; the runs of
    every target a selected test reads begin at once, side by side (tests/behave_process.py)."""

    def run(target: str) -> dict[str, Verdict]:
        out = Path(tmp_path_factory.mktemp(f"one-verdict-{target}")) / "report.json"
        done = behave(FEATURE, *TARGETS[target], "--no-capture", "--format", "json", "--outfile", str(out))
        assert out.exists(), done.stdout + done.stderr
        return _verdicts(json.loads(out.read_text()))

    params = [getattr(getattr(item, "callspec", None), "params", {}) for item in request.session.items]
    items = zip(request.session.items, params, strict=True)
    selected = [p["target"] for item, p in items if item.path == request.path and "target" in p]
    runs = side_by_side(selected, run)
    return lambda target: runs[target].result()


def _passed(verdict: Verdict, target: str, scenario: str) -> None:
    status, step, message, _ = verdict
    assert (status, step) == ("passed", "passed"), f"{target}: {scenario!r} {step}: {message}"


def _failed(verdict: Verdict, target: str, scenario: str, fragment: str) -> float:
    """Failed (the server missed what the specification expects), never an error (mcpbdd's traceback); how long its
    steps took."""
    status, step, message, seconds = verdict
    assert (status, step) == ("failed", "failed"), f"{target}: {scenario!r} {step}: {message}"
    assert "Traceback" not in message, message
    assert fragment in message, f"{target}: {scenario!r}: {fragment!r} not in:\n{message}"
    return seconds


EVERY_TARGET = pytest.mark.parametrize("target", list(TARGETS))


@EVERY_TARGET
def test_the_feature_runs_every_scenario_on_every_target(verdicts: Verdicts, target: str) -> None:
    assert sorted(verdicts(target)) == sorted([*REGISTRATIONS, SHIELD, *LISTENS, COMPLETION, *CALLS])


@EVERY_TARGET
def test_what_a_scenario_registers_on_the_server_is_gone_for_the_next(verdicts: Verdicts, target: str) -> None:
    for scenario in REGISTRATIONS:
        _passed(verdicts(target)[scenario], target, scenario)


@EVERY_TARGET
def test_a_cancel_lets_the_shielded_work_of_a_handler_finish(verdicts: Verdicts, target: str) -> None:
    _passed(verdicts(target)[SHIELD], target, SHIELD)


@EVERY_TARGET
def test_a_listen_the_server_declared_it_would_not_answer_fails_at_once_naming_the_declaration(
    verdicts: Verdicts, target: str
) -> None:
    for scenario, fragment in LISTENS.items():
        seconds = _failed(verdicts(target)[scenario], target, scenario, fragment)
        assert seconds < 3, f"{target}: {scenario!r} took {seconds:.1f} s: a declared refusal fails at once"


@EVERY_TARGET
def test_a_server_error_on_completion_fails_the_scenario_naming_the_request(verdicts: Verdicts, target: str) -> None:
    _failed(verdicts(target)[COMPLETION], target, COMPLETION, SERVER_ERROR)


@EVERY_TARGET
def test_a_server_error_on_a_prompt_a_resource_or_a_template_fails_the_scenario_naming_the_request(
    verdicts: Verdicts, target: str
) -> None:
    for scenario, fragment in CALLS.items():
        _failed(verdicts(target)[scenario], target, scenario, fragment)
