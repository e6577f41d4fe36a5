"""The timing file: how long each feature file took on each pass, so `--shard I/N` splits by time.

Every `mcpbdd run` writes `reports/timings.json` (`--timings FILE`): per feature file and pass
(`default` for the configured harness, else `context`, `client`, `client.legacy`, ...), the
seconds its scenarios took. A run updates the entries it measured and keeps the others, so a
shard's run does not forget the rest of the suite, and the files of several shards merge with
`jq -s 'reduce .[] as $t ({}; . * $t)'` (the CI workflow in `docs/ci/` does that).

When the file is there, `--shard` and `--jobs` balance buckets by these durations; a feature
it does not know yet weighs the mean seconds per scenario of those it knows, times its
scenario count; without a file, buckets are balanced by scenario count. CI keeps the file
between runs in its cache (see the README).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from pathlib import Path

from mcpbdd.cli.plan import Unit
from mcpbdd.reporting.verdicts import Verdict

__all__ = ["DEFAULT_PASS", "Timings", "load_timings", "record_timings", "unit_weights"]

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
    features = data.get("features") if isinstance(data, dict) else None
    if not isinstance(features, dict):
        return {}
    timings: Timings = {}
    for feature, passes in features.items():
        if isinstance(passes, dict):
            timings[str(feature)] = {str(k): float(v) for k, v in passes.items() if isinstance(v, int | float)}
    return timings


def record_timings(path: Path, verdicts: Iterable[Verdict]) -> Timings:
    """Add this run's durations (per feature file and pass) to the file at `path`, keeping what it did not measure."""
    timings = load_timings(path)
    measured: Timings = {}
    for verdict in verdicts:
        column = verdict.column or DEFAULT_PASS
        per_pass = measured.setdefault(verdict.feature, {})
        per_pass[column] = per_pass.get(column, 0.0) + verdict.duration
    for feature, passes in measured.items():
        timings.setdefault(feature, {}).update({k: round(v, 4) for k, v in passes.items()})
    path.parent.mkdir(parents=True, exist_ok=True)
    ordered = {feature: dict(sorted(timings[feature].items())) for feature in sorted(timings)}
    path.write_text(json.dumps({"version": 1, "features": ordered}, indent=2) + "\n", encoding="utf-8")
    return timings


def unit_weights(units: Sequence[Unit], timings: Timings) -> dict[Unit, float] | None:
    """Each unit's expected seconds; None when the file knows none of them (then balance by scenario count)."""
    known: dict[Unit, float] = {}
    for unit in units:
        seconds = timings.get(unit.filename, {}).get(unit.harness or DEFAULT_PASS)
        if seconds is not None:
            known[unit] = seconds
    if not known:
        return None
    scenarios = sum(max(unit.scenarios, 1) for unit in known)
    per_scenario = sum(known.values()) / scenarios if scenarios else 0.0
    return {unit: known.get(unit, per_scenario * max(unit.scenarios, 1)) for unit in units}
