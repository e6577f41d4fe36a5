"""Asking a server to complete a prompt's argument or a resource template's variable (`completion/complete`),
through either harness, and the checks of what it suggested (`mcpbdd/steps/discovery.py`).

The client harness asks over its connection (`Client.complete`); the context harness runs the
in-process server's own `completion/complete` handler with the mock context. Either way a
server that declares no `completions` capability is not asked: a client would not ask it.
"""

from __future__ import annotations

from collections.abc import Sequence

from mcp_types import CompleteRequestParams, CompletionArgument, PromptReference, ResourceTemplateReference
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from mcpbdd._sdk import lowlevel_server
from mcpbdd.harness.base import Harness, bounded
from mcpbdd.harness.client import ClientHarness
from mcpbdd.harness.context import ContextHarness
from mcpbdd.kit.principals import Principal, acting_as
from mcpbdd.model.completions import Completing, Completions, NoCompletionsCapability
from mcpbdd.model.errors import VacuousCheck

__all__ = [
    "complete",
    "complete_prompt_argument",
    "complete_template_variable",
    "completions_are",
    "completions_include",
]

METHOD = "completion/complete"


def _undeclared(what: Completing) -> NoCompletionsCapability:
    return NoCompletionsCapability(
        f"The server declares no completions capability, so no client asks it to complete {what}: this specifies "
        "nothing the server offers (serve completion/complete, e.g. with @mcp.completion(), or drop the completion "
        "steps)"
    )


async def complete(harness: Harness, caller: Principal | None, what: Completing, prefix: str) -> Completions:
    """The values the server suggests for `what` when `caller` has typed `prefix`."""
    ref: PromptReference | ResourceTemplateReference = (
        PromptReference(type="ref/prompt", name=what.name)
        if what.kind == "prompt"
        else ResourceTemplateReference(type="ref/resource", uri=what.name)
    )
    if isinstance(harness, ClientHarness):
        client = await harness.session(caller)
        if client.server_capabilities.completions is None:
            raise _undeclared(what)
        with acting_as(caller, harness.tenant_claim):
            asked = client.complete(ref, {"name": what.argument, "value": prefix})
            answer = await bounded(METHOD, harness.timeout, asked)
    elif isinstance(harness, ContextHarness):
        lowlevel = lowlevel_server(harness.server)
        era = harness.mock.protocol_version
        modern = era if era in MODERN_PROTOCOL_VERSIONS else None
        if lowlevel.get_capabilities(protocol_version=modern).completions is None:
            raise _undeclared(what)
        params = CompleteRequestParams(ref=ref, argument=CompletionArgument(name=what.argument, value=prefix))
        raw = params.model_dump(mode="json", by_alias=True, exclude_none=True)
        answer = await bounded(METHOD, harness.timeout, harness.handle(caller, METHOD, params, raw))
    else:
        raise TypeError(f"a {type(harness).__name__} cannot ask its server for completions")
    return Completions(what, prefix, tuple(answer.completion.values))


async def complete_prompt_argument(
    harness: Harness, caller: Principal | None, prompt: str, argument: str, prefix: str
) -> Completions:
    """The values the server suggests for `argument` of `prompt` when `caller` has typed `prefix`."""
    return await complete(harness, caller, Completing.prompt_argument(prompt, argument), prefix)


async def complete_template_variable(
    harness: Harness, caller: Principal | None, uri_template: str, variable: str, prefix: str
) -> Completions:
    """The values the server suggests for `variable` of the resource template `uri_template` from `prefix`."""
    return await complete(harness, caller, Completing.template_variable(uri_template, variable), prefix)


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
