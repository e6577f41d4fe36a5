"""`mcpbdd conformance` over stdio against the reference servers: it finishes on each, and with each server's
expected-failures file (tests/reference/expected-failures/) it exits 0, its summary listing those failures.

Where the pack and the official suite check one rule (`mcpbdd.conformance.agreement.COUNTERPARTS`) their verdicts
agree: on each reference server over stdio (the suite through mcpbdd's loopback bridge), on server-everything over
its own streamable HTTP transport, and on the example server over HTTP (read in test_conformance_official.py, from
the one run at the example's URL that module's tests share: the assertions are tests/official_agreement.py's). With
`--official` and its baseline each
exits 0: on the npm servers, which speak only 2025-11-25, the suite's 2026-07-28-only scenarios are not applicable,
saying why; the 2026-07-28 servers keep every verdict the suite gives them.

The servers are pinned and installed into a cache on first use (tests/reference_servers.py): npm's two with npm,
PyPI's two in virtual environments of their own. A failure found here is either the server's (then it is listed in
its expected-failures file, with why) or the pack's (then it is fixed, with a test in the fast tier).

Over stdio each reference server is run once (`stdio_runs`): the whole pack over both eras with `--official` and the
server's expected-failures file, which both the pack's test and the agreement test read (the suite runs whole
whatever `--only` chooses of the pack, and the pack's summary and count are its own beside the suite's). Only
server-everything's URL case of the agreement starts a run of its own.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import xml.etree.ElementTree as ET
from collections.abc import Callable, Iterator
from datetime import datetime, timedelta
from pathlib import Path

import pytest
import warm_python
from official_agreement import Run, assert_agreement, baseline_options, expected_entries
from reference_servers import SERVERS, command, stdio_command

from mcpbdd.conformance.agreement import COUNTERPARTS
from mcpbdd.harness.processes.ports import free_port

ERAS = ("2026-07-28", "2025-11-25")


def _conformance(folder: Path, target: str, *args: str, timeout: int = 300) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "GITHUB_STEP_SUMMARY"}
    argv = [sys.executable, "-m", "mcpbdd.cli.main", "conformance", target, *args]
    return warm_python.run(argv, cwd=folder, env=env, capture_output=True, text=True, timeout=timeout)


def _git_repository(folder: Path) -> Path:
    """A repository of one commit for mcp-server-git to serve (its tools are confined to it)."""
    repository = folder / "repo"
    warm_python.run(["git", "init", "-q", str(repository)], check=True, timeout=60)
    (repository / "README.md").write_text("served by mcp-server-git for mcpbdd's conformance test\n")
    warm_python.run(["git", "-C", str(repository), "add", "README.md"], check=True, timeout=60)
    identity = ["-c", "user.name=mcpbdd", "-c", "user.email=mcpbdd@example.invalid"]
    warm_python.run(["git", "-C", str(repository), *identity, "commit", "-qm", "init"], check=True, timeout=60)
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
            done = _conformance(folder, TARGETS[name](folder), "--official", *baseline_options(name), timeout=540)
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
    expected = expected_entries(name)
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


AGREEMENT = [*sorted(TARGETS), "server-everything at its URL"]
"""Where the pack and the suite are compared here: each reference server over stdio (the suite through mcpbdd's
loopback bridge) and server-everything over its own streamable HTTP transport (`PORT`). The example server at its URL
is compared in test_conformance_official.py, on the run there that its other tests read."""


@pytest.fixture(params=AGREEMENT)
def served(request: pytest.FixtureRequest, tmp_path: Path, stdio_runs: StdioRuns) -> Iterator[tuple[str, Run]]:
    """A case of `AGREEMENT` and its run with `--official`: a reference server's shared run over stdio, or, at a
    URL (the server started here), a run of its own of the pack's `COUNTERPARTS` beside the whole suite."""
    case = str(request.param)
    if case in TARGETS:
        yield case, stdio_runs.of(case)
        return
    port = free_port()
    argv = command(SERVERS["server-everything"], "streamableHttp")
    env = {**os.environ, "PORT": str(port)}
    name = case.split(" at ")[0]
    for url in _serve(argv, port, env):
        started = datetime.now()
        done = _conformance(tmp_path, url, "--official", "--only", ",".join(COUNTERPARTS), *baseline_options(name))
        yield case, Run(tmp_path, done, started)


@pytest.mark.timeout(600)  # a stdio case read first (e.g. with -k) starts the server's shared run
def test_the_pack_and_the_official_suite_agree_where_they_check_one_rule(served: tuple[str, Run]) -> None:
    """Reads the case's run (`served`): a reference server's shared run over stdio, or its own run at a URL; the
    assertions are `official_agreement.assert_agreement`'s."""
    assert_agreement(*served)
