"""`mcpbdd run --jobs N` and `--shard I/N`: the same results as a serial run, none lost, none duplicated.

The planning functions are checked directly; the runs are real `mcpbdd run` subprocesses
over this project's own specifications on both harnesses, compared result by result. The serial
run is the session's one run of the specifications (`project_run`, `--harness both`); the split
runs are this module's own. Every run
must pass whole: a split that made scenarios fail (a worker that lost its server, say) is no
"same results".

These tests start processes; the in-process tests of this concern are in tests/test_parallel.py.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import xml.etree.ElementTree as ET
from collections import Counter
from pathlib import Path

import pytest

from mcpbdd.runner.plan import plan_run
from spawning.conftest import ProjectRun

ROOT = Path(__file__).resolve().parents[2]


# real runs ---------------------------------------------------------------------------------------------


def _run(results: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """`mcpbdd run --harness both`, every file it writes beside `results`: the timing file too (the shards split by
    the one the jobs run wrote, whatever runs of other tests write to reports/ meanwhile)."""
    command = [sys.executable, "-m", "mcpbdd.cli.main", "run", "--harness", "both", "--results", str(results)]
    command += ["--junit", str(results.parent / f"{results.name}-junit"), "-f", "progress", *args]
    command += ["--timings", str(results.parent / "timings.json"), "--coverage", str(results.parent / "coverage.json")]
    return subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=300)


Identity = tuple[str, str, tuple[str, ...]]


def _identities(*folders: Path) -> Counter[Identity]:
    """(full name, name, parameters) of every result file, counted: a duplicate counts twice.

    Not the status, which every run must have passed whole (`runs`): what must not differ is which results exist.
    """
    found: Counter[Identity] = Counter()
    for folder in folders:
        for path in folder.glob("*-result.json"):
            result = json.loads(path.read_text(encoding="utf-8"))
            parameters = tuple(sorted(f"{p['name']}={p['value']}" for p in result.get("parameters", [])))
            found[(result["fullName"], result["name"], parameters)] += 1
    return found


def _junit_cases(folder: Path) -> Counter[tuple[str, str, str]]:
    cases: Counter[tuple[str, str, str]] = Counter()
    for path in folder.rglob("TESTS-*.xml"):
        for case in ET.parse(path).getroot().iter("testcase"):
            cases[(path.parent.name, case.get("classname", ""), case.get("name", ""))] += 1
    return cases


def _passed_whole(name: str, run: subprocess.CompletedProcess[str], results: Path) -> None:
    """The run exited 0, said so, and every result it wrote passed."""
    assert run.returncode == 0, (name, run.stdout[-2000:], run.stderr[-2000:])
    summary = re.search(r"mcpbdd: (?:passed|FAILED): (\d+) passed, (\d+) failed", run.stdout)
    assert summary is not None, run.stdout[-2000:]
    assert int(summary.group(2)) == 0, (name, summary.group(0))
    statuses = Counter(json.loads(path.read_text())["status"] for path in results.glob("*-result.json"))
    assert set(statuses) == {"passed"}, (name, statuses)


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory, project_run: ProjectRun) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("runs")
    done = {
        "jobs": _run(folder / "jobs", "--jobs", "2"),
        "shard-1": _run(folder / "shard-1", "--shard", "1/2"),
        "shard-2": _run(folder / "shard-2", "--shard", "2/2"),
    }
    for name, run in done.items():  # the summary line counts what the results folder holds
        _passed_whole(name, run, folder / name)
        summary = re.search(r"mcpbdd: (?:passed|FAILED): (\d+) passed, (\d+) failed", run.stdout)
        assert summary is not None, run.stdout[-2000:]
        written = len(list((folder / name).glob("*-result.json")))
        assert int(summary.group(1)) + int(summary.group(2)) == written, (name, summary.group(0), written)
    _passed_whole("serial", project_run.process, project_run.results)
    summary = re.search(r"mcpbdd: (?:passed|FAILED): (\d+) passed, (\d+) failed", project_run.process.stdout)
    assert summary is not None and int(summary.group(1)) == len(list(project_run.results.glob("*-result.json")))
    (folder / "serial").symlink_to(project_run.results)  # read where the split runs are, under the same names
    (folder / "serial-junit").symlink_to(project_run.junit)
    return {name: folder / name for name in ("serial", *done)}


def test_two_jobs_give_exactly_the_serial_results(runs: dict[str, Path]) -> None:
    serial = _identities(runs["serial"])
    # One result per scenario and harness, each exactly once: a scenario a tag pins to one harness
    # runs only in that harness's pass of --harness both (here the tampering one, @harness.client.auto).
    pinned = plan_run(["--tags", "@harness.client,@harness.client.auto,@harness.context"]).scenarios
    assert pinned >= 1
    assert sum(serial.values()) == 2 * plan_run([]).scenarios - pinned > 60
    assert set(serial.values()) == {1}
    assert {p for _, _, parameters in serial for p in parameters if p.startswith("harness=")} == {
        "harness=context",
        "harness=client",
    }
    assert _identities(runs["jobs"]) == serial


def test_two_shards_together_give_exactly_the_serial_results(runs: dict[str, Path]) -> None:
    first, second = _identities(runs["shard-1"]), _identities(runs["shard-2"])
    assert first and second, "both shards have work"
    assert first + second == _identities(runs["serial"])


def test_junit_xml_is_the_same_however_the_run_is_split(runs: dict[str, Path]) -> None:
    def junit(name: str) -> Path:
        return runs[name].parent / f"{name}-junit"

    serial = _junit_cases(junit("serial"))
    assert sum(serial.values()) == sum(_identities(runs["serial"]).values())
    assert _junit_cases(junit("jobs")) == serial
    assert _junit_cases(junit("shard-1")) + _junit_cases(junit("shard-2")) == serial


def test_a_split_run_whose_scenarios_fail_is_not_the_same_results(tmp_path: Path) -> None:
    """The comparisons above count which results exist; a run whose every scenario failed writes them all the same.
    `_passed_whole` is what refuses it (the exit status and every result's status), shown on a feature meant to fail."""
    results = tmp_path / "jobs"
    run = _run(results, "--jobs", "2", "tests/behave_cases/features/unused_answer.feature")
    assert run.returncode == 1 and list(results.glob("*-result.json")), run.stdout + run.stderr
    with pytest.raises(AssertionError) as refused:
        _passed_whole("jobs", run, results)
    assert "jobs" in str(refused.value)
