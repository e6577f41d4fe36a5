"""Locust's statistics, read back from its CSV files into the `LoadResult` every load check reads.

Locust's master writes, under the `--csv` prefix, and keeps rewriting while it runs (so a master that was killed
leaves what it had measured):

- `<prefix>_stats.csv`: per name (here: per tool) the request and failure counts and the latency percentiles
  (50%, 95%, 99%, 100%, ...);
- `<prefix>_failures.csv`: per name and error text, the occurrences (the error text is a `CallFailed`'s, which
  names the channel, the reason and the code: `channels.parse_failure`);
- `<prefix>_stats_history.csv`: one row a second (per name with `--csv-full-history`) with the total counts so
  far, from which the timeline's calls and errors per second are the differences.

Locust aggregates, so the result has no per-call samples. Its percentiles are of response times it rounded to two
significant figures (a call of 147 ms counts as 150 ms), the precision a Locust report has too.
"""

from __future__ import annotations

import csv
from collections import Counter
from pathlib import Path

from mcpbdd.load.results import CHANNELS, CallChannel, LoadResult, ToolSummary
from mcpbdd.locust.channels import parse_failure

__all__ = ["AGGREGATED", "csv_files", "read_result"]

AGGREGATED = "Aggregated"
"""The name of Locust's total row."""


def csv_files(prefix: Path) -> dict[str, Path]:
    """The files Locust writes for `--csv prefix`, by what they hold."""
    return {kind: Path(f"{prefix}_{kind}.csv") for kind in ("stats", "failures", "stats_history", "exceptions")}


def _rows(path: Path) -> list[dict[str, str]]:
    if not path.is_file():
        return []
    with path.open(encoding="utf-8", newline="") as handle:
        return list(csv.DictReader(handle))


def _number(text: str | None) -> float:
    try:
        return float(text) if text not in (None, "", "N/A") else 0.0
    except ValueError:
        return 0.0


def read_result(prefix: Path, *, duration_s: float, stopped_because: str) -> LoadResult:
    """The `LoadResult` of the run whose CSV files are at `prefix` (engine `locust`, the CSVs as artifacts)."""
    files = csv_files(prefix)
    failures = _failures_by_tool(files["failures"])
    per_tool: dict[str, ToolSummary] = {}
    for row in _rows(files["stats"]):
        name = row.get("Name", "")
        if name == AGGREGATED or not name:
            continue
        calls = int(_number(row.get("Request Count")))
        failed = int(_number(row.get("Failure Count")))
        by_channel, reasons = failures.get(name, (dict.fromkeys(CHANNELS, 0), {}))
        # The failures CSV and the counts are written together; should they ever disagree, the counts win and
        # the difference is a transport error, so no failure goes uncounted and none is counted twice.
        unexplained = failed - sum(by_channel.values())
        if unexplained > 0:
            by_channel["transport_error"] += unexplained
        by_channel["ok"] = max(0, calls - failed)
        per_tool[name] = ToolSummary(
            tool=name,
            calls=calls,
            p50_ms=_number(row.get("50%")),
            p95_ms=_number(row.get("95%")),
            p99_ms=_number(row.get("99%")),
            max_ms=_number(row.get("100%")) or _number(row.get("Max Response Time")),
            by_channel=by_channel,
            reasons=reasons,
        )
    existing = {kind: path for kind, path in files.items() if path.is_file()}
    return LoadResult(
        engine="locust",
        duration_s=duration_s,
        stopped_because=stopped_because,
        per_tool=per_tool,
        timeline=_timeline(files["stats_history"]),
        artifacts=existing,
    )


def _failures_by_tool(path: Path) -> dict[str, tuple[dict[CallChannel, int], dict[str, int]]]:
    found: dict[str, tuple[dict[CallChannel, int], dict[str, int]]] = {}
    for row in _rows(path):
        name = row.get("Name", "")
        by_channel, reasons = found.setdefault(name, (dict.fromkeys(CHANNELS, 0), {}))
        count = int(_number(row.get("Occurrences")))
        failure = parse_failure(row.get("Error", ""))
        by_channel[failure.channel] += count
        if failure.reason is not None:
            reasons[failure.reason] = reasons.get(failure.reason, 0) + count
    return found


def _timeline(path: Path) -> list[tuple[float, int, int]]:
    """(second since the first row, calls in that second, errors in it), from the running totals."""
    totals: dict[int, tuple[int, int]] = {}
    for row in _rows(path):
        if row.get("Name") != AGGREGATED:
            continue
        stamp = int(_number(row.get("Timestamp")))
        calls, errors = int(_number(row.get("Total Request Count"))), int(_number(row.get("Total Failure Count")))
        previous = totals.get(stamp, (0, 0))
        totals[stamp] = (max(previous[0], calls), max(previous[1], errors))
    if not totals:
        return []
    first = min(totals)
    seconds: Counter[int] = Counter()
    failed: Counter[int] = Counter()
    last_calls = last_errors = 0
    for stamp in sorted(totals):
        calls, errors = totals[stamp]
        seconds[stamp - first] += max(0, calls - last_calls)
        failed[stamp - first] += max(0, errors - last_errors)
        last_calls, last_errors = max(last_calls, calls), max(last_errors, errors)
    end = max(seconds)
    return [(float(second), seconds[second], failed[second]) for second in range(end + 1)]
