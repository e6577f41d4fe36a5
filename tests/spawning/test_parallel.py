"""`mcpbdd run --jobs N` and `--shard I/N`: the same results as a serial run, none lost, none duplicated.

The planning functions are checked directly in tests/test_parallel.py; here the runs are real `mcpbdd run`
subprocesses on both harnesses, compared result by result: a serial run, `--jobs 2`, and two shards split by the
timing file the serial run wrote; and the coverage files they write merge to the serial run's. Every run must pass
whole: a split that made scenarios fail (a worker that lost
its server, say) is no "same results".

The runs are of a small project (`tests/small_projects.py`, `SPLIT_FEATURES`) with every shape a split must keep
whole: several features, a Background, an Outline's rows, Rules, a scenario pinned to one harness, and a feature of
server processes heavy enough that the shards split it by its rows. It takes seconds where the project's own
specifications took minutes per run; that features/ passes on every harness is the session's one run of them
(`project_run`, tests/spawning/test_specifications.py), and `--jobs` over features/ is what the documentation's
workflow runs (tests/spawning/test_ci_workflow.py shows its shell steps on a project of this shape too).
"""

from __future__ import annotations

import json
import re
import subprocess
import xml.etree.ElementTree as ET
from collections import Counter
from pathlib import Path

import pytest
from processes import mcpbdd_run, run_module
from small_projects import SPLIT_RESULTS, split_project

from mcpbdd.harness.processes import shared_forks

ROOT = Path(__file__).resolve().parents[2]


# real runs ---------------------------------------------------------------------------------------------


def _run(results: Path, *args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    """`mcpbdd run --harness both` in `cwd`, every file it writes beside `results`: the timing file too (the shards
    split by the one the serial run wrote)."""
    options = ["--harness", "both", "--results", str(results), "--junit", str(results.parent / f"{results.name}-junit")]
    options += ["-f", "progress", *args]
    coverage = results.parent / f"{results.name}-coverage.json"
    options += ["--timings", str(results.parent / "timings.json"), "--coverage", str(coverage)]
    return mcpbdd_run(*options, cwd=cwd)


def mcpbdd_coverage(*args: str) -> subprocess.CompletedProcess[str]:
    return run_module("mcpbdd.cli.main", "coverage", *args)


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
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    project = split_project(tmp_path_factory.mktemp("project"))
    folder = tmp_path_factory.mktemp("runs")
    # Each run starts its fork servers as on a CI machine of its own, not from the pytest worker's shared ones: the
    # shards split the stdio feature because the timing file says it is the heaviest, and a run whose fork server
    # another run had already started would record it lighter than a user's CI does.
    with pytest.MonkeyPatch.context() as patch:
        patch.delenv(shared_forks.ENV, raising=False)
        done = {
            "serial": _run(folder / "serial", cwd=project),
            "jobs": _run(folder / "jobs", "--jobs", "2", cwd=project),
            "shard-1": _run(folder / "shard-1", "--shard", "1/2", cwd=project),
            "shard-2": _run(folder / "shard-2", "--shard", "2/2", cwd=project),
        }
    for name, run in done.items():  # the summary line counts what the results folder holds
        _passed_whole(name, run, folder / name)
        summary = re.search(r"mcpbdd: (?:passed|FAILED): (\d+) passed, (\d+) failed", run.stdout)
        assert summary is not None, run.stdout[-2000:]
        written = len(list((folder / name).glob("*-result.json")))
        assert int(summary.group(1)) + int(summary.group(2)) == written, (name, summary.group(0), written)
    return {name: folder / name for name in done}


def test_two_jobs_give_exactly_the_serial_results(runs: dict[str, Path]) -> None:
    serial = _identities(runs["serial"])
    # One result per scenario and harness, each exactly once: a scenario or feature a tag pins to one harness runs
    # only in that harness's pass of --harness both.
    assert set(serial.values()) == {1}
    by_pass = Counter(p for _, _, parameters in serial for p in parameters if p.startswith("harness="))
    assert by_pass == {f"harness={name}": count for name, count in SPLIT_RESULTS.items()}
    assert _identities(runs["jobs"]) == serial


def test_two_shards_together_give_exactly_the_serial_results(runs: dict[str, Path]) -> None:
    first, second = _identities(runs["shard-1"]), _identities(runs["shard-2"])
    assert first and second, "both shards have work"
    assert first + second == _identities(runs["serial"])

    # one pass of the heavy feature went to both shards, row by row (the timing file's split by scenario)
    def feature_passes(shard: Counter[Identity]) -> set[tuple[str, str]]:
        return {(name.split(":", 1)[0], p) for name, _, parameters in shard for p in parameters if "harness=" in p}

    assert feature_passes(first) & feature_passes(second), "no feature's pass split between the shards"


def test_junit_xml_is_the_same_however_the_run_is_split(runs: dict[str, Path]) -> None:
    def junit(name: str) -> Path:
        return runs[name].parent / f"{name}-junit"

    serial = _junit_cases(junit("serial"))
    assert sum(serial.values()) == sum(_identities(runs["serial"]).values())
    assert _junit_cases(junit("jobs")) == serial
    assert _junit_cases(junit("shard-1")) + _junit_cases(junit("shard-2")) == serial


def test_two_shards_and_two_jobs_merge_to_exactly_the_serial_coverage(runs: dict[str, Path]) -> None:
    def coverage(name: str) -> Path:
        return runs[name].parent / f"{name}-coverage.json"

    serial = json.loads(coverage("serial").read_text())
    scenarios = {name: section["scenarios"] for name, section in serial["harnesses"].items()}
    assert scenarios == {"context": SPLIT_RESULTS["context"], "client (auto)": SPLIT_RESULTS["client"]}
    first, second = (json.loads(coverage(name).read_text()) for name in ("shard-1", "shard-2"))
    assert first != serial != second, "each shard covers a part only"
    merged = runs["serial"].parent / "merged-coverage.json"
    done = mcpbdd_coverage(str(coverage("shard-1")), str(coverage("shard-2")), "-o", str(merged))
    assert done.returncode == 0, done.stdout + done.stderr
    assert json.loads(merged.read_text()) == serial == json.loads(coverage("jobs").read_text())


def test_a_split_run_whose_scenarios_fail_is_not_the_same_results(tmp_path: Path) -> None:
    """The comparisons above count which results exist; a run whose every scenario failed writes them all the same.
    `_passed_whole` is what refuses it (the exit status and every result's status), shown on a feature meant to fail."""
    results = tmp_path / "jobs"
    run = _run(results, "--jobs", "2", "tests/behave_cases/features/unused_answer.feature")
    assert run.returncode == 1 and list(results.glob("*-result.json")), run.stdout + run.stderr
    with pytest.raises(AssertionError) as refused:
        _passed_whole("jobs", run, results)
    assert "jobs" in str(refused.value)
