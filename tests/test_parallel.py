"""`mcpbdd run --jobs N` and `--shard I/N`: the same results as a serial run, none lost, none duplicated.

The planning functions are checked directly; the runs are real `mcpbdd run` subprocesses
over this project's own specifications on both harnesses, compared result by result.

The tests of this concern that start processes are in tests/spawning/test_parallel.py.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from mcpbdd.runner.plan import Unit, balance, parse_shard, plan_run, shard_of, split_passthrough


def test_behave_options_and_paths_are_told_apart_by_behave_s_own_parser() -> None:
    options, paths = split_passthrough(
        ["-t", "@wip", "features/a.feature", "-D", "x=1", "--color", "always", "features/b", "--no-capture", "-Dy=2"]
    )
    assert options == ["-t", "@wip", "-D", "x=1", "--color", "always", "--no-capture", "-Dy=2"]
    assert paths == ["features/a.feature", "features/b"]
    assert split_passthrough(["--color", "features"]) == (["--color"], ["features"])  # an optional value


def test_the_plan_counts_the_scenarios_tags_select() -> None:
    everything = plan_run([])
    assert {Path(u.filename).parent.name for u in everything.units} == {"features"}
    assert everything.scenarios > 30
    tagged = plan_run(["-t", "@era.modern"])
    assert 0 < tagged.scenarios < everything.scenarios
    assert len(tagged.units) == len(everything.units)  # every feature still runs (its skips are reported)
    lines = plan_run(["features/notes.feature:9", "features/notes.feature:20"])
    assert [(u.locations, u.scenarios) for u in lines.units] == [
        (("features/notes.feature:9", "features/notes.feature:20"), 2)
    ]


def _units(weights: list[int]) -> list[Unit]:
    return [Unit(f"f{i:02d}.feature", (f"f{i:02d}.feature",), w) for i, w in enumerate(weights)]


@pytest.mark.parametrize("count", [1, 2, 3, 5, 12])
def test_shards_partition_the_features_deterministically(count: int) -> None:
    units = _units([7, 1, 30, 4, 4, 9, 0, 12, 3, 3])
    shards = [shard_of(units, index, count) for index in range(1, count + 1)]
    flat = [unit.filename for shard in shards for unit in shard]
    assert sorted(flat) == sorted(u.filename for u in units), "every feature in exactly one shard"
    assert shards == [shard_of(list(reversed(units)), index, count) for index in range(1, count + 1)]


def test_buckets_are_balanced_by_scenarios() -> None:
    loads = [sum(u.scenarios for u in bucket) for bucket in balance(_units([10] * 9 + [5, 5]), 2)]
    assert sorted(loads) == [50, 50]


def test_a_bad_shard_is_refused() -> None:
    assert parse_shard(" 2 / 3 ") == (2, 3)
    for text in ("0/2", "3/2", "1", "a/b", "1/0"):
        with pytest.raises(ValueError, match="--shard"):
            parse_shard(text)
