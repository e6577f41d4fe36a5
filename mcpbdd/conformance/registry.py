"""The conformance checks by id: what each checks, the spec section it cites, how to fix a failure.

One table, read by the steps (`Then the server passes the conformance check "..."`), by
`mcpbdd conformance` (`--only`, `--skip`, the summary) and by the documentation generator (a page
per check), so a check's id, rule and advice are written once. Each check is an async function of
a `Probe` that raises `ConformanceFailure` (an AssertionError: the server's fault, reported as a
failed step) or `NotApplicable` (the server offers nothing the check could exercise: the scenario
is skipped with that reason, never passed).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from mcpbdd.conformance.probe import Probe

__all__ = [
    "CHECKS",
    "REFUSED_CALLER",
    "WARNING",
    "ShouldNotKept",
    "SPEC",
    "CallerRefused",
    "Check",
    "ConformanceFailure",
    "NotApplicable",
    "check",
    "check_named",
]

SPEC = "https://modelcontextprotocol.io/specification/2025-11-25"
"""The specification the checks cite (2026-07-28 rules cite their SEP beside it)."""


class ConformanceFailure(AssertionError):
    """The server broke the rule a check states: the message names the call and what came back."""


class NotApplicable(Exception):
    """The server offers nothing this check could exercise (no resources, no tool asking for input, ...)."""


WARNING = "warning (SHOULD)"
"""How a `ShouldNotKept` reason begins (the summary's status for it reads it back from the skip message)."""


class ShouldNotKept(NotApplicable):
    """The server does not keep a SHOULD of the spec: a warning (the scenario is skipped saying so), a failure
    when the run is `--strict`. Never a pass."""


REFUSED_CALLER = "refused the caller"
"""How a `CallerRefused` reason begins (the summary's status for it reads it back from the skip message)."""


class CallerRefused(NotApplicable):
    """The check found nothing wrong, but the server refused the caller it called as on some of its calls: those
    were never judged. Not a pass: the summary reports it apart and says who the caller was."""


CheckFunction = Callable[["Probe"], Awaitable[None]]


@dataclass(frozen=True)
class Check:
    """One rule every server must keep, and where the spec says so."""

    id: str
    title: str
    section: str
    """The spec section's tag (`tools`, `resources`, `pagination`, ...): the feature's `@spec.<section>`."""
    url: str
    rule: str
    """What the spec requires, in one paragraph (the docs page's first section)."""
    fix: str
    """How to fix a failure (the docs page's second section)."""
    sends: str
    """Exactly what the check sends (the docs page says it, so a reader knows what a pass covers)."""
    blind: str
    """What the check cannot see: the defects a pass says nothing about."""
    run: CheckFunction
    modern_only: bool = False
    """Only on 2026-07-28 (caching hints, `resultType`, request state): not applicable on 2025-11-25."""


CHECKS: dict[str, Check] = {}
"""Every check, by id, in the order they were defined (the order the pack and the docs list them)."""


def check(  # noqa: PLR0913 - a declaration: every field is named where a check is defined
    id: str,
    *,
    title: str,
    section: str,
    url: str,
    rule: str,
    fix: str,
    sends: str,
    blind: str,
    modern_only: bool = False,
) -> Callable[[CheckFunction], CheckFunction]:
    """Register the decorated async function as the check `id`."""

    def register(function: CheckFunction) -> CheckFunction:
        if id in CHECKS:
            raise ValueError(f"the conformance check {id!r} is defined twice")
        CHECKS[id] = Check(id, title, section, url, rule, fix, sends, blind, function, modern_only)
        return function

    return register


def check_named(name: str) -> Check:
    """The check `name`, or a ValueError naming the known ones (a typo in a feature or on `--only`)."""
    _load()
    try:
        return CHECKS[name]
    except KeyError:
        known = ", ".join(CHECKS)
        raise ValueError(f"unknown conformance check {name!r}: use one of {known}") from None


def _load() -> None:
    """Import the modules that define checks (they register on import)."""
    from mcpbdd.conformance import calls, edge, forms, identity, leaks, listings, messages  # noqa: F401
