"""Assertions about completions: the values a server suggests while a user types a prompt's argument.

The harness asks `completion/complete` for the argument with what was typed so far and keeps the
answer as `Completions`. A server that declares no `completions` capability is never asked (a
client would not ask it), so a completion step against it is a broken specification, saying so.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from mcpbdd.model.errors import Broken
from mcpbdd.model.expect import VacuousCheck

__all__ = ["Completions", "NoCompletionsCapability", "completions_are", "completions_include"]


class NoCompletionsCapability(Broken):
    """The server declares no completions, so asking it to complete anything specifies nothing it offers."""


@dataclass(frozen=True)
class Completions:
    """One `completion/complete` answer: what was asked and the values the server suggested, in its order."""

    prompt: str
    argument: str
    prefix: str
    values: tuple[str, ...]

    def __str__(self) -> str:
        listed = ", ".join(repr(value) for value in self.values) or "nothing"
        return (
            f"completing the argument {self.argument!r} of the prompt {self.prompt!r} from {self.prefix!r} "
            f"suggested {listed}"
        )


def _asked(completions: Completions | None) -> Completions:
    """A check of completions before any was asked for checks nothing."""
    if completions is None:
        raise VacuousCheck(
            "No completion was asked for yet in this scenario: put 'When the client asks to complete the argument "
            '"..." of the prompt "..." from "..."\' before this step'
        )
    return completions


def completions_include(completions: Completions | None, value: str) -> None:
    """`value` is among the suggestions."""
    completions = _asked(completions)
    if not value:
        raise VacuousCheck("The completion to look for is empty: write the value a user should be offered")
    if value not in completions.values:
        raise AssertionError(f"Expected the completions to include {value!r}, but {completions}")


def completions_are(completions: Completions | None, expected: Sequence[str]) -> None:
    """The suggestions are exactly `expected`, in that order (the order a user sees them in)."""
    completions = _asked(completions)
    if not expected:
        raise VacuousCheck(
            "The table of completions is empty: list the values one per row (say 'Then the completions include' "
            "for one of them)"
        )
    if tuple(expected) != completions.values:
        raise AssertionError(f"Expected the completions {', '.join(map(repr, expected))}, but {completions}")
