"""The private attributes of the MCP SDK the kit reads, in one place (the rest of mcpbdd's seams are in `mcpbdd._sdk`).

The kit builds on the SDK's public API wherever one exists; these two things have none. Each function names
the private attribute it reads, the version it was checked on, and what breaks if a release renames or removes
it. `mcpbdd._sdk` re-exports them (one `SdkSeamError` for every seam, so one `except` catches them all), and
`tests/test_sdk_seam.py` runs each against the installed SDK.

Checked on: mcp 2.3.0.
"""

from __future__ import annotations

import types
from typing import TYPE_CHECKING, Any, Final

if TYPE_CHECKING:
    from mcp.server import Server
    from mcp.server.connection import Connection
    from mcp.server.mcpserver import MCPServer

__all__ = ["SDK_CHECKED", "SdkSeamError", "connection_of", "lowlevel_server", "private_attribute"]

SDK_CHECKED: Final = {"mcp": "2.3.0", "anyio": "4.16.0", "hypothesis": "6.170.9"}
"""The versions each seam (here and in `mcpbdd._sdk`) was last checked on."""


class SdkSeamError(RuntimeError):
    """A private SDK attribute mcpbdd relies on is gone: the installed SDK is newer than mcpbdd knows."""


def private_attribute(obj: Any, name: str, purpose: str, package: str) -> Any:
    """`obj.name`, or an `SdkSeamError` naming `package` (whose private attribute it is) and the version the seam
    was checked on: a seam of hypothesis must send the user to hypothesis, not to the SDK."""
    try:
        return getattr(obj, name)
    except AttributeError:
        owner = obj.__name__.rpartition(".")[2] if isinstance(obj, types.ModuleType) else type(obj).__name__
        checked = f"{package} {SDK_CHECKED[package]}"
        knows = "this SDK" if package == "mcp" else f"this version of {package}"
        raise SdkSeamError(
            f"{owner} has no {name} any more (mcpbdd uses it {purpose}; checked on {checked}): "
            f"install {checked} or an mcpbdd that knows {knows}"
        ) from None


def lowlevel_server(server: MCPServer[Any]) -> Server[Any]:
    """The low-level `Server` inside an `MCPServer`: its request handlers and its lifespan.

    `MCPServer._lowlevel_server` (mcp 2.3.0). The SDK's own `Client` unwraps an
    `MCPServer` the same way (`client.py`, `_memory.py`: "TODO: make lowlevel_server
    public"). Used by the context harness (it calls the registered handlers and enters
    the lifespan itself), by the in-process connector (it enters the lifespan once
    for every caller's `Client`) and by the kit's `announce` and `visible_tools` (they add
    handlers). If it changes, neither harness can reach an in-process server.
    """
    purpose = "to call its handlers and enter its lifespan"
    result: Server[Any] = private_attribute(server, "_lowlevel_server", purpose, "mcp")
    return result


def connection_of(session: Any) -> Connection:
    """The per-client `Connection` behind a request's `ServerSession` (what stays the same across its requests).

    `ServerSession._connection` (mcp 2.3.0). The SDK makes a new `ServerSession` for every request
    and hands a low-level handler (`resources/subscribe`) no `Connection` of its own. Used by
    `mcpbdd_kit.announce` to remember who subscribed; if it changes, subscribing fails with
    `SdkSeamError`.
    """
    result: Connection = private_attribute(
        session, "_connection", "to tell which client connection a request came over", "mcp"
    )
    return result
