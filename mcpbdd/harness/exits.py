"""A server that calls `sys.exit` while it handles a request, run in this process: the end of that server.

Over stdio, a tool that calls `sys.exit(0)` ends the server process: the client sees the
connection close, and the call is a transport failure. In-process (the context harness, the
in-process client) the same `SystemExit` would rise through the harness into behave, which ends
the whole run, with exit status 0, in the middle of a scenario. `SystemExit` is a
`BaseException`, so nothing that catches `Exception` (the SDK's tool runner, the harnesses)
stops it.

So where mcpbdd calls a server's handler in-process, a `SystemExit` is caught and becomes what a
client of that server would see: the connection closed (`CONNECTION_CLOSED`), which `classify`
makes a transport failure naming the exit, so the scenario fails at the call on every target:

- the context harness calls the handler itself (`guard_handler`);
- the in-process client reaches it through the SDK's server runner, so its view of the server
  gets one more, innermost, middleware (`ExitGuard`) that does the same.

A `KeyboardInterrupt` (Ctrl-C, SIGTERM as `Terminated`) is left alone: it stops the run.
"""

from __future__ import annotations

from typing import Any

from mcp.shared.exceptions import MCPError
from mcp_types import CONNECTION_CLOSED

__all__ = ["ExitGuard", "exit_error", "exit_in"]


def exit_in(exc: BaseException) -> SystemExit | None:
    """The `SystemExit` that `exc` is, or carries in an exception group (a task group's), if any."""
    if isinstance(exc, SystemExit):
        return exc
    if isinstance(exc, BaseExceptionGroup):
        for inner in exc.exceptions:
            found = exit_in(inner)
            if found is not None:
                return found
    return None


def exit_error(exc: SystemExit, method: str) -> MCPError:
    """What a client sees of a server that exits while handling `method`: the connection closed, saying why."""
    code = exc.code
    return MCPError(
        code=CONNECTION_CLOSED,
        message=(
            f"the server called sys.exit({code!r}) while handling {method}: run in its own process, it would have "
            "ended there (a server must not exit in a request)"
        ),
    )


class ExitGuard:
    """The innermost server middleware of an in-process view: a `SystemExit` from a handler becomes `exit_error`."""

    async def __call__(self, ctx: Any, call_next: Any) -> Any:
        try:
            return await call_next(ctx)
        except BaseException as exc:
            exited = exit_in(exc)
            if exited is None:
                raise
            raise exit_error(exited, str(getattr(ctx, "method", "a request"))) from None
