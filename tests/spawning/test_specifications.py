"""The project's own specifications pass on every harness and era: `make features`' three passes, each run once.

`make test` runs them here, not as a step of its own. The context and client passes are the session's one
`mcpbdd run --harness both --jobs 2` over features/ (`project_run`, tests/spawning/conftest.py), which the other
tests that need the specifications' results read too (tests/spawning/test_behave_runs.py); the third pass,
the client over the 2025-11-25 handshake, is behave as `make features` runs it, in test_specifications_2025.py (a
module of its own, so that pytest-xdist can run it on the other worker). (Not `--harness all`: that run adds the
parity matrix's verdict, which the project's specifications do not keep: some of them differ between harnesses on
purpose, untagged.)
"""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path

from mcpbdd.runner.plan import plan_run
from spawning.conftest import ProjectRun

FEATURES = Path(__file__).resolve().parents[2] / "features"


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


def test_every_feature_file_ran_and_authorization_on_the_client_harness(project_run: ProjectRun) -> None:
    """No feature file is left out of the run (each has a timing), and each authorization scenario ran on the client
    harness, where tokens travel: the example server passes every one (that servers with a flaw fail them is
    tests/spawning/test_behave_authorization.py)."""
    timings = json.loads((project_run.results.parent / "timings.json").read_text(encoding="utf-8"))
    assert set(timings["features"]) == {f"features/{path.name}" for path in FEATURES.glob("*.feature")}
    planned = [key for key in timings["scenarios"] if key.startswith("features/authorization.feature:")]
    assert len(planned) > 10 and all(set(timings["scenarios"][key]) == {"client"} for key in planned), planned
    name = re.search(r"^Feature: (.+)$", (FEATURES / "authorization.feature").read_text(), re.MULTILINE)
    assert name is not None
    labels = [
        {label["name"]: label["value"] for label in json.loads(path.read_text(encoding="utf-8"))["labels"]}
        for path in project_run.results.glob("*-result.json")
    ]
    ran = [entry for entry in labels if entry.get("feature") == name.group(1).strip()]
    assert len(ran) == len(planned) and {entry["harness"] for entry in ran} == {"client"}
