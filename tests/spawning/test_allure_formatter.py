"""mcpbdd's Allure formatter: each fix shown against plain allure-behave 2.16.2, then what a reviewer sees.

Every behave run is a subprocess (behave's main() leaks step definitions within one
process). The `plain` cases use no mcpbdd hooks, so the two formatters see exactly the
same run; each fix is a test parametrised over both, and the allure-behave half is a
strict xfail: it must fail there, or the fix is no longer needed.
"""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import behave_process
import pytest
import warm_python
from behave_process import ROOT

PLAIN = "tests/allure_cases/plain/features"
MCP = "tests/allure_cases/mcp/features"
OURS = "mcpbdd.reporting.allure_formatter:AllureFormatter"
ALLURE_BEHAVE = "allure_behave.formatter:AllureFormatter"
SECRET = "s3cr3t-token"

FORMATTERS = [
    pytest.param(OURS, id="mcpbdd"),
    pytest.param(ALLURE_BEHAVE, id="allure-behave", marks=pytest.mark.xfail(strict=True, reason="the bug we fix")),
]


@dataclass
class Results:
    """One behave run's Allure results folder, read."""

    folder: Path
    returncode: int
    output: str

    @property
    def tests(self) -> list[dict[str, Any]]:
        return [json.loads(p.read_text(encoding="utf-8")) for p in sorted(self.folder.glob("*-result.json"))]

    def test(self, fragment: str) -> dict[str, Any]:
        found = [t for t in self.tests if fragment in t["name"]]
        assert len(found) == 1, f"{fragment!r}: {[t['name'] for t in self.tests]}\n{self.output}"
        return found[0]

    def attachment(self, item: dict[str, Any], name_start: str) -> str:
        found: list[dict[str, Any]] = [a for a in item.get("attachments", []) if a["name"].startswith(name_start)]
        assert found, f"no attachment {name_start!r} on {item['name']!r}: {[a['name'] for a in item['attachments']]}"
        source: str = found[0]["source"]
        return (self.folder / source).read_text(encoding="utf-8")


def behave(folder: Path, formatter: str, *args: str) -> Results:
    """behave with `formatter` writing into `folder`, the repository importable (not tests/: no test servers)."""
    done = behave_process.behave("--format", formatter, "--outfile", str(folder), *args, importable=[ROOT])
    return Results(folder, done.returncode, done.stdout + done.stderr)


def labels(test: dict[str, Any], name: str) -> list[str]:
    return sorted(label["value"] for label in test["labels"] if label["name"] == name)


# the fixes ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize("formatter", FORMATTERS)
def test_scenarios_inside_rules_are_reported(tmp_path: Path, formatter: str) -> None:
    run = behave(tmp_path, formatter, f"{PLAIN}/rules.feature")
    names = sorted(t["name"] for t in run.tests)
    assert len(names) == 5, names
    inside = run.test("inside the first rule, with a table")
    assert inside["status"] == "passed"
    assert inside["titlePath"][-2:] == ["Scenarios inside rules", "the first rule"]
    assert labels(inside, "story") == ["the first rule"]
    assert labels(run.test("an outline inside a rule, two"), "story") == ["Custom story"]
    assert [a["name"] for a in inside["steps"][1]["attachments"]] == ["table"]


@pytest.mark.parametrize("formatter", FORMATTERS)
def test_a_table_inside_a_rule_does_not_crash_the_formatter(tmp_path: Path, formatter: str) -> None:
    run = behave(tmp_path, formatter, f"{PLAIN}/rules.feature", "--name", "with a table")
    assert run.returncode == 0, run.output
    assert "Traceback" not in run.output


@pytest.mark.parametrize("formatter", FORMATTERS)
def test_an_outline_row_is_named_by_its_example_values(tmp_path: Path, formatter: str) -> None:
    run = behave(tmp_path, formatter, f"{PLAIN}/outline.feature")
    assert sorted(t["name"] for t in run.tests) == ["Adding numbers -- a=1, b=2", "Adding numbers -- a=3, b=4"]


def test_an_outline_row_does_not_repeat_the_values_its_name_shows(tmp_path: Path) -> None:
    run = behave(tmp_path, OURS, f"{PLAIN}/outline_named.feature")
    assert sorted(t["name"] for t in run.tests) == ["Adding 1 -- b=2", "Adding 3 -- b=4", "Adding 5 to 6"]


@pytest.mark.parametrize("formatter", FORMATTERS)
def test_an_outline_row_keeps_its_harness_after_its_example_values(tmp_path: Path, formatter: str) -> None:
    """`Adding numbers -- a=1, b=2 [client harness]`, not `-- @1.2  [client harness]`."""
    run = behave(tmp_path, formatter, "features/carried_values.feature", "-D", "mcpbdd.harness=client")
    outline = "A note is read back by the id the server gave it"
    assert sorted(t["name"] for t in run.tests if t["name"].startswith(outline)) == [
        f"{outline} -- title=Minutes, body=Approved [client harness]",
        f"{outline} -- title=Plan, body=Ship on Friday [client harness]",
    ]


@pytest.mark.parametrize("formatter", FORMATTERS)
def test_dynamic_title_severity_label_tag_and_parameter_are_honoured(tmp_path: Path, formatter: str) -> None:
    run = behave(tmp_path, formatter, f"{PLAIN}/dynamic.feature")
    test = run.tests[0]
    assert test["name"] == "A title set at run time"
    assert labels(test, "severity") == ["critical"]  # replaces the default "normal", not added to it
    assert labels(test, "owner") == ["team-notes"]
    assert "dynamic-tag" in labels(test, "tag")
    assert test["parameters"] == [{"name": "harness", "value": "context"}]


@pytest.mark.parametrize("formatter", FORMATTERS)
def test_a_failing_before_feature_reports_its_scenarios_as_broken(tmp_path: Path, formatter: str) -> None:
    run = behave(tmp_path, formatter, f"{PLAIN}/before_feature_fails.feature", f"{PLAIN}/dynamic.feature")
    first = run.test("first scenario that never runs")
    in_rule = run.test("second scenario that never runs")
    for test in (first, in_rule):
        assert test["status"] == "broken"
        assert (
            "HOOK-ERROR in before_feature: RuntimeError: the feature's set-up exploded"
            in (test["statusDetails"]["message"])
        )
        assert [s["status"] for s in test["steps"]] == ["skipped"]
    assert run.test("A title set at run time")["status"] == "passed"  # the next feature is unaffected


@pytest.mark.parametrize("formatter", FORMATTERS)
def test_a_failing_before_scenario_is_broken_with_its_reason(tmp_path: Path, formatter: str) -> None:
    run = behave(tmp_path, formatter, f"{PLAIN}/before_scenario_fails.feature")
    broken = run.test("the set-up of this scenario fails")
    assert broken["status"] == "broken"
    assert "the scenario's set-up exploded" in broken["statusDetails"]["message"]
    assert run.test("the next scenario still runs")["status"] == "passed"


@pytest.mark.parametrize("formatter", FORMATTERS)
def test_tags_become_labels(tmp_path: Path, formatter: str) -> None:
    run = behave(tmp_path, formatter, f"{PLAIN}/tags.feature")
    tagged = run.test("tags become labels")
    assert labels(tagged, "tool") == ["create_note", "get_note"]
    assert labels(tagged, "tenant") == ["acme"]  # a feature tag applies to every scenario
    assert labels(tagged, "epic") == ["Team notes"]
    assert labels(tagged, "owner") == ["alice"]
    assert labels(tagged, "severity") == ["critical"]
    assert [link["url"] for link in tagged["links"]] == ["NOTES-7"]
    assert labels(run.test("allure's own severity tags"), "severity") == ["blocker"]


@pytest.mark.parametrize("formatter", FORMATTERS)
def test_configured_secrets_appear_in_no_file(tmp_path: Path, formatter: str) -> None:
    run = behave(tmp_path, formatter, f"{PLAIN}/secrets.feature", "-D", f"mcpbdd.secrets={SECRET}")
    assert run.tests, run.output
    leaking = [p.name for p in tmp_path.iterdir() if SECRET in p.read_text(encoding="utf-8")]
    assert leaking == [], "step names, attachments and the failure message all mention the secret"
    test = run.tests[0]
    assert test["statusDetails"]["message"].startswith("AssertionError: the response leaked «redacted»")
    assert json.loads(run.attachment(test["steps"][1], "json answer")) == {"token": "«redacted»"}


# what a reviewer sees -------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def reviewer(tmp_path_factory: pytest.TempPathFactory) -> Results:
    """The failing reviewer scenarios on both harnesses, through `mcpbdd run`, with a configured secret."""
    folder = tmp_path_factory.mktemp("reviewer")
    results, junit = folder / "results", folder / "junit"
    command = [sys.executable, "-m", "mcpbdd.cli.main", "run", "--harness", "both", "--results", str(results)]
    command += ["--junit", str(junit), "-f", "progress", "-D", f"mcpbdd.secrets={SECRET}", MCP]
    done = warm_python.run(command, cwd=ROOT, capture_output=True, text=True, timeout=300)
    return Results(results, done.returncode, done.stdout + done.stderr)


def _step(test: dict[str, Any], start: str) -> dict[str, Any]:
    found: list[dict[str, Any]] = [s for s in test["steps"] if s["name"].startswith(start)]
    assert found, f"no step {start!r} in {[s['name'] for s in test['steps']]}"
    return found[0]


def test_every_reviewer_scenario_fails_on_both_harnesses(reviewer: Results) -> None:
    assert reviewer.returncode == 1, reviewer.output
    assert len(reviewer.tests) == 10
    assert {t["status"] for t in reviewer.tests} == {"failed"}
    harnesses = sorted(p["value"] for t in reviewer.tests for p in t["parameters"])
    assert harnesses == ["client"] * 5 + ["context"] * 5
    assert len({t["historyId"] for t in reviewer.tests}) == 10, "two harnesses are two tests, not retries"


def test_an_exchange_is_attached_to_the_step_that_made_it(reviewer: Results) -> None:
    test = reviewer.test("a failed assertion about a call [context harness]")
    step = _step(test, "When the client calls")
    exchange = json.loads(reviewer.attachment(step, "tools/call create_note → ok · alice · "))
    assert exchange["request"] == {
        "method": "tools/call",
        "target": "create_note",
        "arguments": {"title": "Groceries", "body": "Milk and «redacted»"},
    }
    assert exchange["channel"] == "ok" and exchange["duration_ms"] > 0
    assert exchange["result"]["structuredContent"]["title"] == "Groceries"
    trace = json.loads(reviewer.attachment(test, "MCP trace (1 exchanges)"))
    assert trace == [exchange]
    assert labels(test, "tool") == ["create_note", "notes"]  # what it called, and its @tool tag
    assert labels(test, "tenant") == ["acme"]
    assert labels(test, "harness") == ["context"]


def test_input_rounds_show_question_answer_and_round_number(reviewer: Results) -> None:
    for harness in ("context", "client"):
        test = reviewer.test(f"a conversation that took fewer rounds than expected [{harness} harness]")
        step = _step(test, "And the user accepts with:")
        answered = json.loads(reviewer.attachment(step, "input round 1: elicitation-1 → accept"))
        assert answered["call"] == "tools/call delete_note" and answered["round"] == 1
        (question,) = answered["questions"]
        assert question["kind"] == "elicitation"
        assert "Old plan" in question["message"]
        assert question["fields"]["required"] == ["confirm"]
        assert question["answer"] == {"action": "accept", "content": {"confirm": True}}
        assert [a["name"].split(" · ")[0] for a in step["attachments"][1:]] == [
            "input round 1: elicitation-1 → accept",
            "tools/call delete_note → ok",
        ]
        summary = json.loads(reviewer.attachment(test, "input rounds of tools/call delete_note"))
        assert [r["round"] for r in summary["rounds"]] == [1]
        assert summary["ended"].startswith("tools/call 'delete_note' as alice of tenant acme succeeded")


def test_a_failed_scenario_shows_what_changed_in_storage(reviewer: Results) -> None:
    test = reviewer.test("storage that changed when it should not have [client harness]")
    diff = reviewer.attachment(test, "storage changes of tenant acme")
    assert "+ notes/n-1 = {" in diff.splitlines()[1]
    assert '"title": "Launch plan"' in diff


def test_upstream_requests_are_attached_to_the_call_that_made_them(reviewer: Results) -> None:
    test = reviewer.test("an import whose document service answered something else [context harness]")
    step = _step(test, "When the client calls")
    names = [a["name"] for a in step["attachments"]]
    assert names[0].startswith("tools/call import_note → ok") and names[1] == "upstream requests (1)"
    (request,) = json.loads(reviewer.attachment(step, "upstream requests"))
    assert (request["method"], request["url"], request["answer"]) == (
        "GET",
        "https://docs.example.com/documents/d-42",
        "200",
    )
    assert json.loads(reviewer.attachment(test, "upstream requests (1)")) == [request]  # again on the failure


def test_what_the_server_sent_during_a_step_is_attached_to_that_step(reviewer: Results) -> None:
    """The journal's entries of the step (`World.hear`), in order of arrival, each naming its kind and call."""
    for harness in ("context", "client"):
        test = reviewer.test(f"an import that logged something else [{harness} harness]")
        step = _step(test, "When the client calls")
        names = [a["name"] for a in step["attachments"]]
        assert names[0].startswith("tools/call import_notebook → ok")
        assert names[1] == "notifications: 1 progress report, 3 log messages", names
        assert [a["source"].rsplit("-attachment.", 1)[1] for a in step["attachments"][1:]] == ["notifications.json"]
        heard = json.loads(reviewer.attachment(step, "notifications:"))
        assert {entry["call"] for entry in heard} == {"tools/call import_notebook"}
        assert {entry["caller"] for entry in heard} == {"alice of tenant acme"}
        assert all(entry["at"].endswith("Z") for entry in heard)
        assert [(e["kind"], e.get("progress"), e.get("message")) for e in heard if e["kind"] == "progress"] == [
            ("progress", 1, "Imported '«redacted»'")
        ]
        assert [(e["level"], e["data"]) for e in heard if e["kind"] == "log message"] == [
            ("info", "Importing 1 notes"),
            ("warning", "Note '«redacted»' has no body"),  # redaction applies to log data like every response
            ("info", "Imported 1 notes"),
        ]
        for other in test["steps"]:  # nothing was heard during the other steps: they attach no notifications
            if other is not step:
                assert not [a for a in other.get("attachments", []) if a["name"].startswith("notifications")]


def test_the_secret_is_redacted_from_every_exchange_and_result(reviewer: Results) -> None:
    files = list(reviewer.folder.iterdir())
    assert len(files) > 20
    assert [p.name for p in files if SECRET in p.read_text(encoding="utf-8")] == []


def test_junit_xml_is_written_per_harness(reviewer: Results) -> None:
    junit = reviewer.folder.parent / "junit"
    for harness in ("context", "client"):
        (report,) = (junit / harness).glob("TESTS-*.xml")
        text = report.read_text(encoding="utf-8")
        assert 'tests="5"' in text and 'failures="5"' in text, text[:400]


# whose mistake: failed (the server) or broken (the specification or its set-up) -------------------------------

VERDICTS = "tests/allure_cases/verdicts/features"


@pytest.fixture(scope="module")
def verdicts(tmp_path_factory: pytest.TempPathFactory) -> Results:
    """One scenario per kind of mistake, and two where the server is wrong, through the formatter."""
    return behave(tmp_path_factory.mktemp("verdicts"), OURS, "-D", "mcpbdd.harness=client", VERDICTS)


@pytest.mark.parametrize(
    ("scenario", "message"),
    [
        ("a malformed doc string", "verdicts.feature:16: the doc string is not valid JSON"),
        ("an unknown user", "verdicts.feature:20: no user 'mallory' in this scenario"),
        ("an unknown outcome word", "verdicts.feature:24: unknown outcome 'splendid'"),
        ("a bad setting", "verdicts.feature:27: unknown capabilities ['telepathy']"),
        ("a check that checks nothing", "The text to look for is empty"),
        (
            "a server that does not import",
            'The server "mcpbdd.examples.no_such_server:mcp" cannot start: cannot import',
        ),
        (
            "a server process that ends before its first answer",
            "cannot start: it ended before its first answer (MCPError: Connection closed); the server process "
            "exited with code 3; the end of its stderr:\nnotes server: no licence key in NOTES_LICENCE",
        ),
    ],
)
def test_a_mistake_in_the_specification_or_its_set_up_is_broken(verdicts: Results, scenario: str, message: str) -> None:
    test = verdicts.test(scenario)
    assert test["status"] == "broken", test["statusDetails"]
    assert message in test["statusDetails"]["message"]
    assert "mcpbdd/" not in test["statusDetails"].get("trace", ""), "the mistake is in the feature, not in mcpbdd"


def test_an_expectation_the_server_does_not_meet_is_failed_without_mcpbdd_frames(verdicts: Results) -> None:
    test = verdicts.test("the server does not do what the specification expects")
    assert test["status"] == "failed"
    assert test["statusDetails"]["message"].startswith("AssertionError: Expected the response to mention 'Bread'")
    assert "trace" not in test["statusDetails"], "mcpbdd's and behave's frames say nothing about the server"
    own = verdicts.test("a project's own step finds the server wrong")
    assert own["status"] == "failed"
    trace = own["statusDetails"]["trace"]
    assert "steps/own.py" in trace and "expect.mentions(context.mcp.last" in trace
    assert "mcpbdd/" not in trace and "behave/" not in trace
