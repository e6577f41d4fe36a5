"""Asking a server to complete a prompt's argument (`completion/complete`), through either harness.

The client harness asks over its connection (`Client.complete`); the context harness runs the
in-process server's own `completion/complete` handler with the mock context. Either way a
server that declares no `completions` capability is not asked: a client would not ask it.
"""

from __future__ import annotations

from mcp_types import CompleteRequestParams, CompletionArgument, PromptReference
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from mcpbdd._sdk import lowlevel_server
from mcpbdd.harness.base import Harness, bounded
from mcpbdd.harness.client import ClientHarness
from mcpbdd.harness.context import ContextHarness
from mcpbdd.kit.principals import Principal, acting_as
from mcpbdd.model.completions import Completions, NoCompletionsCapability

__all__ = ["complete_prompt_argument"]

METHOD = "completion/complete"


def _undeclared(prompt: str, argument: str) -> NoCompletionsCapability:
    return NoCompletionsCapability(
        f"The server declares no completions capability, so no client asks it to complete the argument "
        f"{argument!r} of the prompt {prompt!r}: this specifies nothing the server offers (serve "
        "completion/complete, e.g. with @mcp.completion(), or drop the completion steps)"
    )


async def complete_prompt_argument(
    harness: Harness, caller: Principal | None, prompt: str, argument: str, prefix: str
) -> Completions:
    """The values the server suggests for `argument` of `prompt` when `caller` has typed `prefix`."""
    ref = PromptReference(type="ref/prompt", name=prompt)
    if isinstance(harness, ClientHarness):
        client = await harness.session(caller)
        if client.server_capabilities.completions is None:
            raise _undeclared(prompt, argument)
        with acting_as(caller, harness.tenant_claim):
            answer = await bounded(METHOD, harness.timeout, client.complete(ref, {"name": argument, "value": prefix}))
    elif isinstance(harness, ContextHarness):
        lowlevel = lowlevel_server(harness.server)
        era = harness.mock.protocol_version
        modern = era if era in MODERN_PROTOCOL_VERSIONS else None
        if lowlevel.get_capabilities(protocol_version=modern).completions is None:
            raise _undeclared(prompt, argument)
        params = CompleteRequestParams(ref=ref, argument=CompletionArgument(name=argument, value=prefix))
        raw = params.model_dump(mode="json", by_alias=True, exclude_none=True)
        answer = await bounded(METHOD, harness.timeout, harness.handle(caller, METHOD, params, raw))
    else:
        raise TypeError(f"a {type(harness).__name__} cannot ask its server for completions")
    return Completions(prompt, argument, prefix, tuple(answer.completion.values))
