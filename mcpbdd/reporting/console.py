"""What `mcpbdd run` prints while behave runs: one line per scenario by default, every step on request.

A newcomer running `make demo` wants to see which scenarios passed and why one failed, not
700 step lines: by default `mcpbdd run` prints with `ScenarioLines` (behave's `progress3`:
each feature's name once, then a line per scenario with a dot per step, and a failing step's
message in full). `mcpbdd run --steps` prints every step instead, with `PrettyFormatter`.

Both say *broken* for a step the specification got wrong (`mcpbdd.model.errors.Broken`: see
`mcpbdd.reporting.broken`), where behave says `ASSERT FAILED` for every AssertionError:
`BROKEN in step ...` / `BROKEN: the doc string is not JSON ...`. Both name a Scenario Outline row
by its example values, as the Allure report does
(`Adding numbers -- a=1, b=2 [client harness]`, not `-- @1.2  [client harness]`).
`PrettyFormatter` is behave's `pretty` with one more fix: behave 1.3 prints a feature's header
a second time when the feature has a Background (its `background()` replays the pending
statement, which is still the feature). Importing `mcpbdd.behave` (every project's
environment.py does) registers it as `pretty`, so a plain `behave -f pretty` prints each
header once too.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Sequence
from typing import Any

from behave.formatter import _registry
from behave.formatter.pretty import PrettyFormatter as _BehavePretty
from behave.formatter.progress import ScenarioStepProgressFormatter

from mcpbdd.reporting.broken import BEHAVE_ASSERT, BROKEN_WORD, step_kind
from mcpbdd.reporting.names import outline_row_name

__all__ = [
    "RUNNER_BANNER",
    "STEPS_FORMAT",
    "SUMMARY_FORMAT",
    "PrettyFormatter",
    "ScenarioLines",
    "register",
    "without_banner",
]

SUMMARY_FORMAT = "mcpbdd.reporting.console:ScenarioLines"
"""The console format of `mcpbdd run` without `--steps`: a line per scenario, failures in full."""
STEPS_FORMAT = "mcpbdd.reporting.console:PrettyFormatter"
"""The console format of `mcpbdd run --steps`: every step (by its module path, so no registration is needed)."""
RUNNER_BANNER = "USING RUNNER: "
"""A line behave 1.3 prints at every start, whatever the options: nothing a reader can act on."""


@contextlib.contextmanager
def _row_named(scenario: Any) -> Iterator[None]:
    """While a formatter prints it, an Outline row's name is its example values (then behave's again).

    Only for the print: behave's own name stays what every other formatter, JUnit and the
    timing file see.
    """
    original = getattr(scenario, "name", None)
    if not isinstance(original, str) or getattr(scenario, "_row", None) is None:
        yield
        return
    scenario.name = outline_row_name(scenario, original)
    try:
        yield
    finally:
        scenario.name = original


@contextlib.contextmanager
def _worded(steps: Sequence[Any]) -> Iterator[None]:
    """While a formatter prints them, a broken step's message says `BROKEN:` (then behave's again).

    Only for the print: the other formatters read the exception, not behave's wording.
    """
    originals = [(step, step.error_message) for step in steps if _says_assert(step)]
    for step, message in originals:
        step.error_message = BROKEN_WORD + message[len(BEHAVE_ASSERT) :]
    try:
        yield
    finally:
        for step, message in originals:
            step.error_message = message


def _says_assert(step: Any) -> bool:
    message = getattr(step, "error_message", None)
    return isinstance(message, str) and message.startswith(BEHAVE_ASSERT) and step_kind(step) == "broken"


class ScenarioLines(ScenarioStepProgressFormatter):  # type: ignore[misc]  # behave ships no types: Any
    """behave's `progress3` (a line per scenario, a failing step in full), Outline rows named by their values."""

    name = "mcpbdd.scenario-lines"
    description = "a line per scenario, a failing step in full (mcpbdd run's default)"

    def scenario(self, scenario: Any) -> None:
        with _row_named(scenario):
            super().scenario(scenario)

    def report_current_scenario_failures(self) -> None:
        """behave's `FAILURE in step ...` for an unmet expectation; `BROKEN in step ...` for a broken one."""
        broken = [step for step in self.failed_steps if step_kind(step) == "broken"]
        failed = [step for step in self.failed_steps if step not in broken]
        self._report_problem_steps("FAILURE", failed)
        with _worded(broken):
            self._report_problem_steps("BROKEN", broken)
        self._report_problem_steps("ERROR", self.error_steps)


class PrettyFormatter(_BehavePretty):  # type: ignore[misc]  # behave ships no types: its formatter is Any
    """behave's `pretty`: each feature's header once (with a Background too), Outline rows named by their values."""

    statement: Any  # behave's pretty formatter keeps here what it prints next (a feature, background or scenario)

    def background(self, background: Any) -> None:
        if self.statement is self.current_feature:
            self.statement = None  # its header is printed already (in feature())
        super().background(background)

    def result(self, step: Any) -> None:
        with _worded([step]):
            super().result(step)

    def print_statement(self) -> None:
        statement = self.statement
        if statement is None:
            return
        with _row_named(statement):
            super().print_statement()


def register() -> None:
    """Make `pretty` (behave's default console format) this module's formatter."""
    _registry.register_as("pretty", PrettyFormatter)


def without_banner(text: str) -> str:
    """`text` (complete lines of a behave process's output) without behave's `USING RUNNER:` line."""
    if RUNNER_BANNER not in text:
        return text
    return "".join(line for line in text.splitlines(keepends=True) if not line.startswith(RUNNER_BANNER))
