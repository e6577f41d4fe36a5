"""What one run is asked to do, as the runner reads it: `mcpbdd run`'s options once parsed, and where a run writes.

The command line (`mcpbdd.cli.options`) parses what a user types into a `RunOptions`; `mcpbdd conformance`
builds one for the pack directly. The runner reads nothing else of the command line, so a caller in Python
runs the specifications with the same options: `run(RunOptions(harness=["context", "client"]), ["features"])`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

__all__ = [
    "DEFAULT_HTML",
    "DEFAULT_JUNIT",
    "DEFAULT_RESULTS",
    "DEFAULT_TIMINGS",
    "REPORTS",
    "RunOptions",
]

REPORTS = Path("reports")
DEFAULT_RESULTS = REPORTS / "allure-results"
DEFAULT_JUNIT = REPORTS / "junit"
DEFAULT_HTML = REPORTS / "html"
DEFAULT_TIMINGS = REPORTS / "timings.json"


@dataclass(frozen=True)
class RunOptions:
    """One run's options (each as `mcpbdd run --help` describes the option of the same name); the defaults are
    the command's."""

    harness: list[str] | None = None
    """The harnesses, a pass each (`context`, `client`, a parity column); `["all"]` for the parity matrix's
    columns; None for the configured one."""
    jobs: int = 1
    shard: tuple[int, int] | None = None
    results: Path = DEFAULT_RESULTS
    junit: Path = DEFAULT_JUNIT
    no_junit: bool = False
    steps: bool = False
    keep_results: bool = False
    coverage: Path | None = None
    no_coverage: bool = False
    update_snapshots: bool = False
    update_screenshots: bool = False
    require: list[str] = field(default_factory=list)
    timings: Path = DEFAULT_TIMINGS
    messages: Path | None = None
    cucumber_json: Path | None = None
    rerun_failures: int = 0
    parity: Path = REPORTS
