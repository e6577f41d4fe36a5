"""Every file `mcpbdd run --harness all` writes tells the run's verdict, and the tools teams read them with accept it.

One real run of tests/parity_cases/features/every_verdict.feature over the parity matrix's passes: a
scenario passing everywhere, one failing on two passes and passing on the third, one whose after-hook
fails, one skipped as it runs on the 2025-11-25 pass, an undefined step, a broken one (a caller the
scenario does not know) and an Outline row. The files
are checked as written and fed to Cucumber's own tools (the messages' JSON schema, the HTML formatter
read in headless Chromium, the JUnit XML formatter) and to junitparser. Where Node.js or Chromium is
missing, those tests are skipped saying what to install.
"""

from __future__ import annotations

import json
import re
import shutil
import sys
from decimal import Decimal
from html import unescape
from pathlib import Path
from typing import Any
from xml.etree import ElementTree

import pytest
import warm_python
from processes import matrix_run_options, mcpbdd_run

ROOT = Path(__file__).resolve().parents[2]
FEATURE = "tests/parity_cases/features/every_verdict.feature"
PASSES = ("context", "client.auto", "client.legacy")
MID_CALL = "A mid-call question <note>, which only the old handshake can *ask* | answer"
HOOK = "A model answer given in advance that no question used"
SKIPPED = "Needs the 2026-07-28 protocol, skipped as it runs on the old handshake"
BROKEN = "A caller the scenario does not know"
JUNIT_XML_FORMATTER = "0.15.0"
needs_node = pytest.mark.skipif(
    shutil.which("node") is None, reason="needs Node.js and npm: apt-get install nodejs npm"
)
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
GITHUB_ACTIONS = {
    "GITHUB_ACTIONS": "true",
    "GITHUB_SERVER_URL": "https://github.com",
    "GITHUB_REPOSITORY": "example/notes",
    "GITHUB_RUN_ID": "4242",
    "GITHUB_RUN_NUMBER": "17",
    "GITHUB_SHA": "0123456789abcdef0123456789abcdef01234567",
    "GITHUB_REF_NAME": "main",
}
"""The run's environment as GitHub Actions sets it: the streams' `meta.ci` names the build."""


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("consumers")
    done = mcpbdd_run(
        *matrix_run_options(out),
        "--messages",
        str(out / "messages.ndjson"),
        "--cucumber-json",
        str(out / "cucumber.json"),
        "-f",
        "progress",
        FEATURE,
        env=GITHUB_ACTIONS,
    )
    assert done.returncode == 1, done.stdout + done.stderr
    (out / "stdout.txt").write_text(done.stdout)
    return out


def _stream(out: Path, name: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (out / f"messages.{name}.ndjson").read_text().splitlines()]


def _results(envelopes: list[dict[str, Any]]) -> dict[str, list[tuple[str, str, str]]]:
    """Each pickle's name: its steps' (kind, status, message), hooks included, in order."""
    pickles = {e["pickle"]["id"]: e["pickle"]["name"] for e in envelopes if "pickle" in e}
    cases = {e["testCase"]["id"]: e["testCase"] for e in envelopes if "testCase" in e}
    started = {
        e["testCaseStarted"]["id"]: e["testCaseStarted"]["testCaseId"] for e in envelopes if "testCaseStarted" in e
    }
    out: dict[str, list[tuple[str, str, str]]] = {}
    for e in envelopes:
        if "testStepFinished" in e:
            finished = e["testStepFinished"]
            case = cases[started[finished["testCaseStartedId"]]]
            step = next(s for s in case["testSteps"] if s["id"] == finished["testStepId"])
            result = finished["testStepResult"]
            kind = "hook" if step.get("hookId") else "step"
            out.setdefault(pickles[case["pickleId"]], []).append((kind, result["status"], result.get("message", "")))
    return out


def _named(results: dict[str, list[tuple[str, str, str]]], name: str) -> list[tuple[str, str, str]]:
    return next(steps for pickle, steps in results.items() if pickle.startswith(name + " ["))


def test_a_failed_after_hook_is_a_failed_hook_step_with_its_message(run: Path) -> None:
    for name in PASSES:
        steps = _named(_results(_stream(run, name)), HOOK)
        assert [s[1] for s in steps if s[0] == "step"] == ["PASSED"] * 5
        hook = [s for s in steps if s[0] == "hook"]
        assert len(hook) == 1 and hook[0][1] == "FAILED", (name, steps)
        assert "HOOK-ERROR in after_scenario" in hook[0][2] and "'Weekly groceries' was never used" in hook[0][2]
    report = json.loads((run / "cucumber.json").read_text())
    elements = [e for feature in report for e in feature["elements"] if e["name"].startswith(HOOK)]
    assert len(elements) == 3
    for element in elements:
        assert element["after"][0]["result"]["status"] == "failed"
        assert "'Weekly groceries' was never used" in element["after"][0]["result"]["error_message"]
    allure = [json.loads(p.read_text()) for p in (run / "allure").glob("*-result.json")]
    hooked = [r for r in allure if r["name"].startswith(HOOK)]
    assert len(hooked) == 3 and {r["status"] for r in hooked} == {"broken"}
    assert all("was never used" in r["statusDetails"]["message"] for r in hooked)


def test_the_console_allure_and_junit_count_failed_and_broken_alike(run: Path) -> None:
    """The mid-call question fails (an unmet expectation); the hook, the undefined step and the unknown caller break."""
    summary = (run / "stdout.txt").read_text()
    assert "mcpbdd: FAILED: 9 passed, 2 failed, 9 broken, 1 skipped in " in summary, summary
    assert "mcpbdd:   context harness: 3 passed, 1 failed, 3 broken, 0 skipped" in summary
    assert "mcpbdd:   client.legacy harness: 3 passed, 0 failed, 3 broken, 1 skipped" in summary
    allure = [json.loads(p.read_text()) for p in (run / "allure").glob("*-result.json")]
    statuses = sorted(r["status"] for r in allure if r["name"] != "Parity matrix")
    assert statuses == sorted(["passed"] * 9 + ["failed"] * 2 + ["broken"] * 9 + ["skipped"]), statuses
    junit = [case for path in (run / "junit").rglob("TESTS-*.xml") for case in ElementTree.parse(path).iter("testcase")]
    assert sum(case.find("failure") is not None for case in junit) == 2
    assert sum(case.find("error") is not None for case in junit) == 9


def test_each_pass_is_a_stream_of_its_own_with_its_own_verdicts(run: Path) -> None:
    assert not (run / "messages.ndjson").exists()
    verdicts = {}
    for name in PASSES:
        envelopes = _stream(run, name)
        pickles = [e["pickle"] for e in envelopes if "pickle" in e]
        assert len({tuple(p["astNodeIds"]) for p in pickles}) == len(pickles) == 7  # no scenario run twice
        verdicts[name] = [s[1] for s in _named(_results(envelopes), MID_CALL) if s[0] == "step"][-1]
    assert verdicts == {"context": "FAILED", "client.auto": "FAILED", "client.legacy": "PASSED"}


def test_pickles_are_named_as_the_gherkin_compiler_names_them_with_the_pass(run: Path) -> None:
    names = sorted(e["pickle"]["name"] for e in _stream(run, "client.legacy") if "pickle" in e)
    assert "Who the caller is, as alice [client harness, legacy]" in names
    assert not any("-- @" in name or "  " in name for name in names)
    report = json.loads((run / "cucumber.json").read_text())
    elements = [e["name"] for feature in report for e in feature["elements"]]
    assert len(elements) == len(set(elements)) == 21  # seven scenarios, three passes, no two named alike


def test_a_scenario_skipped_as_it_ran_is_present_and_skipped_with_its_reason(run: Path) -> None:
    reason = "needs the 2026-07-28 protocol"
    steps = _named(_results(_stream(run, "client.legacy")), SKIPPED)
    assert {s[1] for s in steps} == {"SKIPPED"} and all(reason in s[2] for s in steps)
    report = json.loads((run / "cucumber.json").read_text())
    element = next(e for f in report for e in f["elements"] if e["name"] == f"{SKIPPED} [client harness, legacy]")
    assert all(s["result"]["status"] == "skipped" and reason in s["result"]["error_message"] for s in element["steps"])
    suite = ElementTree.parse(next((run / "junit" / "client.legacy").glob("TESTS-*.xml"))).getroot()
    case = next(c for c in suite.iter("testcase") if c.get("name", "").startswith(SKIPPED))
    skipped = case.find("skipped")
    assert skipped is not None and reason in skipped.get("message", "")


def test_the_meta_names_the_ci_build(run: Path) -> None:
    for name in PASSES:
        (meta,) = [e["meta"] for e in _stream(run, name) if "meta" in e]
        assert meta["ci"] == {
            "name": "GitHub Actions",
            "url": "https://github.com/example/notes/actions/runs/4242",
            "buildNumber": "17",
            "git": {
                "remote": "https://github.com/example/notes.git",
                "revision": GITHUB_ACTIONS["GITHUB_SHA"],
                "branch": "main",
            },
        }
    from mcpbdd.reporting.ci_environment import ci_of

    token = {"GITLAB_CI": "true", "CI_REPOSITORY_URL": "https://gitlab-ci-token:s3cr3t@gitlab.example/a/b.git"}
    gitlab = ci_of({**token, "CI_COMMIT_SHA": "abc", "CI_JOB_ID": "9"})
    assert gitlab is not None and gitlab.git is not None and "s3cr3t" not in gitlab.git.remote
    assert ci_of({}) is None and ci_of({"CI": "false"}) is None


def test_step_definitions_are_relative_to_the_project_and_their_arguments_are_marked(run: Path) -> None:
    envelopes = _stream(run, "context")
    uris = {e["stepDefinition"]["sourceReference"]["uri"] for e in envelopes if "stepDefinition" in e}
    uris |= {e["hook"]["sourceReference"]["uri"] for e in envelopes if "hook" in e}
    assert uris and all(not uri.startswith(("/", "..")) for uri in uris), uris
    texts = {s["id"]: s["text"] for e in envelopes if "pickle" in e for s in e["pickle"]["steps"]}
    for case in (e["testCase"] for e in envelopes if "testCase" in e):
        for step in case["testSteps"]:
            if texts.get(step.get("pickleStepId")) == 'When the client calls "whoami"'.removeprefix("When "):
                (arguments,) = step["stepMatchArgumentsLists"]
                groups = [a["group"] for a in arguments["stepMatchArguments"]]
                assert groups == [{"start": 1, "value": "client", "children": []}] or any(
                    g["value"] == "whoami" and texts[step["pickleStepId"]][g["start"] :].startswith("whoami")
                    for g in groups
                ), groups


def test_junit_has_every_scenario_the_undefined_phrase_and_suite_times(run: Path) -> None:
    for name in PASSES:
        (path,) = (run / "junit" / name).glob("TESTS-*.xml")
        suite = ElementTree.parse(path).getroot()
        cases = list(suite.iter("testcase"))
        assert len(cases) == int(suite.get("tests", "0")) == 7, name
        # what the xunit junit-10.xsd (Jenkins) refuses in a test case: properties, a status, an exponent in a time
        assert all(case.find("properties") is None and "status" not in case.attrib for case in cases)
        times = [suite.get("time"), *(case.get("time") for case in cases)]
        assert all(re.fullmatch(r"\d+\.\d{3}", time or "") for time in times), times
        assert Decimal(suite.get("time", "")) >= sum(Decimal(case.get("time", "")) for case in cases)
        undefined = next(c for c in cases if c.get("name", "").startswith("A misspelt phrase")).find("error")
        assert undefined is not None and undefined.get("type") == "undefined"
        assert "'the call succeed'" in undefined.get("message", "")
        assert "did you mean: Then the call succeeds" in undefined.get("message", "")  # the nearest phrase
        hook = next(c for c in cases if c.get("name", "").startswith(HOOK)).find("error")
        assert hook is not None and "'Weekly groceries' was never used" in hook.get("message", "")
        assert "harness: " in (cases[0].findtext("system-out") or "")
        broken = next(c for c in cases if c.get("name", "").startswith(BROKEN))
        error = broken.find("error")
        assert broken.find("failure") is None and error is not None and "no user 'mallory'" in error.get("message", "")
    skipped = ElementTree.parse(next((run / "junit" / "client.legacy").glob("TESTS-*.xml"))).getroot()
    assert skipped.get("skipped") == "1"


def test_junitparser_reads_every_case_with_its_result(run: Path) -> None:
    junitparser = pytest.importorskip("junitparser", reason="needs junitparser: pip install -e '.[dev]'")
    for name in PASSES:
        (path,) = (run / "junit" / name).glob("TESTS-*.xml")
        xml = junitparser.JUnitXml.fromfile(str(path))
        cases = [case for suite in ([xml] if isinstance(xml, junitparser.TestSuite) else xml) for case in suite]
        assert len(cases) == 7
        results = {case.name.split(" [")[0]: [type(r).__name__ for r in case.result] for case in cases}
        assert results[HOOK] == results["A misspelt phrase"] == results[BROKEN] == ["Error"]
        if name == "client.legacy":
            assert results[SKIPPED] == ["Skipped"] and results[MID_CALL] == []
        else:
            assert results[MID_CALL] == ["Failure"]


# Cucumber's own tools ------------------------------------------------------------------------------------


@needs_node
def test_every_stream_is_valid_against_the_official_schema(run: Path) -> None:
    from jsonschema import Draft202012Validator

    from mcpbdd.reporting.cucumber_html import messages_schema

    validator = Draft202012Validator(json.loads(messages_schema(quiet=True).read_text()))
    for name in PASSES:
        problems = [(next(iter(e)), x.message) for e in _stream(run, name) for x in validator.iter_errors(e)]
        assert problems == [], name


_JUNIT_SCRIPT = """
import { readFileSync, writeFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
const [formatter, input, output] = process.argv.slice(2);
const { JUnitXmlPrinter } = await import(pathToFileURL(formatter).href);
let xml = '';
const printer = new JUnitXmlPrinter({}, (text) => { xml += text; });
for (const line of readFileSync(input, 'utf8').split('\\n')) if (line.trim()) printer.update(JSON.parse(line));
writeFileSync(output, xml);
"""


@needs_node
def test_the_cucumber_junit_xml_formatter_writes_each_pass_with_distinct_names(run: Path, tmp_path: Path) -> None:
    from mcpbdd.reporting.cucumber_html import MESSAGES_VERSION
    from mcpbdd.reporting.npm import cache_root, install

    home = cache_root() / "cucumber-junit-xml" / f"{JUNIT_XML_FORMATTER}-{MESSAGES_VERSION}"
    package = home / "node_modules" / "@cucumber" / "junit-xml-formatter"
    lock = Path(__file__).parents[1] / "npm_locks" / "cucumber-junit-xml"  # pins both versions, as mcpbdd's do
    assert json.loads((lock / "package.json").read_text())["dependencies"] == {
        "@cucumber/junit-xml-formatter": JUNIT_XML_FORMATTER,
        "@cucumber/messages": MESSAGES_VERSION,
    }
    install("npm", home, lock, package / "dist" / "index.js", quiet=True)
    script = tmp_path / "junit.mjs"
    script.write_text(_JUNIT_SCRIPT)
    for name in PASSES:
        output = tmp_path / f"{name}.xml"
        done = warm_python.run(
            [
                "node",
                str(script),
                str(package / "dist" / "index.js"),
                str(run / f"messages.{name}.ndjson"),
                str(output),
            ],
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert done.returncode == 0, done.stderr
        cases = list(ElementTree.parse(output).getroot().iter("testcase"))
        keys = [(c.get("classname"), c.get("name")) for c in cases]
        assert len(keys) == len(set(keys)) == 7, keys
        mid_call = next(c for c in cases if c.get("name", "").startswith("A mid-call question"))
        hook = next(c for c in cases if c.get("name", "").startswith(HOOK))
        failure = hook.find("failure")
        assert failure is not None and "was never used" in failure.get("message", "")
        if name == "client.legacy":
            assert mid_call.find("failure") is None
            skipped = next(c for c in cases if c.get("name", "").startswith(SKIPPED))
            assert skipped.find("skipped") is not None
        else:
            assert mid_call.find("failure") is not None


def _page_text(page: Path) -> str:
    assert CHROMIUM is not None
    done = warm_python.run(
        [
            CHROMIUM,
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--virtual-time-budget=10000",
            "--dump-dom",
            page.as_uri(),
        ],
        capture_output=True,
        text=True,
        timeout=180,
    )
    assert done.returncode == 0, done.stderr
    text = re.sub(r"<(script|style)\b.*?</\1>", " ", done.stdout, flags=re.S)
    return re.sub(r"\s+", " ", unescape(re.sub(r"<[^>]+>", " ", text)))


@needs_node
@pytest.mark.skipif(CHROMIUM is None, reason="needs Chromium to read the rendered page: apt-get install chromium")
def test_the_html_formatter_shows_each_pass_with_its_own_verdict(run: Path, tmp_path: Path) -> None:
    command = ["report", "--messages", str(run / "messages.ndjson"), "-o", str(tmp_path)]
    done = warm_python.run(
        [sys.executable, "-m", "mcpbdd.cli.main", *command], cwd=ROOT, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stdout + done.stderr
    index = (tmp_path / "cucumber.html").read_text()
    assert all(f'href="cucumber.{name}.html"' in index for name in PASSES)
    auto = _page_text(tmp_path / "cucumber.client.auto.html")  # the second pass: its failure is on its page
    assert "Expected the server to ask for input" in auto and "was never used" in auto
    legacy = _page_text(tmp_path / "cucumber.client.legacy.html")
    assert "Expected the server to ask for input" not in legacy and "needs the 2026-07-28 protocol" in legacy
