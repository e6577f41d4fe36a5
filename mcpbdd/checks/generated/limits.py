"""What a transport carries: an input beyond it is a transport/SDK limit, not the tool's failure.

Deeply nested arguments are an adversarial input, but the SDK has limits of its own before a
tool ever sees them. Measured on mcp 2.3.0 (mcp-types 2.3.0, pydantic-core's parser and
serialiser) with an echo tool, in argument depth (the arguments object is level 1, so
`{"v": [[]]}` is 3 deep):

  * the SDK's client serialises arguments up to 256 levels (`CLIENT_ARGUMENT_DEPTH`); deeper,
    `Client.call_tool` raises `ValueError: Maximum serialization depth exceeded` before anything
    is sent, on every transport (in-process, stdio, HTTP) and in both modes;
  * over stdio the server parses each line with pydantic-core's JSON parser, whose recursion
    limit leaves 199 levels for the arguments (`STDIO_ARGUMENT_DEPTH`); a deeper line fails to
    parse, its id is never read, and the SDK's stdio server drops it: the call never gets an
    answer and the client waits for its timeout. (Seen as a "hang" of the reference time server
    before mcpbdd knew this.) The same parser on the client side would drop an answer that deep;
  * over Streamable HTTP in legacy mode the server answers such a request with the parse error
    -32700 "... recursion limit exceeded ..."; in auto mode it accepts arguments up to the
    client's limit;
  * the context harness sends nothing over a wire: no limit.

So generated calls keep their deep values well inside these limits (`adversarial.DEEP`), check
every input against the stdio parser before sending it over stdio (`unsendable`), and count a
call the SDK refused to send, or a parse error about nesting, as the transport's limit
(`client_limit`, `answered_limit`): reported, not a verdict against the tool. The figures and
`nesting_depth` live in `mcpbdd.harness.limits`, where every harness refuses arguments deeper
than the client carries with the same transport failure.
"""

from __future__ import annotations

from typing import Any

from mcpbdd._text import clip
from mcpbdd.harness.base import Harness
from mcpbdd.harness.limits import (
    CLIENT_ARGUMENT_DEPTH,
    SERIALIZATION_DEPTH_ERROR,
    STDIO_ARGUMENT_DEPTH,
    TRANSPORT_LIMIT,
    nesting_depth,
    too_deep,
)
from mcpbdd.model.outcome import Channel, Outcome

__all__ = [
    "CLIENT_ARGUMENT_DEPTH",
    "STDIO_ARGUMENT_DEPTH",
    "TRANSPORT_LIMIT",
    "answered_limit",
    "client_limit",
    "nesting_depth",
    "unsendable",
]

_CLIENT_LIMIT_MESSAGES = (SERIALIZATION_DEPTH_ERROR, "recursion limit exceeded")
_PARSE_ERROR = -32700


def unsendable(harness: Harness, tool: str, arguments: dict[str, Any]) -> str | None:
    """Why these arguments cannot reach the tool over the harness's transport (None: they can).

    Only stdio needs this check before sending: there a line the server cannot parse gets no
    answer at all, so the call would wait for its whole timeout and look like a hang. The
    stdio client harness makes the same check (`mcpbdd.harness.limits.too_deep`) on every call;
    asking here first keeps such an input from being sent, and timed, at all.
    """
    connector = getattr(harness, "connector", None)
    if getattr(connector, "kind", None) != "stdio":
        return None
    return too_deep(arguments, stdio=True)


def client_limit(error: BaseException | str, arguments: dict[str, Any]) -> str | None:
    """The transport-limit sentence for the SDK client's failure to carry a call (None: not that).

    `error` is the exception the client raised, or the harness's "Type: message" of it.
    """
    text = error if isinstance(error, str) else f"{type(error).__name__}: {error}"
    if not (text.startswith("RecursionError") or any(message in text for message in _CLIENT_LIMIT_MESSAGES)):
        return None
    return (
        f"{TRANSPORT_LIMIT}: the SDK client could not carry the call, not the tool's failure: the arguments nest "
        f"{nesting_depth(arguments)} levels deep ({clip(text, 120)}; the client serialises at most "
        f"{CLIENT_ARGUMENT_DEPTH} levels on mcp 2.3.0)"
    )


def answered_limit(outcome: Outcome) -> str | None:
    """The transport-limit sentence for a parse error about nesting the server's SDK answered (None: not that)."""
    error = outcome.error
    if outcome.channel is not Channel.PROTOCOL_ERROR or error is None or error.code != _PARSE_ERROR:
        return None
    if "recursion limit" not in error.message:
        return None
    return (
        f"{TRANSPORT_LIMIT}: the server's SDK could not parse the request, not the tool's failure: the arguments "
        f"nest {nesting_depth(outcome.arguments or {})} levels deep (-32700 {clip(error.message, 120)!r})"
    )
