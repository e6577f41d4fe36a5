"""Shards balanced by time: the timing file every run writes, and the split `--shard I/N` makes from it.

The balance is checked on the durations a real run of the example suite recorded (what the
next CI run would read), not by timing shards here: wall-clock assertions would be flaky on a
loaded machine. `bench/bench_shards.py` runs the shards and measures them.

These tests start processes; the in-process tests of this concern are in tests/test_timings.py.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest
from test_timings import _shards  # shared with the in-process half

from mcpbdd.runner.plan import plan_run
from mcpbdd.runner.timings import DEFAULT_PASS, load_timings

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def recorded(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The example suite's timing file, from a real `mcpbdd run` (the configured harness)."""
    out = tmp_path_factory.mktemp("timings")
    outputs = ["--timings", str(out / "timings.json"), "--results", str(out / "allure"), "--junit", str(out / "junit")]
    run = subprocess.run(
        [sys.executable, "-m", "mcpbdd.cli.main", "run", "-f", "progress", *outputs],
        cwd=ROOT,
        env=dict(os.environ),
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert run.returncode == 0, run.stdout + run.stderr
    return out / "timings.json"


def _seconds(locations: list[str], timings: dict[str, dict[str, float]]) -> float:
    return sum(timings[location][DEFAULT_PASS] for location in locations)


@pytest.mark.parametrize("count", [2, 3])
def test_shards_from_the_timing_file_take_the_same_time_within_20_percent(recorded: Path, count: int) -> None:
    timings = load_timings(recorded)
    shards = _shards(recorded, count)
    loads = [_seconds(shard, timings) for shard in shards]
    assert max(loads) <= 1.2 * min(loads), loads
    # every scenario runs in exactly one shard: the shards' scenarios are the suite's, once each
    scenarios: Counter[str] = Counter()
    for shard in shards:
        for location in shard:
            lines = [location] if ":" in location else [w for w in timings if w.startswith(location + ":")]
            scenarios.update(lines)
    assert set(scenarios.values()) == {1}
    assert len(scenarios) == plan_run([]).scenarios


def test_the_timing_file_has_every_feature_and_scenario(recorded: Path) -> None:
    document = json.loads(recorded.read_text())
    plan = plan_run([])
    assert set(document["features"]) == {unit.filename for unit in plan.units}
    assert len(document["scenarios"]) == plan.scenarios
    assert all(set(passes) == {DEFAULT_PASS} for passes in document["features"].values())
