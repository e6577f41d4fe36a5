"""`mcpbdd conformance` over stdio against the reference servers: it finishes on each, and with each server's
expected-failures file (tests/reference/expected-failures/) it exits 0, its summary listing those failures.

Where the pack and the official suite check one rule (`mcpbdd.conformance.agreement.COUNTERPARTS`) their verdicts
agree: on each reference server over stdio (the suite through mcpbdd's loopback bridge), on server-everything over
its own streamable HTTP transport, and on the example server over HTTP. With `--official` and its baseline each
exits 0: on the npm servers, which speak only 2025-11-25, the suite's 2026-07-28-only scenarios are not applicable,
saying why; the 2026-07-28 servers keep every verdict the suite gives them.

The servers are pinned and installed into a cache on first use (tests/reference_servers.py): npm's two with npm,
PyPI's two in virtual environments of their own. A failure found here is either the server's (then it is listed in
its expected-failures file, with why) or the pack's (then it is fixed, with a test in the fast tier).

Over stdio each reference server is run once (`stdio_runs`): the whole pack over both eras with `--official` and the
server's expected-failures file, which both the pack's test and the agreement test read (the suite runs whole
whatever `--only` chooses of the pack, and the pack's summary and count are its own beside the suite's). Only the
two URL cases of the agreement start runs of their own.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import xml.etree.ElementTree as ET
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path

import pytest
import yaml
from reference_servers import SERVERS, command, stdio_command

from mcpbdd.conformance.agreement import COUNTERPARTS, disagreements, pack_verdicts
from mcpbdd.conformance.baseline import OFFICIAL, load_baseline
from mcpbdd.conformance.eras import NOT_THIS_ERA
from mcpbdd.conformance.summary import Summary, read_verdicts

ROOT = Path(__file__).resolve().parents[2]
BASELINES = ROOT / "tests" / "reference" / "expected-failures"
ERAS = ("2026-07-28", "2025-11-25")


def _conformance(folder: Path, target: str, *args: str, timeout: int = 300) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "GITHUB_STEP_SUMMARY"}
    argv = [sys.executable, "-m", "mcpbdd.cli.main", "conformance", target, *args]
    return subprocess.run(argv, cwd=folder, env=env, capture_output=True, text=True, timeout=timeout)


def _git_repository(folder: Path) -> Path:
    """A repository of one commit for mcp-server-git to serve (its tools are confined to it)."""
    repository = folder / "repo"
    subprocess.run(["git", "init", "-q", str(repository)], check=True, timeout=60)
    (repository / "README.md").write_text("served by mcp-server-git for mcpbdd's conformance test\n")
    subprocess.run(["git", "-C", str(repository), "add", "README.md"], check=True, timeout=60)
    identity = ["-c", "user.name=mcpbdd", "-c", "user.email=mcpbdd@example.invalid"]
    subprocess.run(["git", "-C", str(repository), *identity, "commit", "-qm", "init"], check=True, timeout=60)
    return repository


TARGETS: dict[str, Callable[[Path], str]] = {
    "server-everything": lambda folder: stdio_command(SERVERS["server-everything"], "stdio"),
    # its knowledge graph goes to a file of the test's, not beside the package in the cache
    "server-memory": lambda folder: stdio_command(
        SERVERS["server-memory"], env={"MEMORY_FILE_PATH": str(folder / "memory.jsonl")}
    ),
    "mcp-server-time": lambda folder: stdio_command(SERVERS["mcp-server-time"], "--local-timezone", "UTC"),
    "mcp-server-git": lambda folder: stdio_command(
        SERVERS["mcp-server-git"], "--repository", str(_git_repository(folder))
    ),
}


def _expected(name: str) -> list[str]:
    """The pack's entries of the server's baseline (its `official:` ones are the suite's, run only with --official)."""
    path = BASELINES / f"{name}.yaml"
    entries = list(yaml.safe_load(path.read_text(encoding="utf-8"))["server"]) if path.is_file() else []
    return [entry for entry in entries if not entry.startswith(OFFICIAL)]


def _options(name: str) -> list[str]:
    """`--expected-failures` with the server's baseline, when it has one."""
    baseline = BASELINES / f"{name}.yaml"
    return ["--expected-failures", str(baseline)] if baseline.is_file() else []


@dataclass(frozen=True)
class Run:
    """One `mcpbdd conformance` run: the folder it ran in (its reports), what it said, and when it started (local
    time, as the JUnit files' timestamps)."""

    folder: Path
    done: subprocess.CompletedProcess[str]
    started: datetime


class StdioRuns:
    """Each reference server's one run over stdio, started by the first test that asks for it: the whole pack over
    both eras, `--official`, and the server's expected-failures file."""

    def __init__(self, factory: pytest.TempPathFactory) -> None:
        self._factory = factory
        self._runs: dict[str, Run] = {}

    def of(self, name: str) -> Run:
        if name not in self._runs:
            folder = self._factory.mktemp(name)
            started = datetime.now()
            done = _conformance(folder, TARGETS[name](folder), "--official", *_options(name), timeout=540)
            self._runs[name] = Run(folder, done, started)
        return self._runs[name]


@pytest.fixture(scope="module")
def stdio_runs(tmp_path_factory: pytest.TempPathFactory) -> StdioRuns:
    """The reference servers' runs over stdio, one per server, read by the pack's test and the agreement test."""
    return StdioRuns(tmp_path_factory)


def _pack_took(run: Run) -> float:
    """Seconds from the command's start to the end of the pack's last era, as its JUnit files say (the eras run side
    by side; the official suite, which the shared run adds after them, is not counted)."""
    ends = []
    for era in ("client.auto", "client.legacy"):
        suite = ET.parse(run.folder / "reports" / "junit" / era / "TESTS-conformance.xml").getroot()
        ends.append(
            datetime.fromisoformat(str(suite.get("timestamp"))) + timedelta(seconds=float(str(suite.get("time"))))
        )
    return (max(ends) - run.started).total_seconds()


@pytest.mark.timeout(600)  # the first reader starts the server's shared run: the pack and the official suite
@pytest.mark.parametrize("name", sorted(TARGETS))
def test_the_pack_finishes_on_each_reference_server_with_its_expected_failures(
    name: str, stdio_runs: StdioRuns
) -> None:
    """Reads the server's shared run over stdio (`stdio_runs`): the pack's summary and count; its time is the pack's
    time from the command's start to its last era's end (its JUnit files), the official suite after it left out."""
    run = stdio_runs.of(name)
    done = run.done
    assert done.returncode == 0, done.stdout + done.stderr
    summary = (run.folder / "reports" / "conformance.md").read_text(encoding="utf-8")
    assert "❌" not in summary, summary
    expected = _expected(name)
    for entry in expected:
        for era in ERAS:
            assert f"### {entry} ({era}): expected failure" in summary, summary
    if expected:
        assert f"{2 * len(expected)} expected failure" in summary
        assert f"mcpbdd conformance: {2 * len(expected)} expected failure(s)" in done.stdout
    took = _pack_took(run)
    assert took < 120, f"the pack took {took:.0f} s on {name}"


def test_without_its_expected_failures_the_pack_fails_on_server_everything(tmp_path: Path) -> None:
    """The baseline is what turns the failure into an expected one: without it the run exits 1, naming it."""
    done = _conformance(tmp_path, TARGETS["server-everything"](tmp_path), "--only", "unknown-resource")
    assert done.returncode == 1, done.stdout + done.stderr
    summary = (tmp_path / "reports" / "conformance.md").read_text(encoding="utf-8")
    assert "### unknown-resource (2025-11-25): failed" in summary
    assert "the error's data is None, not {'uri':" in summary


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _serve(argv: list[str], port: int, env: dict[str, str]) -> Iterator[str]:
    server = subprocess.Popen(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                assert server.poll() is None, f"{argv} exited with {server.returncode}"
                time.sleep(0.1)
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        server.terminate()
        server.wait(timeout=10)


AGREEMENT = [*sorted(TARGETS), "server-everything at its URL", "example at its URL"]
"""Where the pack and the suite are compared: each reference server over stdio (the suite through mcpbdd's loopback
bridge), server-everything over its own streamable HTTP transport (`PORT`), and the example server over HTTP."""


@pytest.fixture(params=AGREEMENT)
def served(request: pytest.FixtureRequest, tmp_path: Path, stdio_runs: StdioRuns) -> Iterator[tuple[str, Run]]:
    """A case of `AGREEMENT` and its run with `--official`: a reference server's shared run over stdio, or, at a
    URL (the server started here), a run of its own of the pack's `COUNTERPARTS` beside the whole suite."""
    case = str(request.param)
    if case in TARGETS:
        yield case, stdio_runs.of(case)
        return
    port = _free_port()
    if case.startswith("server-everything"):
        argv = command(SERVERS["server-everything"], "streamableHttp")
        env = {**os.environ, "PORT": str(port)}
    else:
        argv = [sys.executable, "-m", "mcpbdd.examples.notes", "--http", f"127.0.0.1:{port}"]
        env = dict(os.environ)
    name = case.split(" at ")[0]
    for url in _serve(argv, port, env):
        started = datetime.now()
        done = _conformance(tmp_path, url, "--official", "--only", ",".join(COUNTERPARTS), *_options(name))
        yield case, Run(tmp_path, done, started)


def _official(junit: Path) -> list[dict[str, object]]:
    """The suite's checks as `mcpbdd conformance --official` wrote them (JUnit), with the suite's statuses."""
    found: list[dict[str, object]] = []
    for case in ET.parse(junit / "official" / "TESTS-official.xml").getroot().iter("testcase"):
        status, reason = "SUCCESS", ""
        skipped = case.find("skipped")
        if case.find("failure") is not None:
            status = "FAILURE"
        elif skipped is not None:
            status, reason = "SKIPPED", str(skipped.get("message"))
        elif any(line.startswith("warning:") for line in (case.findtext("system-out") or "").splitlines()):
            # the writer puts the check's spec references first, then the suite's warning
            status = "WARNING"
        scenario = (case.get("classname") or "").removeprefix("official.")
        found.append({"scenario": scenario, "id": case.get("name"), "status": status, "reason": reason})
    return found


@pytest.mark.timeout(600)  # a stdio case read first (e.g. with -k) starts the server's shared run
def test_the_pack_and_the_official_suite_agree_where_they_check_one_rule(served: tuple[str, Run]) -> None:
    """Reads the case's run (`served`): a reference server's shared run over stdio, or its own run at a URL."""
    case, run = served
    done, folder = run.done, run.folder
    name = case.split(" at ")[0]
    baseline = BASELINES / f"{name}.yaml"
    options = _options(name)
    npm = name.startswith("server-")  # 2025-11-25 servers: the suite's 2026-07-28 scenarios do not apply to them
    # At its URL server-everything answers a foreign Host with 200: dns-rebinding-protection, a 2025-11-25 rule too
    # ("Servers MUST validate the Origin header"), is a genuine failure of the server's, which its baseline lists
    # (official:localhost-host-rebinding-rejected): reported as an expected failure, not failing the run.
    rebinding = case == "server-everything at its URL"
    assert done.returncode == 0, done.stdout + done.stderr
    summary = Summary.of(read_verdicts(folder / "reports" / "junit"), load_baseline(baseline if options else None))
    assert not summary.unexpected, summary.unexpected
    pack = pack_verdicts(summary.verdicts)
    official = _official(folder / "reports" / "junit")
    assert disagreements(pack, official) == []
    assert "disagree" not in done.stdout
    statuses = {(check["scenario"], check["id"]): check["status"] for check in official}
    reasons = {(check["scenario"], check["id"]): check["reason"] for check in official}
    assert statuses[("tools-list", "tools-name-format")] == "SUCCESS" and set(pack["tool-names"]) == {"passed"}
    data_uri = ("sep-2164-resource-not-found", "sep-2164-data-uri")
    caching = ("caching", "sep-2549-tools-list-caching-hints")
    era_bound = [(check["scenario"], check["id"]) for check in official if check["reason"] == NOT_THIS_ERA]
    if npm:
        # a 2025-11-25 server: the suite's 2026-07-28-only scenarios (its own list says which) are not applicable,
        # saying why, where they failed it (no caching hints; at its URL -32000 "Server not initialized") or warned
        assert statuses[caching] == "SKIPPED" and reasons[caching] == NOT_THIS_ERA
        assert set(pack["caching-hints"]) == {"not applicable"}
        assert statuses[data_uri] == "SKIPPED" and reasons[data_uri] == NOT_THIS_ERA
        assert set(pack["unknown-resource"]) == {"expected failure"}  # the pack's rule applies on both eras
        scenarios = {scenario for scenario, _ in era_bound}
        assert {"caching", "sep-2164-resource-not-found", "server-stateless"} <= scenarios
        assert ("http-header-validation" in scenarios) == (" at " in case)  # over stdio: the bridge's, said first
        failed = [key for key, status in statuses.items() if status == "FAILURE"]
        expected = [(check["scenario"], check["id"]) for check in official if "expected: the" in str(check["reason"])]
        assert failed == [] and expected == (
            [("dns-rebinding-protection", "localhost-host-rebinding-rejected")] if rebinding else []
        )
        assert ("1 official check(s) failed as the expected-failures file says" in done.stdout) == rebinding
        assert f"{len(era_bound)} official check(s) not applicable, not passed: the server speaks only 2025-11-25" in (
            done.stdout
        )
        markdown = (folder / "reports" / "conformance.md").read_text(encoding="utf-8")
        assert f"| caching | sep-2549-tools-list-caching-hints | SKIPPED ({NOT_THIS_ERA}) (the suite said FAILURE)" in (
            markdown
        )
    else:
        # a 2026-07-28 server keeps every verdict the suite gave
        assert era_bound == [] and "2025-11-25; this scenario" not in done.stdout
        assert statuses[data_uri] == "SUCCESS" and set(pack["unknown-resource"]) == {"passed"}
        assert statuses[caching] == "SUCCESS" and pack["caching-hints"] == ["passed", "not applicable"]
