"""The project's own specifications pass on every harness and era: `make features`' three passes, run once.

`make test` runs them here, not as a step of their own: the session's one `mcpbdd run --harness all` over
features/ (`project_run`, tests/spawning/conftest.py) is this verdict, and the other tests that need the
specifications' results (tests/spawning/test_parallel.py, test_behave_runs.py) read the same run.
"""

from __future__ import annotations

import json
import re
from collections import Counter

from mcpbdd.cli.plan import plan_run
from spawning.conftest import ProjectRun

PASSES = {"context", "client", "client, legacy"}
"""The harness parameter of each pass's results: the context harness, the client on 2026-07-28, on 2025-11-25."""


def test_the_specifications_pass_on_every_harness_and_era(project_run: ProjectRun) -> None:
    run = project_run.process
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    summary = re.search(r"mcpbdd: passed: (\d+) passed, 0 failed", run.stdout)
    assert summary is not None, run.stdout[-2000:]
    results = [json.loads(p.read_text(encoding="utf-8")) for p in project_run.results.glob("*-result.json")]
    assert {result["status"] for result in results} == {"passed"}
    by_pass = Counter(
        parameter["value"]
        for result in results
        for parameter in result.get("parameters", [])
        if parameter["name"] == "harness"
    )
    assert set(by_pass) == PASSES, by_pass
    # every scenario once per pass, but those a tag pins to one harness (one pass, or the client's two)
    assert by_pass["context"] > 30 and by_pass["client"] >= by_pass["context"], by_pass
    assert sum(by_pass.values()) <= 3 * plan_run([]).scenarios
    assert {p.name for p in project_run.junit.iterdir()} == {"context", "client.auto", "client.legacy"}
