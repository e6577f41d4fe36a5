"""Shards balanced by time: the timing file every run writes, and the split `--shard I/N` makes from it.

The balance is checked on the durations a real run of the example suite recorded (what the
next CI run would read), not by timing shards here: wall-clock assertions would be flaky on a
loaded machine. `bench/bench_shards.py` runs the shards and measures them.

The tests of this concern that start processes are in tests/spawning/test_timings.py.
"""

from __future__ import annotations

from pathlib import Path

from mcpbdd.reporting.verdicts import Verdict
from mcpbdd.runner.plan import plan_run
from mcpbdd.runner.run import plan_processes
from mcpbdd.runner.timings import load_timings, record_timings


def shards_of(timings: Path | None, count: int, harness: str | None = None) -> list[list[str]]:
    """The scenario locations of each of `count` shards of `harness`'s pass (None: the configured harness), split by
    the timing file (shared with tests/spawning/test_timings.py, which reads a real run's file)."""
    plan = plan_run([])
    return [
        [
            location
            for bucket in plan_processes(plan, [harness], 1, (index, count), timings)
            for u in bucket
            for location in u.locations
        ]
        for index in range(1, count + 1)
    ]


def test_without_a_timing_file_shards_split_by_scenario_count(tmp_path: Path) -> None:
    shards = shards_of(tmp_path / "none.json", 2)
    assert all(":" not in location for shard in shards for location in shard)  # whole feature files
    counts = {unit.filename: unit.scenarios for unit in plan_run([]).units}
    sizes = [sum(counts[location] for location in shard) for shard in shards]
    assert abs(sizes[0] - sizes[1]) <= max(counts.values())


def _verdict(feature: str, line: int, seconds: float, column: str = "") -> Verdict:
    verdict = Verdict(feature, line, "s", "s", "F", "passed", seconds)
    verdict.column = column
    return verdict


def test_a_run_updates_what_it_measured_and_keeps_the_rest(tmp_path: Path) -> None:
    path = tmp_path / "timings.json"
    record_timings(path, [_verdict("a.feature", 3, 1.0), _verdict("a.feature", 5, 2.0), _verdict("b.feature", 3, 4.0)])
    record_timings(path, [_verdict("a.feature", 3, 0.5, "context")])  # a shard that ran one scenario, on context
    timings = load_timings(path)
    assert timings["a.feature"] == {"default": 3.0, "context": 0.5}
    assert timings["b.feature"] == {"default": 4.0}
    assert timings["a.feature:5"] == {"default": 2.0}


def test_a_damaged_timing_file_is_no_reason_to_fail(tmp_path: Path) -> None:
    path = tmp_path / "timings.json"
    path.write_text("{not json")
    assert load_timings(path) == {}
    record_timings(path, [_verdict("a.feature", 3, 1.0)])
    assert load_timings(path)["a.feature"] == {"default": 1.0}


def test_a_shard_writes_beside_the_file_it_splits_by(tmp_path: Path) -> None:
    from mcpbdd.runner.timings import written_to

    path = tmp_path / "timings.json"
    assert written_to(path, None) == path
    assert written_to(path, (2, 3)) == tmp_path / "timings.shard-2-of-3.json"
    record_timings(path, [_verdict("a.feature", 3, 1.0)])
    record_timings(path, [_verdict("b.feature", 3, 2.0)], output=written_to(path, (1, 2)))
    assert set(load_timings(path)) == {"a.feature", "a.feature:3"}  # what the shards split by is unchanged
    assert set(load_timings(written_to(path, (1, 2)))) == {"b.feature", "b.feature:3"}  # what the shard measured
