"""docs/ci/github-actions.yml: valid for GitHub Actions, and its shell steps work as written.

`make lint` validates the workflow against the GitHub Actions workflow schema that `check-jsonschema`
bundles (offline) and runs actionlint on it; here, that the schema refuses a broken copy (so the lint
can fail). Then every `run:` step runs here, in order,
with bash as Actions runs it (`bash -e {0}`), on a small project of every shape a split keeps
(`SPLIT_FEATURES` in tests/small_projects.py, on the client harness so that every feature runs):
three shard jobs, then the report job. (What this shows is the workflow's steps; that this project's own
specifications pass is the session's one run of them, tests/spawning/test_specifications.py, and that shards give
exactly a serial run's results is tests/spawning/test_parallel.py.) The `uses:` steps are GitHub's own actions and are
played by the test: checkout is the copy, an artifact upload/download is a copy of `reports/`
into `shards/shard-I/`, the cache restore hands over the timing file the previous round saved.
`Install mcpbdd` (pip install -e .) is skipped: mcpbdd is installed in this environment already.
The rendered report's Environment panel must show the shards' merged coverage, not one shard's:
the check is run once more on a report rendered without `--coverage`, where it must fail.
"""

from __future__ import annotations

import base64
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from ruamel.yaml import YAML
from small_projects import SPLIT_FEATURES, split_project

from mcpbdd.checks.coverage import load_coverage
from mcpbdd.reporting.coverage_environment import ENVIRONMENT_FILE, environment_entries

ROOT = Path(__file__).resolve().parents[2]
TESTS = ROOT / "tests"
WORKFLOW = ROOT / "docs" / "ci" / "github-actions.yml"
BIN = Path(sys.executable).parent
EXPRESSION = re.compile(r"\$\{\{\s*([^}]+?)\s*\}\}")
EMBEDDED = re.compile(r'd\("widgets/allure_environment\.json","([A-Za-z0-9+/=]+)"\)')
"""How Allure 3's single-file report embeds its Environment panel (base64 JSON)."""


def _workflow() -> dict[str, Any]:
    workflow: dict[str, Any] = YAML(typ="safe").load(WORKFLOW.read_text())
    return workflow


def _lint(path: Path) -> subprocess.CompletedProcess[str]:
    command = [str(BIN / "check-jsonschema"), "--builtin-schema", "vendor.github-workflows", str(path)]
    return subprocess.run(command, capture_output=True, text=True, timeout=120)


def test_the_linter_refuses_a_broken_workflow(tmp_path: Path) -> None:
    broken = tmp_path / "broken.yml"
    broken.write_text(WORKFLOW.read_text().replace("runs-on: ubuntu-latest", "runs_on: ubuntu-latest", 1))
    run = _lint(broken)
    assert run.returncode != 0 and "runs_on" in run.stdout + run.stderr


def _expand(text: str, values: dict[str, str]) -> str:
    def value(match: re.Match[str]) -> str:
        name = match.group(1)
        assert name in values, f"the test does not know the expression {name!r}: add it"
        return values[name]

    return EXPRESSION.sub(value, text)


def _run_step(step: dict[str, Any], cwd: Path, env: dict[str, str], values: dict[str, str]) -> None:
    script = _expand(step["run"], values)
    done = subprocess.run(["bash", "-e", "-c", script], cwd=cwd, env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, (
        f"step {step.get('name', script)!r} failed:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    )


def _project_copy(where: Path) -> Path:
    """The project as a checkout gives it to each machine."""
    return split_project(where, harness="client")


def _coverage_shown(page: Path) -> dict[str, str]:
    """The `coverage.*` entries of the rendered report's Environment panel."""
    found = EMBEDDED.findall(page.read_text(encoding="utf-8"))
    assert len(found) == 1, f"no (or several) environment widgets in {page}: has Allure changed its embedding?"
    entries = json.loads(base64.b64decode(found[0]))
    return {e["name"]: ", ".join(e["values"]) for e in entries if e["name"].startswith("coverage.")}


def _own_coverage(results: Path) -> dict[str, str]:
    lines = (results / ENVIRONMENT_FILE).read_text(encoding="utf-8").splitlines()
    pairs = (line.split(" = ", 1) for line in lines if line.startswith("coverage."))
    return {key: value for key, value in pairs}


@pytest.mark.skipif(shutil.which("jq") is None, reason="the workflow merges timing files with jq (on every runner)")
def test_the_shell_steps_run_as_written(tmp_path: Path) -> None:
    workflow = _workflow()
    jobs = workflow["jobs"]
    shards = jobs["specifications"]["strategy"]["matrix"]["shard"]
    env = {**os.environ, **{k: str(v) for k, v in workflow["env"].items()}, "CI": "true"}
    env["PATH"] = f"{BIN}{os.pathsep}{env['PATH']}"
    env["PYTHONPATH"] = str(TESTS)  # the project's server, tests/servers.py
    values = {"env.PYTHON_VERSION": str(workflow["env"]["PYTHON_VERSION"]), "github.ref_name": "main"}
    values |= {"github.run_id": "1", "!cancelled()": "true"}
    collected = tmp_path / "artifacts"

    for shard in shards:
        machine = _project_copy(tmp_path / f"machine-{shard}")
        for step in jobs["specifications"]["steps"]:
            if "run" in step and step.get("name") != "Install mcpbdd":
                _run_step(step, machine, env, {**values, "matrix.shard": str(shard)})
            elif "upload-artifact" in step.get("uses", ""):
                shutil.copytree(machine / "reports", collected / f"shard-{shard}")
    written = sorted(p.name for p in collected.glob("shard-*/timings.shard-*.json"))
    assert written == [f"timings.shard-{i}-of-{len(shards)}.json" for i in shards]

    machine = _project_copy(tmp_path / "machine-report")
    ran = []
    for step in jobs["report"]["steps"]:
        if "download-artifact" in step.get("uses", ""):
            shutil.copytree(collected, machine / step["with"]["path"])
        elif "run" in step and step.get("name") != "Install mcpbdd":
            if "mcpbdd report" in step["run"] and shutil.which("node") is None:
                continue  # rendering needs Node.js (setup-node in the workflow)
            _run_step(step, machine, env, values)
            ran.append(step["name"])
    assert "Merge the timing files" in ran
    timings = json.loads((machine / "reports" / "timings.json").read_text())
    assert set(timings["features"]) == {f"features/{name}" for name in SPLIT_FEATURES}
    assert "Merge the coverage files" in ran
    merged = environment_entries(load_coverage(machine / "reports" / "coverage.json"))
    own = [_own_coverage(folder) for folder in sorted(machine.glob("shards/shard-*/allure-results"))]
    assert len(own) == len(shards) and all(entries != merged for entries in own), "each shard covers a part only"
    if "Render one report from every shard" in ran:
        upload = next(s for s in jobs["report"]["steps"] if s.get("name") == "Upload the report")
        for path in upload["with"]["path"].split():
            assert (machine / path).is_file(), path
        render = next(s for s in jobs["report"]["steps"] if s.get("name") == "Render one report from every shard")
        page = machine / "reports" / "html" / "index.html"
        assert _coverage_shown(page) == merged, "the report shows the run's coverage, every shard's tools counted"
        # proven able to fail: the same step without --coverage shows one shard's coverage
        command, option, _ = render["run"].partition(" --coverage ")
        assert option, "the report step passes the merged coverage"
        _run_step({"run": f"{command} --output without-coverage"}, machine, env, values)
        assert _coverage_shown(machine / "without-coverage" / "index.html") != merged
    publish = next(s for s in jobs["report"]["steps"] if "junit" in s.get("uses", ""))
    pattern = publish["with"]["report_paths"]
    assert list(machine.glob(pattern)), f"no JUnit XML at {pattern}"
