"""What each worker told the master it did: the proof that every worker took part, and the run's timeline.

The master keeps, in `workers.json` beside the CSVs, the latest report of every worker (by Locust client id):
`{"calls": {tool: n}, "seconds": {unix second: [calls, errors]}, "callers": [...], "written": {caller: [n, ...]},
"pid": n}` (`user.py`; `written`: the numbers of each caller's acknowledged calls that name their call).
Locust's own history rows only change when a worker's statistics arrive (every 3 s), so the timeline of a
Locust run is the sum of the workers' seconds instead: exact to the second, on the workers' clocks (on several
machines, as exact as their clocks agree).
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

__all__ = ["read_workers", "timeline_of_workers", "written_of_workers"]


def read_workers(path: Path | None) -> dict[str, dict[str, Any]]:
    """Every worker's last report ({} when there is no file or it cannot be read: no worker reported)."""
    if path is None or not path.is_file():
        return {}
    try:
        document = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    if not isinstance(document, dict):
        return {}
    return {str(client): report for client, report in document.items() if isinstance(report, dict)}


def timeline_of_workers(workers: dict[str, dict[str, Any]]) -> tuple[list[tuple[float, int, int]], float]:
    """(second since the first call, calls started in it, errors of them) for every second, and the seconds
    from the first call's second to the end of the last's ([] and 0.0 when no worker counted a call)."""
    calls: Counter[int] = Counter()
    errors: Counter[int] = Counter()
    for report in workers.values():
        seconds = report.get("seconds")
        for second, counts in seconds.items() if isinstance(seconds, dict) else ():
            if str(second).isdigit() and isinstance(counts, list) and len(counts) == 2:
                calls[int(second)] += int(counts[0])
                errors[int(second)] += int(counts[1])
    if not calls:
        return [], 0.0
    first, last = min(calls), max(calls)
    timeline = [(float(s - first), calls[s], errors[s]) for s in range(first, last + 1)]
    return timeline, float(last - first + 1)


def written_of_workers(workers: dict[str, dict[str, Any]]) -> dict[str, list[int]]:
    """Every caller's acknowledged calls that name their call (`{caller: [n, ...]}`), over all workers."""
    written: dict[str, set[int]] = {}
    for report in workers.values():
        found = report.get("written")
        for caller, numbers in found.items() if isinstance(found, dict) else ():
            if isinstance(numbers, list):
                written.setdefault(str(caller), set()).update(n for n in numbers if isinstance(n, int) and n > 0)
    return {caller: sorted(numbers) for caller, numbers in written.items()}
