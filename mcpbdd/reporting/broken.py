"""Failed or broken: the one rule every report and the console use to tell them apart.

*Failed* means the server did not meet an expectation (an `AssertionError`); *broken* means the
specification or its set-up is wrong (`mcpbdd.model.errors.Broken`, though an AssertionError so
that behave prints no traceback for it), or something else went wrong: any other exception, an
undefined or pending step, a failed hook. Allure's convention; the Allure formatter, the run's
progress marks and summary, `mcpbdd report`'s totals, the parity matrix, JUnit's `<error>` and the
word for a step in the console, JUnit and Cucumber Messages and JSON (`BROKEN:` rather than behave's
`ASSERT FAILED:`: `worded`; Cucumber has no broken status, so there the message says it) all follow it
from here.
"""

from __future__ import annotations

from typing import Any

from mcpbdd.model.errors import Broken
from mcpbdd.reporting.paths import short_paths

__all__ = ["BEHAVE_ASSERT", "BROKEN_WORD", "is_expectation", "scenario_kind", "step_kind", "worded"]

BEHAVE_ASSERT = "ASSERT FAILED: "
"""What behave puts before the message of any AssertionError a step raised."""
BROKEN_WORD = "BROKEN: "
"""What the console puts there instead when the AssertionError is `Broken`."""

_BROKEN_STATUSES = ("undefined", "pending", "error", "hook_error", "cleanup_error")


def is_expectation(exception: BaseException) -> bool:
    """True for an expectation the server did not meet (failed); False for a mistake or an error (broken)."""
    return isinstance(exception, AssertionError) and not isinstance(exception, Broken)


def _status(entity: Any) -> str:
    status = getattr(entity, "status", "")
    return str(getattr(status, "name", status))


def step_kind(step: Any) -> str:
    """`passed`, `failed`, `broken` or `skipped` for one behave step that ran (or did not)."""
    status = _status(step)
    if status == "passed":
        return "passed"
    exception = getattr(step, "exception", None)
    if exception is not None and status in ("failed", "error"):
        return "failed" if is_expectation(exception) else "broken"
    if status == "failed":
        return "failed"
    if status in _BROKEN_STATUSES:
        return "broken"
    return "skipped"


def scenario_kind(scenario: Any) -> str:
    """`passed`, `failed`, `broken` or `skipped` for a finished behave scenario: a failed hook breaks it, else the
    first step that did not pass decides (as the Allure report shows it)."""
    if getattr(scenario, "hook_failed", False):
        return "broken"
    for step in getattr(scenario, "all_steps", ()):
        kind = step_kind(step)
        if kind != "passed":
            return kind
    status = _status(scenario)
    if status in ("failed", *_BROKEN_STATUSES):
        return "broken" if status != "failed" else "failed"
    return "passed" if status == "passed" else "skipped"


def worded(step: Any) -> str:
    """A failed step's message as the console prints it: `BROKEN: ...` for a broken step, where behave wrote
    `ASSERT FAILED: ...` (a format with no broken status says it in the message); tracebacks' paths shortened."""
    message = str(getattr(step, "error_message", None) or "")
    if message.startswith(BEHAVE_ASSERT) and step_kind(step) == "broken":
        message = BROKEN_WORD + message[len(BEHAVE_ASSERT) :]
    return short_paths(message)
