"""behave's command line for one process of `mcpbdd run`: mcpbdd's formatters, the console format, the pass.

behave pairs `--outfile`s with `--format`s by position, so mcpbdd's formatters (each with its file) come
first; the console format follows and writes to stdout: the user's own when they gave one, else a line per
scenario, or every step with `--steps` (see `mcpbdd.reporting.console`). Then JUnit, colour, the pass's
`-D` options and tags (`mcpbdd.runner.passes`), the user's options and paths, and last the pass's `-D`
options that must win over the user's (behave keeps the last `-D` of a name).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from mcpbdd.model.kinds import HarnessKind, harness_tags
from mcpbdd.runner.formatters import ALLURE, FORMATTERS, PROGRESS, STEPS, SUMMARY
from mcpbdd.runner.passes import pass_options, pass_overrides

__all__ = ["PINNED_TO_OTHERS", "ReportFiles", "behave_args"]


def _has_format(passthrough: Sequence[str]) -> bool:
    return any(arg in ("-f", "--format") or arg.startswith(("--format=", "-f")) for arg in passthrough)


def _has_color(passthrough: Sequence[str]) -> bool:
    return any(arg.split("=", 1)[0] in ("--color", "--no-color", "-C") for arg in passthrough)


@dataclass(frozen=True)
class ReportFiles:
    """Where one behave process writes mcpbdd's reports: what `behave_args` turns into `--format`/`--outfile` pairs."""

    results: Path
    """Allure's results folder."""
    events: Path | None = None
    """The progress events the parent reads (`mcpbdd.runner.progress`)."""
    junit: Path | None = None
    """JUnit's folder (None: no JUnit)."""
    formats: Sequence[tuple[str, Path]] = ()
    """mcpbdd's other formatters: (a name in `FORMATTERS`, its outfile) pairs."""


def behave_args(
    files: ReportFiles,
    harness: str | None,
    passthrough: Sequence[str],
    *,
    color: bool = False,
    pinned_elsewhere: bool = False,
    stdio_command: str | None = None,
    steps: bool = False,
) -> list[str]:
    """behave's arguments for one process writing its reports to `files`."""
    args = ["--format", FORMATTERS[ALLURE], "--outfile", str(files.results)]
    if files.events is not None:
        args += ["--format", FORMATTERS[PROGRESS], "--outfile", str(files.events)]
    for name, outfile in files.formats:  # mcpbdd's other formatters: verdicts, Cucumber Messages
        args += ["--format", FORMATTERS[name], "--outfile", str(outfile)]
    if not _has_format(passthrough):
        args += ["--format", FORMATTERS[STEPS if steps else SUMMARY]]
    if not any(arg in ("--no-skipped", "--show-skipped") for arg in passthrough):
        args += ["--no-skipped"]  # a run filtered by tags reports what ran, not everything it left out
    if files.junit is not None:
        args += ["--junit", "--junit-directory", str(files.junit)]
    if color and not _has_color(passthrough):
        args += ["--color", "always"]
    if harness is not None:
        args += pass_options(harness, pinned_elsewhere, stdio_command)
    return [*args, *passthrough, *pass_overrides(harness, stdio_command)]


PINNED_TO_OTHERS = {
    kind: " and ".join(f"not @{tag}" for other in HarnessKind if other is not kind for tag in harness_tags(other))
    for kind in HarnessKind
}
"""In a run over several harnesses, each pass leaves out the scenarios a tag pins to another harness:
that harness's own pass runs them, so no scenario is reported twice."""
