"""`mcpbdd conformance --official`: the official suite beside the pack, its checks as JUnit, skipped (never passed)
where it cannot run, and agreeing with the pack where both check one rule (SEP-2164 on the example server).

The run at a URL needs npm (the suite and a Node >= 22 install into mcpbdd's cache on first use).
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from pathlib import Path

import pytest

PYTHON = sys.executable


def _conformance(folder: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "GITHUB_STEP_SUMMARY"}
    command = [PYTHON, "-m", "mcpbdd.cli.main", "conformance", *args]
    return subprocess.run(command, cwd=folder, env=env, capture_output=True, text=True, timeout=600)


def test_without_a_url_the_official_suite_is_skipped_saying_why(tmp_path: Path) -> None:
    done = _conformance(tmp_path, "mcpbdd.examples.notes:mcp", "--official", "--only", "tool-names")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "the official suite was skipped, not passed: the official suite runs only at a URL" in done.stdout
    assert (
        "Skipped, not passed: the official suite runs only at a URL"
        in (tmp_path / "reports" / "conformance.md").read_text()
    )


@pytest.fixture
def notes_url() -> Iterator[str]:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
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


@pytest.mark.skipif(shutil.which("npm") is None, reason="needs npm (the official suite installs from the npm registry)")
def test_at_a_url_the_official_checks_are_junit_tests_agreeing_with_the_pack(tmp_path: Path, notes_url: str) -> None:
    done = _conformance(tmp_path, notes_url, "--official", "--only", "unknown-resource")
    assert done.returncode == 0, done.stdout + done.stderr
    cases = ET.parse(tmp_path / "reports" / "junit" / "official" / "TESTS-official.xml").getroot().iter("testcase")
    verdicts = {case.get("name"): case.find("failure") is None for case in cases}
    assert verdicts["sep-2164-error-code"] and verdicts["sep-2164-data-uri"]  # the official suite: -32602 with data.uri
    summary = (tmp_path / "reports" / "conformance.md").read_text()
    assert "| unknown-resource | [resources](" in summary and "❌" not in summary  # the pack: the same rule, passed
    assert "| sep-2164-resource-not-found | sep-2164-error-code | SUCCESS |" in summary
