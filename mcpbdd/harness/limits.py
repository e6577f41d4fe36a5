"""What the SDK's transports carry, checked the same way on every harness path.

Deeply nested arguments meet limits of the SDK before any tool sees them (measured on mcp 2.3.0;
`mcpbdd.checks.generated.limits` tells the whole story and re-exports these names):

  * the SDK's client serialises arguments up to 256 levels (`CLIENT_ARGUMENT_DEPTH`, the
    arguments object being level 1); deeper, `Client.call_tool` raises `ValueError: Maximum
    serialization depth exceeded` before sending, in-process, over stdio and over HTTP;
  * a server over stdio parses at most 199 levels (`STDIO_ARGUMENT_DEPTH`) and silently drops
    a deeper line: the call would only wait for its timeout.

The context harness has no client and no wire, so without a check it would hand such arguments
to the tool, and the same call would pass there and fail on the client harness. So every harness
refuses them the same way: a `transport-failure` whose message is `too_deep(...)`, naming the
limit (the context harness and stdio check before sending; the client harness turns the SDK's
`ValueError` into the same message).
"""

from __future__ import annotations

import json
from typing import Any

__all__ = [
    "CLIENT_ARGUMENT_DEPTH",
    "SERIALIZATION_DEPTH_ERROR",
    "STDIO_ARGUMENT_DEPTH",
    "TRANSPORT_LIMIT",
    "nesting_depth",
    "too_deep",
]

CLIENT_ARGUMENT_DEPTH = 256
"""The deepest arguments the SDK's client serialises (mcp 2.3.0; one more raises `ValueError`)."""

STDIO_ARGUMENT_DEPTH = 199
"""The deepest arguments the SDK's stdio server can parse (mcp 2.3.0; one more and the line is dropped)."""

TRANSPORT_LIMIT = "transport/SDK limit"
"""How a report names a call the transport could not carry: the tool never saw it."""

SERIALIZATION_DEPTH_ERROR = "Maximum serialization depth exceeded"
"""What the SDK client's serialiser raises (`ValueError`) for arguments deeper than it carries."""

_CONTAINERS = (dict, list, tuple)


def nesting_depth(value: Any) -> int:
    """How many arrays and objects deep a JSON value nests (a scalar is 0, `[]` is 1); iterative, for any depth.

    Only containers are pushed, so the common flat arguments cost a type check per value
    (every call on every harness pays this).
    """
    if not isinstance(value, _CONTAINERS):
        return 0
    deepest = 0
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if depth > deepest:
            deepest = depth
        for child in item.values() if isinstance(item, dict) else item:
            if isinstance(child, _CONTAINERS):
                stack.append((child, depth + 1))
    return deepest


def too_deep(arguments: Any, *, stdio: bool = False) -> str | None:
    """Why arguments this deep cannot reach a tool (None: they can), worded alike on every harness.

    `stdio`: the call would go over stdio, whose server parses fewer levels than the client sends.
    """
    if not arguments:
        return None
    depth = nesting_depth(arguments)
    if depth > CLIENT_ARGUMENT_DEPTH:
        return (
            f"{TRANSPORT_LIMIT}: not sent, not the tool's failure: the arguments nest {depth} levels deep and "
            f"the SDK's client serialises at most {CLIENT_ARGUMENT_DEPTH} (mcp 2.3.0; deeper it raises "
            f'"{SERIALIZATION_DEPTH_ERROR}"), so no client can send them'
        )
    if stdio and depth >= STDIO_ARGUMENT_DEPTH - 1 and not _stdio_parses(arguments):
        return (
            f"{TRANSPORT_LIMIT}: not sent over stdio, not the tool's failure: the arguments nest {depth} levels deep "
            f"and the SDK's stdio server cannot parse a line nested that deep (at most {STDIO_ARGUMENT_DEPTH} levels "
            "on mcp 2.3.0, one fewer when the innermost value is not an empty array or object): it drops the line "
            "and never answers"
        )
    return None


def _stdio_parses(arguments: Any) -> bool:
    """Whether the SDK's stdio server can parse the line a call with these arguments becomes.

    Its own parser on the line, so the check follows the installed SDK (its limit counts the
    innermost scalar too, hence no exact figure in depth alone). Only asked near the limit.
    """
    from mcp_types import jsonrpc_message_adapter

    line = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "tool", "arguments": arguments}}
    try:
        jsonrpc_message_adapter.validate_json(json.dumps(line), by_name=False)
    except ValueError as exc:
        return "recursion limit" not in str(exc)
    return True
