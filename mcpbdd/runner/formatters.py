"""The behave formatters `mcpbdd run` adds, in one table: a short name -> behave's `module:Class`.

behave takes a formatter by its `module:Class` path (`--format mcpbdd.reporting.verdicts:VerdictFormatter`),
as its own table of built-in formats does (`behave.formatter._builtins`). The run names each one here once,
and every place that passes one to behave or imports one ahead (`mcpbdd.runner.workers`) reads it from this
table. The two console formats are `mcpbdd.reporting.console`'s own (it documents what they print).
"""

from __future__ import annotations

from mcpbdd.reporting.console import STEPS_FORMAT, SUMMARY_FORMAT

__all__ = ["ALLURE", "FORMATTERS", "MESSAGES", "PROGRESS", "STEPS", "SUMMARY", "VERDICTS", "formatter_module"]

ALLURE, PROGRESS, VERDICTS, MESSAGES, SUMMARY, STEPS = "allure", "progress", "verdicts", "messages", "summary", "steps"

FORMATTERS: dict[str, str] = {
    ALLURE: "mcpbdd.reporting.allure_formatter:AllureFormatter",  # the Allure results (--results)
    PROGRESS: "mcpbdd.runner.progress:ProgressFormatter",  # a character per scenario: the progress line's events
    VERDICTS: "mcpbdd.reporting.verdicts:VerdictFormatter",  # a line per scenario: timings, JUnit, parity
    MESSAGES: "mcpbdd.reporting.messages:MessagesFormatter",  # Cucumber Messages (--messages, --cucumber-json)
    SUMMARY: SUMMARY_FORMAT,  # the console: a line per scenario (the default)
    STEPS: STEPS_FORMAT,  # the console: every step (--steps)
}
"""Every formatter `mcpbdd run` may pass to behave, by the name the run knows it by."""


def formatter_module(name: str) -> str:
    """The module behave imports for the formatter `name` (what a forked worker imports ahead)."""
    return FORMATTERS[name].partition(":")[0]
