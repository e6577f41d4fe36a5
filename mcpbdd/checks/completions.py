"""Asking a server to complete a prompt's argument or a resource template's variable (`completion/complete`),
through either harness.

The client harness asks over its connection (`Client.complete`); the context harness runs the
in-process server's own `completion/complete` handler with the mock context. Either way a
server that declares no `completions` capability is not asked: a client would not ask it.
"""

from __future__ import annotations

from mcp_types import CompleteRequestParams, CompletionArgument, PromptReference, ResourceTemplateReference
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from mcpbdd._sdk import lowlevel_server
from mcpbdd.harness.base import Harness, bounded
from mcpbdd.harness.client import ClientHarness
from mcpbdd.harness.context import ContextHarness
from mcpbdd.kit.principals import Principal, acting_as
from mcpbdd.model.completions import Completing, Completions, NoCompletionsCapability

__all__ = ["complete", "complete_prompt_argument", "complete_template_variable"]

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
