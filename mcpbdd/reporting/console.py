"""What `mcpbdd run` prints while behave runs: one line per scenario by default, every step on request.

A newcomer running `make demo` wants to see which scenarios passed and why one failed, not
700 step lines: by default `mcpbdd run` gives behave the `progress3` format (each feature's
name once, then a line per scenario with a dot per step, and a failing step's message in
full). `mcpbdd run --steps` prints every step instead, with `PrettyFormatter` below.

`PrettyFormatter` is behave's `pretty` with one fix: behave 1.3 prints a feature's header a
second time when the feature has a Background (its `background()` replays the pending
statement, which is still the feature). Importing `mcpbdd.behave` (every project's
environment.py does) registers it as `pretty`, so a plain `behave -f pretty` prints each
header once too.
"""

from __future__ import annotations

from typing import Any

from behave.formatter import _registry
from behave.formatter.pretty import PrettyFormatter as _BehavePretty

__all__ = ["RUNNER_BANNER", "STEPS_FORMAT", "SUMMARY_FORMAT", "PrettyFormatter", "register", "without_banner"]

SUMMARY_FORMAT = "progress3"
"""The console format of `mcpbdd run` without `--steps`: a line per scenario, failures in full."""
STEPS_FORMAT = "mcpbdd.reporting.console:PrettyFormatter"
"""The console format of `mcpbdd run --steps`: every step (by its module path, so no registration is needed)."""
RUNNER_BANNER = "USING RUNNER: "
"""A line behave 1.3 prints at every start, whatever the options: nothing a reader can act on."""


class PrettyFormatter(_BehavePretty):
    """behave's `pretty`, printing a feature's header once when the feature has a Background."""

    def background(self, background: Any) -> None:
        if self.statement is self.current_feature:
            self.statement = None  # its header is printed already (in feature())
        super().background(background)


def register() -> None:
    """Make `pretty` (behave's default console format) this module's formatter."""
    _registry.register_as("pretty", PrettyFormatter)


def without_banner(text: str) -> str:
    """`text` (complete lines of a behave process's output) without behave's `USING RUNNER:` line."""
    if RUNNER_BANNER not in text:
        return text
    return "".join(line for line in text.splitlines(keepends=True) if not line.startswith(RUNNER_BANNER))
