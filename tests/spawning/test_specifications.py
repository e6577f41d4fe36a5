"""The project's own specifications pass on every harness and era: `make features`' three passes, each run once.

`make test` runs them here, not as a step of its own. The context and client passes are the session's one
`mcpbdd run --harness both` over features/ (`project_run`, tests/spawning/conftest.py), which the other tests that
need the specifications' results read too (tests/spawning/test_parallel.py, test_behave_runs.py); the third pass,
the client over the 2025-11-25 handshake, is behave as `make features` runs it. (Not `--harness all`: that run adds
the parity matrix's verdict, which the project's specifications do not keep: some of them differ between harnesses
on purpose, untagged.)
"""

from __future__ import annotations

import json
import re
from collections import Counter

import pytest
from behave_passes import PASSES, PROJECT_RUN_TIMEOUT
from processes import run_module

from mcpbdd.cli.plan import plan_run
from spawning.conftest import ProjectRun


def test_the_specifications_pass_on_both_harnesses(project_run: ProjectRun) -> None:
    run = project_run.process
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    summary = re.search(r"mcpbdd: passed: (\d+) passed, 0 failed", run.stdout)
    assert summary is not None, run.stdout[-2000:]
    results = [json.loads(p.read_text(encoding="utf-8")) for p in project_run.results.glob("*-result.json")]
    assert int(summary.group(1)) == len(results)
    assert {result["status"] for result in results} == {"passed"}
    harnesses = [p["value"] for result in results for p in result.get("parameters", []) if p["name"] == "harness"]
    by_pass = Counter(harnesses)
    assert set(by_pass) == {"context", "client"}, by_pass
    assert min(by_pass.values()) > 30 and sum(by_pass.values()) == len(results) <= 2 * plan_run([]).scenarios
    assert {p.name for p in project_run.junit.iterdir()} == {"context", "client"}


@pytest.mark.timeout(PROJECT_RUN_TIMEOUT)
def test_the_specifications_pass_on_the_client_over_the_2025_handshake() -> None:
    run = run_module("behave", "--format", "progress", *PASSES["client-legacy"].options, timeout=PROJECT_RUN_TIMEOUT)
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    scenarios = re.search(r"^(\d+) scenarios? passed, (\d+) failed, (\d+) skipped", run.stdout, re.MULTILINE)
    assert scenarios is not None, run.stdout[-2000:]
    assert int(scenarios.group(1)) > 30 and scenarios.group(2) == "0", scenarios.group(0)
