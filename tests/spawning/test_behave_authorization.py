"""A server with an authorization flaw fails the bundled authorization scenarios, each message naming the flaw.

features/authorization.feature specifies the example server's whole HTTP edge. Here it runs
(behave in a subprocess, over a started HTTP process) against the variants of
tests/auth_variants.py, each the example with one flaw (a copy of the feature per flaw, all in
one behave process): exactly the scenarios the flaw breaks fail, and their messages say what the
server let through or answered wrongly. (Each authorization step's own failure message is checked
by the table in test_failing_steps.py; that the example server itself passes every scenario is
the session's run of the specifications, tests/spawning/test_specifications.py.)
"""

from __future__ import annotations

import json
import shutil
import subprocess
from collections.abc import Sequence
from pathlib import Path

import pytest
from expected_failures import ROOT, behave, failure_messages_by_feature

FEATURE = ROOT / "features" / "authorization.feature"
EXAMPLE = "-m mcpbdd.examples.notes --http"

FlawedRuns = tuple[subprocess.CompletedProcess[str], dict[str, dict[str, str]]]
"""The one behave process over every flaw's copy of the feature, and each flaw's failed scenarios and messages."""

UNAUTHENTICATED = [
    "A request without a token is told where to sign in",
    "A token stops working when it expires",
    "An expired token is refused",
    "Clocks may disagree a little, not a lot",
    "A token for another service is refused, however alike its address -- @1.1 ",
    "A token for another service is refused, however alike its address -- @1.2 ",
    "A token for another service is refused, however alike its address -- @1.3 ",
    "A token for another service is refused, however alike its address -- @1.4 ",
    "A token from another sign-in service is refused",
    "A forged token is refused -- @1.1 ",
    "A forged token is refused -- @1.2 ",
    "A forged token is refused -- @1.3 ",
    "A forged token is refused -- @1.4 ",
]

EXPECTED: dict[str, dict[str, list[str]]] = {
    "any-audience": {
        f"A token for another service is refused, however alike its address -- @1.{n} ": [
            "the server answered tools/call list_notes of alice of tenant acme, which carried a token that was "
            "issued for the audience",
            "a protected server must refuse it with HTTP 401",
        ]
        for n in range(1, 5)
    },
    "alg-none": {
        "A forged token is refused -- @1.2 ": [
            "which carried a token that was unsigned (alg none): a protected server must refuse it with HTTP 401"
        ]
    },
    "403-for-401": {name: ["the server answered 403 where 401 is due"] for name in UNAUTHENTICATED},
}


def _flawed_runs(folder: Path, flaws: Sequence[str]) -> FlawedRuns:
    """behave over features/authorization.feature against the example server with each of `flaws`, a copy of the
    feature per flaw, all in one process (one start-up, one fake authorization server): its process and each flaw's
    failures, read from its own feature file's part of the report."""
    features = folder / "features"
    (features / "steps").mkdir(parents=True)
    shutil.copy(ROOT / "tests" / "behave_cases" / "environment.py", features / "environment.py")
    shutil.copy(ROOT / "tests" / "behave_cases" / "steps" / "steps.py", features / "steps" / "steps.py")
    text = FEATURE.read_text(encoding="utf-8")
    assert EXAMPLE in text
    for flaw in flaws:
        (features / f"authorization-{flaw}.feature").write_text(
            text.replace(EXAMPLE, f"-m auth_variants {flaw} --http")
        )
    report = folder / "report.json"
    run = behave(str(features), "-D", "mcpbdd.harness=client", "--format", "json", "--outfile", str(report))
    by_feature = failure_messages_by_feature(json.loads(report.read_text())) if report.exists() else {}
    failures = {flaw: by_feature.get((features / f"authorization-{flaw}.feature").resolve(), {}) for flaw in flaws}
    return run, failures


@pytest.fixture(scope="module")
def flawed_runs(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> FlawedRuns:
    """One run of every flaw a selected test reads (see `_flawed_runs`)."""
    params = [getattr(getattr(item, "callspec", None), "params", {}) for item in request.session.items]
    items = zip(request.session.items, params, strict=True)
    flaws = list(dict.fromkeys(p["flaw"] for item, p in items if item.path == request.path and "flaw" in p))
    return _flawed_runs(tmp_path_factory.mktemp("flaws"), flaws)


@pytest.mark.parametrize("flaw", sorted(EXPECTED))
def test_a_flawed_server_fails_the_scenarios_its_flaw_breaks(flawed_runs: FlawedRuns, flaw: str) -> None:
    run, failures_of = flawed_runs
    assert run.returncode == 1, run.stdout + run.stderr
    failures = failures_of[flaw]
    assert sorted(failures) == sorted(EXPECTED[flaw]), "exactly the scenarios the flaw breaks must fail"
    for scenario, fragments in EXPECTED[flaw].items():
        for fragment in fragments:
            assert fragment in failures[scenario], f"{scenario!r}: {fragment!r} not in:\n{failures[scenario]}"


def test_the_authorization_steps_skip_where_no_token_travels(tmp_path: Path) -> None:
    features = tmp_path / "features"
    (features / "steps").mkdir(parents=True)
    shutil.copy(ROOT / "tests" / "behave_cases" / "environment.py", features / "environment.py")
    shutil.copy(ROOT / "tests" / "behave_cases" / "steps" / "steps.py", features / "steps" / "steps.py")
    (features / "skipped.feature").write_text(
        "Feature: no HTTP, no token\n"
        "  Scenario: on a context pass\n"
        '    Given the MCP server "mcpbdd.examples.notes:mcp"\n'
        "    And the server requires a token\n"
        '    When the client calls "list_notes" without a token\n'
        "    Then the call is refused as unauthenticated\n"
        "  @harness.client\n"
        "  Scenario: over stdio\n"
        '    Given the MCP server "stdio: {python} -m mcpbdd.examples.notes"\n'
        "    And the server requires a token\n"
        '    When the client calls "list_notes" without a token\n'
        "    Then the call is refused as unauthenticated\n"
        "  @harness.client\n"
        "  Scenario: in-process on the client harness\n"
        '    Given the MCP server "mcpbdd.examples.notes:mcp"\n'
        "    And the server requires a token\n"
        "    Then the call is refused as unauthenticated\n"
    )
    report = tmp_path / "report.json"
    # One run, two formatters: the JSON report for the statuses, the plain one on stdout for the reasons.
    formats = ("--format", "json", "--outfile", str(report), "--format", "plain", "--outfile", "-")
    run = behave(str(features), *formats, "--no-capture", "-D", "mcpbdd.harness=context")
    assert run.returncode == 0, run.stdout + run.stderr
    scenarios = [e for f in json.loads(report.read_text()) for e in f["elements"] if e["type"] == "scenario"]
    assert {e["name"]: e["status"] for e in scenarios} == {
        "on a context pass [context harness]": "skipped",
        "over stdio [client harness]": "skipped",
        "in-process on the client harness [client harness]": "skipped",
    }
    said = run.stdout + run.stderr
    assert said.count("bearer tokens travel over HTTP only and ") == 3
    for why in ("this is a context pass", "this scenario's server is reached over stdio", "is reached in-process"):
        assert why in said
