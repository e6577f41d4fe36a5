"""Completions as data: what a client asks a server to complete (a prompt's argument or a resource template's
variable) and the values the server suggested while a user types; the checks of them are `mcpbdd.checks.completions`.

The harness asks `completion/complete` for the argument (a `Completing`) with what was typed so far
and keeps the answer as `Completions`. A server that declares no `completions` capability is never
asked (a client would not ask it), so a completion step against it is a broken specification,
saying so.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from mcpbdd.model.errors import Broken, VacuousCheck

__all__ = ["Completing", "Completions", "NoCompletionsCapability", "template_variables"]


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
