"""Two runs, one reports folder: the second is refused, naming the folder and the first run's pid.

Run A failed 10 scenarios and exited 1, yet `allure-results` held 7 of them plus run B's 2 passes: both
emptied and wrote the same folder. Now a run holds a lock in the folder for as long as it writes there.
The runs are real `mcpbdd run` subprocesses over the test servers (`tests/servers.py`).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from processes import TESTS, mcpbdd_run, wait_until

from mcpbdd.runner.run_lock import LOCK_NAME

SLOW = (
    'Feature: slow\n  Scenario: slow\n    When the client calls "block" with {"seconds": 4}\n'
    "    Then the call succeeds\n"
)
QUICK = 'Feature: quick\n  Scenario: quick\n    When the client calls "report"\n    Then the call succeeds\n'


def _project(root: Path, feature: str) -> Path:
    folder = root / "features"
    (folder / "steps").mkdir(parents=True)
    (folder / "steps" / "steps.py").write_text("from mcpbdd.steps import *  # noqa: F403\n")
    (folder / "environment.py").write_text("from mcpbdd.behave import *  # noqa: F403\n")
    (folder / "run.feature").write_text(feature)
    (root / "pyproject.toml").write_text(
        '[tool.mcpbdd]\nserver = "servers:awkward"\nharness = "context"\ntimeout = 30\n'
    )
    return root


def test_a_second_run_into_the_same_reports_folder_is_refused_while_the_first_writes(tmp_path: Path) -> None:
    reports = tmp_path / "reports"
    first, second = _project(tmp_path / "a", SLOW), _project(tmp_path / "b", QUICK)
    where = ["--results", str(reports / "allure-results"), "--junit", str(reports / "junit")]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(TESTS.parent), str(TESTS)])}
    running = subprocess.Popen(
        [sys.executable, "-m", "mcpbdd.cli.main", "run", *where, "features"],
        cwd=first,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        lock = reports / LOCK_NAME
        wait_until(
            lambda: lock.is_file() and lock.read_text().strip() == str(running.pid),
            60,
            "the first run to take the lock",
        )
        refused = mcpbdd_run(*where, "features", cwd=second)
        assert refused.returncode == 2, refused.stdout + refused.stderr
        assert f"another mcpbdd run (pid {running.pid}) is writing its reports in {reports}" in refused.stderr
    finally:
        output, _ = running.communicate(timeout=300)
    assert running.returncode == 0, output
    names = [json.loads(p.read_text())["name"] for p in (reports / "allure-results").glob("*-result.json")]
    assert names == ["slow [context harness]"], "only the first run's results"
    again = mcpbdd_run(*where, "features", cwd=second)
    assert again.returncode == 0, "the lock went with the run that held it: " + again.stdout + again.stderr
