"""The project's own specifications pass on every harness and era: `make features`' three passes, each run once.

`make test` runs them here, not as a step of its own. The context and client passes are the session's one
`mcpbdd run --harness both` over features/ (`project_run`, tests/spawning/conftest.py), which the other tests that
need the specifications' results read too (tests/spawning/test_behave_runs.py); the third pass,
the client over the 2025-11-25 handshake, is behave as `make features` runs it, in test_specifications_2025.py (a
module of its own, so that pytest-xdist can run it on the other worker). (Not `--harness all`: that run adds the
parity matrix's verdict, which the project's specifications do not keep: some of them differ between harnesses on
purpose, untagged.)
"""

from __future__ import annotations

import json
import re
from collections import Counter

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
