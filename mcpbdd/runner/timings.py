"""The timing file: how long each feature file took on each pass, so `--shard I/N` splits by time.

Every `mcpbdd run` writes `reports/timings.json` (`--timings FILE`): per feature file and pass
(`default` for the configured harness, else `context`, `client`, `client.legacy`, ...), the
seconds its scenarios took, hooks included (a stdio server's start and stop are most of some
scenarios). A run updates the entries it measured and keeps the others, so a
shard's run does not forget the rest of the suite. A shard (`--shard 2/3`) reads the timing file
but writes beside it (`timings.shard-2-of-3.json`: what the shard measured), so every shard
splits by the same file; the timing file and the shards' files merge with
`jq -s 'reduce .[] as $t ({}; . * $t)'` (the CI workflow in `docs/ci/` does that).

The file also keeps each scenario's seconds (`scenarios`, by `file:line`). When the file is
there, `--shard` and `--jobs` balance buckets by these durations, and `--shard` cuts a feature
heavier than half a shard into its scenarios (`split_for_shards`); a feature it does not know
yet weighs the mean seconds per scenario of those it knows, times its scenario count; without
a file, buckets are balanced by scenario count. CI keeps the file between runs in its cache
(see docs/guides/ci.md).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from pathlib import Path

from mcpbdd.reporting.verdicts import Verdict
from mcpbdd.runner.plan import Unit

__all__ = [
    "DEFAULT_PASS",
    "Timings",
    "load_timings",
    "merge_units",
    "record_timings",
    "split_for_shards",
    "unit_weights",
    "written_to",
]

DEFAULT_PASS = "default"
"""The key of a run on the configured harness (no `--harness`)."""

Timings = dict[str, dict[str, float]]
"""feature file -> pass -> seconds."""


def load_timings(path: Path | None) -> Timings:
    """The timing file's entries; empty when there is none, or it is not one (a damaged cache is no reason to fail)."""
    if path is None:
        return {}
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    timings: Timings = {}
    for section in ("features", "scenarios"):
        entries = data.get(section) if isinstance(data, dict) else None
        if not isinstance(entries, dict):
            continue
        for where, passes in entries.items():
            if isinstance(passes, dict):
                timings[str(where)] = {str(k): float(v) for k, v in passes.items() if isinstance(v, int | float)}
    return timings


def record_timings(path: Path, verdicts: Iterable[Verdict], *, output: Path | None = None) -> Timings:
    """Add this run's durations (per feature file, scenario and pass) to the file at `path`, keeping what it did
    not measure; written to `output` (default: `path` itself)."""
    timings = load_timings(path) if output in (None, path) else {}  # a shard's file: what it measured, only
    path = output or path
    measured: Timings = {}
    for verdict in verdicts:
        column = verdict.column or DEFAULT_PASS
        for where in (verdict.feature, f"{verdict.feature}:{verdict.line}"):
            per_pass = measured.setdefault(where, {})
            per_pass[column] = per_pass.get(column, 0.0) + (verdict.elapsed or verdict.duration)
    for where, passes in measured.items():
        timings.setdefault(where, {}).update({k: round(v, 4) for k, v in passes.items()})
    path.parent.mkdir(parents=True, exist_ok=True)
    features = {w: dict(sorted(timings[w].items())) for w in sorted(timings) if not _is_scenario(w)}
    listed = sorted((w for w in timings if _is_scenario(w)), key=_order)
    scenarios = {w: dict(sorted(timings[w].items())) for w in listed}
    document = {"version": 1, "features": features, "scenarios": scenarios}
    path.write_text(json.dumps(document, indent=2) + "\n", encoding="utf-8")
    return timings


def written_to(path: Path, shard: tuple[int, int] | None) -> Path:
    """Where a run writes its durations: the timing file itself, or beside it for a shard
    (`timings.shard-2-of-3.json`, only what that shard measured), so every shard of a run splits by
    the same file even when the shards run one after another on one machine; CI merges the file
    it restored with the shards' files for the next run."""
    if shard is None:
        return path
    return path.with_name(f"{path.stem}.shard-{shard[0]}-of-{shard[1]}{path.suffix}")


def _is_scenario(where: str) -> bool:
    return where.rpartition(":")[2].isdigit()


def _order(where: str) -> tuple[str, int]:
    path, _, line = where.rpartition(":")
    return (path, int(line))


def _where(unit: Unit) -> str:
    """A unit's key in the timing file: `file` for a whole feature, `file:line` for one scenario."""
    if len(unit.locations) == 1 and unit.locations[0] != unit.filename:
        return unit.locations[0]
    return unit.filename


def unit_weights(units: Sequence[Unit], timings: Timings) -> dict[Unit, float] | None:
    """Each unit's expected seconds; None when the file knows none of them (then balance by scenario count)."""
    known: dict[Unit, float] = {}
    for unit in units:
        seconds = timings.get(_where(unit), {}).get(unit.harness or DEFAULT_PASS)
        if seconds is not None:
            known[unit] = seconds
    if not known:
        return None
    scenarios = sum(max(unit.scenarios, 1) for unit in known)
    per_scenario = sum(known.values()) / scenarios if scenarios else 0.0
    return {unit: known.get(unit, per_scenario * max(unit.scenarios, 1)) for unit in units}


def split_for_shards(units: Sequence[Unit], timings: Timings, shards: int) -> list[Unit]:
    """Heavy features cut into their scenarios, so N CI machines can finish together.

    A feature that takes more than half a shard's share of the time (by the timing file) is
    split into one unit per scenario (`file:line`; each example row of an outline is one);
    the rest stay whole. Without a timing file nothing is split. Each machine still runs a
    feature's scenarios in one behave process (`merge_units`), in file order.
    """
    weights = unit_weights(units, timings)
    if weights is None or shards < 2:
        return list(units)
    share = sum(weights.values()) / shards
    out: list[Unit] = []
    for unit in units:
        if weights[unit] > share / 2 and len(unit.lines) > 1:
            out += [
                Unit(unit.filename, (f"{unit.filename}:{line}",), 1, unit.harness, lines=(line,)) for line in unit.lines
            ]
        else:
            out.append(unit)
    return out


def merge_units(units: Sequence[Unit]) -> list[Unit]:
    """The scenarios of one feature (and pass) that a shard got, back in one unit: one behave run, in file order."""
    merged: dict[tuple[str, str | None], Unit] = {}
    for unit in units:
        key = (unit.filename, unit.harness)
        seen = merged.get(key)
        if seen is None:
            merged[key] = unit
            continue
        lines = tuple(sorted({*seen.lines, *unit.lines}))
        locations = tuple(f"{unit.filename}:{line}" for line in lines)
        merged[key] = Unit(unit.filename, locations, seen.scenarios + unit.scenarios, unit.harness, lines=lines)
    return list(merged.values())
