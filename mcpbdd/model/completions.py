"""Assertions about completions: the values a server suggests while a user types a prompt's argument or a
resource template's variable.

The harness asks `completion/complete` for the argument (a `Completing`) with what was typed so far
and keeps the answer as `Completions`. A server that declares no `completions` capability is never
asked (a client would not ask it), so a completion step against it is a broken specification,
saying so.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from mcpbdd.model.errors import Broken, VacuousCheck

__all__ = ["Completing", "Completions", "NoCompletionsCapability", "completions_are", "completions_include"]


class NoCompletionsCapability(Broken):
    """The server declares no completions, so asking it to complete anything specifies nothing it offers."""


_VARIABLES = re.compile(r"\{[+#./;?&]?([^}]*)\}")
"""An RFC 6570 expression; its group is the comma-separated variable names (each maybe with `*` or `:n`)."""


def template_variables(uri_template: str) -> list[str]:
    """The variable names of an RFC 6570 URI template, in order (`notes://{note_id}` -> `note_id`)."""
    names = (name.strip() for found in _VARIABLES.finditer(uri_template) for name in found.group(1).split(","))
    return [re.sub(r"(\*|:\d+)$", "", name) for name in names if name]


@dataclass(frozen=True)
class Completing:
    """What a completion is asked for: an argument of a prompt, or a variable of a resource template."""

    kind: Literal["prompt", "resource template"]
    name: str
    """The prompt's name, or the template's URI template (`notes://{note_id}`)."""
    argument: str

    @classmethod
    def prompt_argument(cls, prompt: str, argument: str) -> Completing:
        return cls("prompt", prompt, argument)

    @classmethod
    def template_variable(cls, uri_template: str, variable: str) -> Completing:
        """A variable of a URI template; one the template does not have is the specification's mistake, since no
        client would ask a server to complete it."""
        variables = template_variables(uri_template)
        if variable not in variables:
            has = f"its variables are {', '.join(variables)}" if variables else "it has no variables"
            raise VacuousCheck(
                f"The resource template {uri_template!r} has no variable {variable!r} ({has}): name one of its "
                "variables, as the server offers the template (`Then the server offers the resource template ...`)"
            )
        return cls("resource template", uri_template, variable)

    def __str__(self) -> str:
        """`the argument 'tag' of the prompt 'summarize_notes'`: how messages name it."""
        noun = "argument" if self.kind == "prompt" else "variable"
        return f"the {noun} {self.argument!r} of the {self.kind} {self.name!r}"


@dataclass(frozen=True)
class Completions:
    """One `completion/complete` answer: what was asked and the values the server suggested, in its order."""

    what: Completing
    prefix: str
    values: tuple[str, ...]

    def __str__(self) -> str:
        listed = ", ".join(repr(value) for value in self.values) or "nothing"
        return f"completing {self.what} from {self.prefix!r} suggested {listed}"


def _asked(completions: Completions | None) -> Completions:
    """A check of completions before any was asked for checks nothing."""
    if completions is None:
        raise VacuousCheck(
            "No completion was asked for yet in this scenario: put 'When the client asks to complete the argument "
            '"..." of the prompt "..." from "..."\' (or the variable "..." of the resource template "...") '
            "before this step"
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
