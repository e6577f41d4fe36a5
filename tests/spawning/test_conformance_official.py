"""`mcpbdd conformance --official`: the official suite beside the pack, its checks as JUnit, skipped (never passed)
where it cannot run, and agreeing with the pack where both check one rule (SEP-2164 on the example server);
at a URL, at an `http:` command, and over stdio through the loopback bridge (what the bridge cannot carry
not applicable, never passed; a broken server still failing through it).

The example server at its URL is run once (`url_run`): the pack's checks that have a counterpart in the suite
beside the whole suite, which the checks of its JUnit and summary, the agreement of the pack and the suite
(`official_agreement`, as for the reference servers) and the other transports' comparisons all read.

The runs need npm (the suite and a Node >= 22 install into mcpbdd's cache on first use).
"""

from __future__ import annotations

import contextlib
import os
import shutil
import socket
import subprocess
import sys
import time
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path

import pytest
import warm_python
from official_agreement import Run, assert_agreement

from mcpbdd.conformance.agreement import COUNTERPARTS
from mcpbdd.harness.processes.ports import free_port

PYTHON = sys.executable
TESTS = Path(__file__).parents[1]
NEEDS_NPM = pytest.mark.skipif(
    shutil.which("npm") is None, reason="needs npm (the official suite installs from the npm registry)"
)
NOT_OVER_STDIO = "not applicable over stdio"


def _conformance(folder: Path, *args: str, path: str | None = None) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "GITHUB_STEP_SUMMARY"}
    env["PYTHONPATH"] = os.pathsep.join([str(TESTS), os.environ.get("PYTHONPATH", "")])
    if path is not None:
        env["PATH"] = path
    command = [PYTHON, "-m", "mcpbdd.cli.main", "conformance", *args]
    return warm_python.run(command, cwd=folder, env=env, capture_output=True, text=True, timeout=600)


def test_without_npm_the_official_suite_cannot_run_and_the_command_says_so(tmp_path: Path) -> None:
    shell = tmp_path / "shell"  # a server process starts through sh: only it, beside the interpreter, and no npm
    shell.mkdir()
    (shell / "sh").symlink_to(shutil.which("sh") or "/bin/sh")
    env_path = os.pathsep.join([os.path.dirname(PYTHON), str(shell)])
    done = _conformance(tmp_path, "mcpbdd.examples.notes:mcp", "--official", "--only", "tool-names", path=env_path)
    assert done.returncode == 2, done.stdout + done.stderr  # asked for and not run: never exit 0
    assert "mcpbdd conformance: the official suite could not run: no npm on the PATH" in done.stderr
    assert "the official suite was skipped, not passed: no npm on the PATH: install Node.js >= 22" in done.stdout
    assert "Skipped, not passed: no npm on the PATH" in (tmp_path / "reports" / "conformance.md").read_text()


@contextlib.contextmanager
def _notes_at_a_url() -> Iterator[str]:
    port = free_port()
    server = subprocess.Popen(
        [PYTHON, "-m", "mcpbdd.examples.notes", "--http", f"127.0.0.1:{port}"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                time.sleep(0.1)
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        server.terminate()
        server.wait(timeout=10)


@pytest.fixture
def notes_url() -> Iterator[str]:
    with _notes_at_a_url() as url:
        yield url


@NEEDS_NPM
def test_at_a_url_the_official_checks_are_junit_tests_agreeing_with_the_pack(url_run: Run) -> None:
    junit = url_run.folder / "reports" / "junit" / "official" / "TESTS-official.xml"
    cases = ET.parse(junit).getroot().iter("testcase")
    verdicts = {case.get("name"): case.find("failure") is None for case in cases}
    assert verdicts["sep-2164-error-code"] and verdicts["sep-2164-data-uri"]  # the official suite: -32602 with data.uri
    summary = (url_run.folder / "reports" / "conformance.md").read_text()
    assert "| unknown-resource | [resources](" in summary and "❌" not in summary  # the pack: the same rule, passed
    assert "| sep-2164-resource-not-found | sep-2164-error-code | SUCCESS |" in summary


@NEEDS_NPM
def test_an_expected_official_failure_that_now_passes_fails_the_run(tmp_path: Path, notes_url: str) -> None:
    """An `official:` entry whose check ran and passed is stale, like a pack entry: exit 1, saying to remove it."""
    baseline = tmp_path / "expected.yaml"
    baseline.write_text("server:\n  - official:sep-2164-error-code\n", encoding="utf-8")
    done = _conformance(
        tmp_path, notes_url, "--official", "--only", "unknown-resource", "--expected-failures", str(baseline)
    )
    assert done.returncode == 1, done.stdout + done.stderr
    assert "the expected failure official:sep-2164-error-code now passes: remove it from the file" in done.stdout


Verdicts = list[tuple[str, str, str, str]]
"""Each official check as (scenario, check, passed | failed | skipped, the skip's or failure's message)."""


def _official_verdicts(folder: Path) -> Verdicts:
    root = ET.parse(folder / "reports" / "junit" / "official" / "TESTS-official.xml").getroot()
    verdicts = []
    for case in root.iter("testcase"):
        scenario = str(case.get("classname")).removeprefix("official.")
        failure, skipped = case.find("failure"), case.find("skipped")
        if failure is not None:
            verdicts.append((scenario, str(case.get("name")), "failed", str(failure.get("message"))))
        elif skipped is not None:
            verdicts.append((scenario, str(case.get("name")), "skipped", str(skipped.get("message"))))
        else:
            verdicts.append((scenario, str(case.get("name")), "passed", ""))
    return verdicts


@pytest.fixture(scope="module")
def url_run(tmp_path_factory: pytest.TempPathFactory) -> Run:
    """One run at the example server's URL, the official suite beside the pack's checks that have a counterpart in
    it (`COUNTERPARTS`): what the pack and the suite say of one rule (SEP-2164, and every rule they share), and what
    the other transports are compared with (the official suite runs whole whatever `--only` chooses of the pack)."""
    folder = tmp_path_factory.mktemp("at-a-url")
    with _notes_at_a_url() as url:
        started = datetime.now()
        done = _conformance(folder, url, "--official", "--only", ",".join(COUNTERPARTS))
    assert done.returncode == 0, done.stdout + done.stderr
    return Run(folder, done, started)


@pytest.fixture(scope="module")
def at_a_url(url_run: Run) -> Verdicts:
    """The example server's official verdicts at a URL."""
    return _official_verdicts(url_run.folder)


def test_at_a_url_the_pack_and_the_official_suite_agree_where_they_check_one_rule(url_run: Run) -> None:
    """The example speaks 2026-07-28: the suite keeps every verdict, and agrees with the pack where both check one
    rule (the assertions the reference servers' runs meet too: `official_agreement.assert_agreement`). Not skipped
    without npm, as the reference servers' agreement is not: the agreement is a claim of the product's."""
    assert_agreement("example at its URL", url_run)


def _passed(verdicts: Verdicts) -> set[tuple[str, str]]:
    return {(scenario, check) for scenario, check, status, _ in verdicts if status == "passed"}


@NEEDS_NPM
def test_an_http_command_gets_the_verdicts_a_url_gets(tmp_path: Path, at_a_url: Verdicts) -> None:
    target = f"http: {PYTHON} -m mcpbdd.examples.notes --http 127.0.0.1:{{port}}"
    done = _conformance(tmp_path, target, "--official", "--only", "tool-names")
    assert done.returncode == 0, done.stdout + done.stderr
    verdicts = _official_verdicts(tmp_path)
    assert sorted(verdicts) == sorted(at_a_url)
    assert {"http-header-validation", "dns-rebinding-protection", "server-stateless"} <= {v[0] for v in verdicts}
    assert not any(NOT_OVER_STDIO in message for *_, message in verdicts)


@NEEDS_NPM
@pytest.mark.parametrize(
    "target", [f"stdio: {PYTHON} -m mcpbdd.examples.notes", "mcpbdd.examples.notes:mcp"], ids=["stdio", "module"]
)
def test_over_stdio_the_bridge_passes_what_a_url_passes_and_the_http_layer_is_not_applicable(
    tmp_path: Path, at_a_url: Verdicts, target: str
) -> None:
    done = _conformance(tmp_path, target, "--official", "--only", "tool-names")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "official check(s) not applicable over stdio, not passed" in done.stdout
    verdicts = _official_verdicts(tmp_path)
    assert not [v for v in verdicts if v[2] == "failed"]
    not_applicable = {(scenario, check) for scenario, check, status, message in verdicts if NOT_OVER_STDIO in message}
    assert ("http-header-validation", "http-header-validation") in not_applicable
    assert ("dns-rebinding-protection", "dns-rebinding-protection") in not_applicable
    assert ("server-stateless", "sep-2575-http-server-meta-invalid-400") in not_applicable
    assert all(status == "skipped" for _, _, status, message in verdicts if NOT_OVER_STDIO in message)
    # Every check passed at the URL passes over stdio too, unless it checks the HTTP layer (then said so).
    whole = {scenario for scenario, check in not_applicable if scenario == check}  # a scenario not run at all
    assert {(s, c) for s, c in _passed(at_a_url) - _passed(verdicts) if s not in whole} <= not_applicable
    assert {("tools-list", "tools-list"), ("sep-2164-resource-not-found", "sep-2164-data-uri")} <= _passed(verdicts)
    assert ("server-stateless", "sep-2575-server-sends-subscription-ack") in _passed(verdicts)  # a listen stream
    assert _passed(verdicts) <= _passed(at_a_url)
    summary = (tmp_path / "reports" / "conformance.md").read_text()
    assert (
        "| http-header-validation | http-header-validation | SKIPPED (not applicable over stdio: it checks" in summary
    )


@NEEDS_NPM
def test_a_broken_stdio_server_still_fails_through_the_bridge(tmp_path: Path) -> None:
    """The bridge relays: an empty `contents` for an unknown resource (a MUST NOT) reaches the suite as written.

    The server speaks 2026-07-28 (the pack's caching-hints ran on it), so the failure of a 2026-07-28-only scenario
    (sep-2164-resource-not-found) is the server's and fails the run: only a 2025-11-25 server is spared them.
    """
    done = _conformance(
        tmp_path, f"stdio: {PYTHON} {TESTS / 'bridge_servers.py'}", "--official", "--only", "tool-names,caching-hints"
    )
    assert done.returncode == 1, done.stdout + done.stderr
    assert "the server's era is unknown" not in done.stdout and "speaks only 2025-11-25" not in done.stdout
    assert "the official check sep-2164-no-empty-contents failed: Server returned a result with an empty" in done.stdout
    failed = [(scenario, check) for scenario, check, status, _ in _official_verdicts(tmp_path) if status == "failed"]
    # The suite fails the empty answer, and the data.uri of the error that should have come instead.
    assert failed == [
        ("sep-2164-resource-not-found", "sep-2164-no-empty-contents"),
        ("sep-2164-resource-not-found", "sep-2164-data-uri"),
    ]
