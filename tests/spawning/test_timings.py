"""Shards balanced by time: the timing file every run writes, and the split `--shard I/N` makes from it.

The balance is checked on the durations a real run of the project's specifications recorded (what the next CI run
would read): the session's project run (`project_run`, tests/spawning/conftest.py: `--harness both`, so a column per
pass), not by timing shards here: wall-clock assertions would be flaky on a loaded machine. `bench/bench_shards.py`
runs the shards and measures them. That a run on the configured harness writes the default column is
tests/spawning/test_cli.py's (its plain run writes a timing file too).

These tests start processes; the in-process tests of this concern are in tests/test_timings.py.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from test_timings import shards_of  # shared with the in-process half

from mcpbdd.runner.plan import plan_run
from mcpbdd.runner.timings import load_timings

PASSES = ("context", "client")
"""The project run's passes: each is a column of its timing file."""

EVERY_SCENARIO = "client"
"""The pass that runs every scenario (the context pass leaves out those pinned to the client harness, so its column
lacks them): the shards are split and weighed on its column."""


@pytest.fixture
def recorded(project_run: Any) -> Path:
    """The timing file of the session's project run (the readers of `project_run` share one worker). A run that
    failed a scenario still timed it: that the specifications pass is tests/spawning/test_specifications.py's."""
    process, timings = project_run.process, Path(project_run.results.parent / "timings.json")
    assert timings.is_file(), process.stdout[-3000:] + process.stderr[-3000:]
    return timings


def _seconds(locations: list[str], timings: dict[str, dict[str, float]], harness: str) -> float:
    return sum(timings[location][harness] for location in locations)


@pytest.mark.parametrize("count", [2, 3])
def test_shards_from_the_timing_file_take_the_same_time_within_20_percent(recorded: Path, count: int) -> None:
    timings = load_timings(recorded)
    shards = shards_of(recorded, count, EVERY_SCENARIO)
    loads = [_seconds(shard, timings, EVERY_SCENARIO) for shard in shards]
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
    assert all(passes and set(passes) <= set(PASSES) for passes in document["features"].values()), document["features"]
    assert all(passes and set(passes) <= set(PASSES) for passes in document["scenarios"].values())
