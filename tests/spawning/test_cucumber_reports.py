"""`mcpbdd run --messages --cucumber-json`: Cucumber Messages the official schema accepts, Cucumber JSON, and
`@cucumber/html-formatter` rendering them, from one real run over two harnesses in two jobs (merged streams)."""

from __future__ import annotations

import base64
import json
import os
import re
import shutil
import subprocess
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
import warm_python

from mcpbdd.reporting.cucumber_json import to_cucumber_json

ROOT = Path(__file__).resolve().parents[2]
FEATURES = ["features/tenants.feature:11", "tests/behave_cases/features/failing_assertions.feature:7"]
needs_node = pytest.mark.skipif(shutil.which("node") is None, reason="needs Node.js and npm (the official schema)")


def _run(out: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    return warm_python.run(
        [
            sys.executable,
            "-m",
            "mcpbdd.cli.main",
            "run",
            "--results",
            str(out / "allure"),
            "--junit",
            str(out / "junit"),
            "--timings",
            str(out / "timings.json"),
            "--messages",
            str(out / "messages.ndjson"),
            "--cucumber-json",
            str(out / "cucumber.json"),
            "-f",
            "progress",
            *extra,
            *FEATURES,
        ],
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT / "tests")},
        capture_output=True,
        text=True,
        timeout=300,
    )


@pytest.fixture(scope="module")
def reports(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("cucumber")
    run = _run(out, "--harness", "both", "--jobs", "2")
    assert run.returncode == 1, run.stdout + run.stderr  # the failing_assertions scenario fails, on purpose
    return out


PASSES = ("context", "client")


def _stream(out: Path, name: str) -> list[dict[str, Any]]:
    """One pass's stream: a run of several passes writes one per pass beside `--messages FILE`."""
    return [json.loads(line) for line in (out / f"messages.{name}.ndjson").read_text().splitlines()]


def _envelopes(out: Path) -> list[dict[str, Any]]:
    return [e for name in PASSES for e in _stream(out, name)]


@needs_node
def test_every_envelope_is_valid_against_the_official_schema(reports: Path) -> None:
    from jsonschema import Draft202012Validator

    from mcpbdd.reporting.cucumber_html import messages_schema

    validator = Draft202012Validator(json.loads(messages_schema(quiet=True).read_text()))
    envelopes = _envelopes(reports)
    problems = [(next(iter(e)), error.message) for e in envelopes for error in validator.iter_errors(e)]
    assert problems == []
    kinds = Counter(next(iter(e)) for e in envelopes)
    for kind in ("meta", "source", "gherkinDocument", "pickle", "stepDefinition", "testCase", "testRunStarted"):
        assert kinds[kind] >= 1, kind
    for kind in ("testCaseStarted", "testStepStarted", "testStepFinished", "testCaseFinished", "testRunFinished"):
        assert kinds[kind] >= 1, kind
    # the validator is no rubber stamp: a step result without its status, or an unknown message, is refused
    broken = next(e for e in envelopes if "testStepFinished" in e)
    del broken["testStepFinished"]["testStepResult"]["status"]
    assert list(validator.iter_errors(broken))
    assert list(validator.iter_errors({"exchange": {}}))


def test_the_processes_streams_merge_into_one_run_per_pass(reports: Path) -> None:
    """Cucumber's tools key a scenario's run by its Gherkin node: two passes in one stream would show as one."""
    assert not (reports / "messages.ndjson").exists()
    names = []
    for harness in PASSES:
        envelopes = _stream(reports, harness)
        kinds = [next(iter(e)) for e in envelopes]
        assert kinds[:2] == ["meta", "testRunStarted"] and kinds[-1] == "testRunFinished"
        assert kinds.count("meta") == kinds.count("testRunStarted") == kinds.count("testRunFinished") == 1
        assert envelopes[-1]["testRunFinished"]["success"] is False
        run_id = envelopes[1]["testRunStarted"]["id"]
        assert {e["testCase"]["testRunStartedId"] for e in envelopes if "testCase" in e} == {run_id}
        assert kinds.count("gherkinDocument") == 2  # one per feature file
        pickles = {e["pickle"]["id"]: e["pickle"] for e in envelopes if "pickle" in e}
        assert len({tuple(p["astNodeIds"]) for p in pickles.values()}) == len(pickles) == 2  # no node run twice
        names += [p["name"] for p in pickles.values()]
        assert all(e["testCase"]["pickleId"] in pickles for e in envelopes if "testCase" in e)
        started = Counter(e["testStepStarted"]["testStepId"] for e in envelopes if "testStepStarted" in e)
        finished = Counter(e["testStepFinished"]["testStepId"] for e in envelopes if "testStepFinished" in e)
        assert started == finished and set(started.values()) == {1}
    assert sorted(names) == [
        "Colleagues share the company notebook [client harness]",
        "Colleagues share the company notebook [context harness]",
        "succeeds, but the call failed [client harness]",
        "succeeds, but the call failed [context harness]",
    ]


def test_step_definitions_are_regular_expressions_matching_the_steps_they_ran(reports: Path) -> None:
    """behave's `parse` patterns are not Cucumber Expressions: each definition is the exact regex instead."""
    import re

    envelopes = _envelopes(reports)
    definitions = {
        e["stepDefinition"]["id"]: e["stepDefinition"]["pattern"] for e in envelopes if "stepDefinition" in e
    }
    assert {p["type"] for p in definitions.values()} == {"REGULAR_EXPRESSION"}
    texts = {s["id"]: s["text"] for e in envelopes if "pickle" in e for s in e["pickle"]["steps"]}
    checked = 0
    for case in (e["testCase"] for e in envelopes if "testCase" in e):
        for step in case["testSteps"]:
            for definition in step.get("stepDefinitionIds", []):
                assert re.fullmatch(definitions[definition]["source"], texts[step["pickleStepId"]]), step
                checked += 1
    assert checked >= 8
    # and no expression is a catch-all: each leaves some of the run's steps unmatched
    distinct = set(texts.values())
    for pattern in definitions.values():
        assert sum(bool(re.fullmatch(pattern["source"], text)) for text in distinct) < len(distinct), pattern


def test_each_mcp_exchange_is_an_attachment_on_the_step_that_made_it(reports: Path) -> None:
    envelopes = _envelopes(reports)
    pickle_steps = {s["id"]: s["text"] for e in envelopes if "pickle" in e for s in e["pickle"]["steps"]}
    test_steps = {s["id"]: s for e in envelopes if "testCase" in e for s in e["testCase"]["testSteps"]}
    on_steps: dict[str, list[str]] = {}
    for e in envelopes:
        if "attachment" in e:
            attachment = e["attachment"]
            step = test_steps[attachment["testStepId"]]
            on_steps.setdefault(pickle_steps.get(step.get("pickleStepId", ""), "(hook)"), []).append(
                attachment["fileName"]
            )
    create = on_steps['"alice" calls "create_note" with:']
    assert len(create) == 2 and all(name.startswith("tools/call create_note → ok · alice") for name in create)
    exchange = next(e["attachment"] for e in envelopes if "attachment" in e)
    assert exchange["mediaType"] == "application/json"
    assert json.loads(exchange["body"])["request"]["target"] == "create_note"
    traces = on_steps["(hook)"]  # a failed scenario's whole trace, from the after_scenario hook
    assert sorted(traces) == ["MCP trace (1 exchanges)"] * 2
    failed = [e["testStepFinished"]["testStepResult"] for e in envelopes if "testStepFinished" in e]
    assert [r["status"] for r in failed].count("FAILED") == 2
    assert any("Expected the call to succeed" in r.get("message", "") for r in failed)


def test_cucumber_json_has_every_scenario_its_steps_and_the_exchanges(reports: Path) -> None:
    report = json.loads((reports / "cucumber.json").read_text())
    assert sorted(f["uri"] for f in report) == ["features/tenants.feature", FEATURES[1].split(":")[0]]
    elements = [e for f in report for e in f["elements"]]
    assert len(elements) == 4 and {e["type"] for e in elements} == {"scenario"}
    tenants = next(f for f in report if f["uri"] == "features/tenants.feature")
    scenario = tenants["elements"][0]
    assert scenario["line"] == 11 and scenario["keyword"] == "Scenario"
    when = next(s for s in scenario["steps"] if s["name"] == '"alice" calls "create_note" with:')
    assert when["keyword"] == "When " and when["result"]["status"] == "passed" and when["result"]["duration"] > 0
    assert when["match"]["location"].startswith("mcpbdd/steps/calls.py:")
    assert json.loads(when["doc_string"]["value"]) == {"title": "Launch plan", "body": "Friday 10:00"}
    exchange = json.loads(base64.b64decode(when["embeddings"][0]["data"]))
    assert exchange["request"]["target"] == "create_note" and when["embeddings"][0]["mime_type"] == "application/json"
    failing = [e for f in report if f["uri"] != "features/tenants.feature" for e in f["elements"]]
    then = failing[0]["steps"][-1]
    assert then["result"]["status"] == "failed" and "Expected the call to succeed" in then["result"]["error_message"]
    assert failing[0]["after"][0]["embeddings"][0]["name"] == "MCP trace (1 exchanges)"


@needs_node
def test_the_html_formatter_renders_the_run_with_its_exchanges(reports: Path, tmp_path: Path) -> None:
    command = ["report", "--messages", str(reports / "messages.ndjson"), "-o", str(tmp_path)]  # one page per pass
    run = warm_python.run(
        [sys.executable, "-m", "mcpbdd.cli.main", *command],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert run.returncode == 0, run.stdout + run.stderr
    index = (tmp_path / "cucumber.html").read_text()
    for harness in PASSES:
        assert f'href="cucumber.{harness}.html"' in index
        page = (tmp_path / f"cucumber.{harness}.html").read_text()
        assert page.startswith("<!DOCTYPE html>") and "CucumberHtmlStream" not in page
        assert "tools/call create_note" in page and "Colleagues share the company notebook" in page


def test_secrets_are_redacted_from_the_messages_and_the_cucumber_json(tmp_path: Path) -> None:
    run = _run(tmp_path, "-D", "mcpbdd.secrets=Friday")
    assert run.returncode == 1, run.stdout + run.stderr
    for name in ("messages.ndjson", "cucumber.json"):  # one pass: one stream
        text = (tmp_path / name).read_text()
        assert "Friday" not in text and base64.b64encode(b"Friday").decode()[:6] not in text, name
        assert "«redacted»" in text or "redacted" in text
    assert "Launch plan" in (tmp_path / "messages.ndjson").read_text()
    json.loads((tmp_path / "cucumber.json").read_text())  # still valid JSON


def test_each_phrasing_of_a_table_registered_step_is_its_own_step_definition(reports: Path) -> None:
    """Phrasings registered from one table share a function's line; each must still name its own pattern."""
    envelopes = _envelopes(reports)
    patterns = {
        e["stepDefinition"]["id"]: e["stepDefinition"]["pattern"]["source"] for e in envelopes if "stepDefinition" in e
    }
    texts = {s["id"]: s["text"] for e in envelopes if "pickle" in e for s in e["pickle"]["steps"]}
    used = {
        texts[step["pickleStepId"]]: patterns[definition]
        for case in (e["testCase"] for e in envelopes if "testCase" in e)
        for step in case["testSteps"]
        for definition in step.get("stepDefinitionIds", [])
    }
    with_table, bare = used['"alice" calls "create_note" with:'], used['"bob" calls "list_notes"']
    assert with_table != bare
    assert re.fullmatch(with_table, '"alice" calls "create_note" with:') and not re.fullmatch(
        with_table, '"bob" calls "list_notes"'
    )
    assert re.fullmatch(bare, '"bob" calls "list_notes"') and not re.fullmatch(
        bare, '"alice" calls "create_note" with:'
    )
    assert used["the structured result contains:"] == "^the structured result contains:$"
    assert used["the call succeeds"] == "^the call succeeds$"
    assert len(set(patterns.values())) == len(patterns)


def test_a_failed_before_scenario_hook_is_a_failed_hook_step_before_skipped_steps(tmp_path: Path) -> None:
    """The project's own hook failed: its step is failed with behave's message, and points at the project's hook."""
    feature = "tests/allure_cases/plain/features/before_scenario_fails.feature"
    stream = tmp_path / "run.ndjson"
    formatter = "mcpbdd.reporting.messages:MessagesFormatter"
    command = [sys.executable, "-m", "behave", "--format", formatter, "--outfile", str(stream), feature]
    done = warm_python.run(command, cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 1, done.stdout + done.stderr
    envelopes = [json.loads(line) for line in stream.read_text().splitlines()]
    (hook,) = [e["hook"] for e in envelopes if "hook" in e]
    assert hook["type"] == "BEFORE_TEST_CASE"
    assert hook["sourceReference"]["uri"] == "tests/allure_cases/plain/environment.py"
    cases = [e["testCase"] for e in envelopes if "testCase" in e]
    results = {
        e["testStepFinished"]["testStepId"]: e["testStepFinished"]["testStepResult"]
        for e in envelopes
        if "testStepFinished" in e
    }
    first, second = cases
    assert [bool(step.get("hookId")) for step in first["testSteps"]] == [True, False]
    before, step = (results[s["id"]] for s in first["testSteps"])
    assert before["status"] == "FAILED" and "the scenario's set-up exploded" in before["message"]
    assert step["status"] == "SKIPPED"
    assert [results[s["id"]]["status"] for s in second["testSteps"]] == ["PASSED"]  # the next scenario is unaffected
    report = to_cucumber_json(envelopes)
    element = report[0]["elements"][0]
    assert (
        element["before"][0]["result"]["status"] == "failed"
        and "exploded" in element["before"][0]["result"]["error_message"]
    )


def test_what_the_server_sent_during_a_step_is_an_attachment_of_that_step_redacted(tmp_path: Path) -> None:
    """The step's notifications (the World's journal: progress reports and log messages of its calls) are one JSON
    attachment of the step that heard them, in the Messages and in the Cucumber JSON, with a secret redacted from
    the log data; in-process on both harnesses and over stdio."""
    features = ["features/logs.feature:10", "features/logs.feature:29"]
    command = [sys.executable, "-m", "mcpbdd.cli.main", "run", "--harness", "both", "-f", "progress"]
    command += ["--results", str(tmp_path / "allure"), "--junit", str(tmp_path / "junit")]
    command += ["--messages", str(tmp_path / "messages.ndjson"), "--cucumber-json", str(tmp_path / "cucumber.json")]
    command += ["-D", "mcpbdd.secrets=Eggs", *features]
    run = warm_python.run(command, cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stdout + run.stderr
    heard_on: list[tuple[str, str, list[dict[str, Any]]]] = []
    for harness in PASSES:
        envelopes = _stream(tmp_path, harness)
        pickle_steps = {s["id"]: s["text"] for e in envelopes if "pickle" in e for s in e["pickle"]["steps"]}
        test_steps = {s["id"]: s for e in envelopes if "testCase" in e for s in e["testCase"]["testSteps"]}
        for attachment in (e["attachment"] for e in envelopes if "attachment" in e):
            if attachment["fileName"].startswith("notifications"):
                step = pickle_steps.get(test_steps[attachment["testStepId"]].get("pickleStepId", ""), "(hook)")
                heard_on.append((step, attachment["fileName"], json.loads(attachment["body"])))
                assert attachment["mediaType"] == "application/json"
    assert len(heard_on) == 3, heard_on  # the calling step of the in-process scenario on both passes, of the stdio one
    assert {step for step, _, _ in heard_on} == {
        'the client calls "import_notebook" with:',
        'the client calls "import_notebook" with {"notes": [{"title": "«redacted»"}]}',
    }
    for step, name, heard in heard_on:
        if step.endswith("with:"):  # in-process, from level info: two notes imported, one without a body
            assert name == "notifications: 2 progress reports, 3 log messages", name
            assert [e["kind"] for e in heard] == ["progress"] * 2 + ["log message"] * 3
        else:  # over stdio, from level warning: one note, without a body
            assert name == "notifications: 1 progress report, 1 log message", name
        assert {e["call"] for e in heard} == {"tools/call import_notebook"}
        assert "Note '«redacted»' has no body" in [e.get("data") for e in heard]  # redaction applies to log data
    report = (tmp_path / "cucumber.json").read_text() if (tmp_path / "cucumber.json").exists() else ""
    reports = [report] if report else [(tmp_path / f"cucumber.{h}.json").read_text() for h in PASSES]
    for text in reports:
        assert "Eggs" not in text
        embedded = [
            embedding["name"]
            for feature in json.loads(text)
            for element in feature["elements"]
            for step in element["steps"]
            for embedding in step.get("embeddings", [])
        ]
        assert embedded.count("notifications: 2 progress reports, 3 log messages") >= 1, embedded
