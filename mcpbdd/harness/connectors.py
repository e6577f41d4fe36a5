"""How the client harness reaches a server: in-process, a process over stdio, or a URL over HTTP.

Each connector is entered once per scenario by the scenario's owner task (so every
process it starts is also stopped by that task, whatever happens), then hands the
harness what to give `mcp.Client` for each caller.

- In-process: the server's lifespan is entered once and shared by every caller's session.
- stdio: one server process per caller of the scenario, each started on its caller's first
  call and stopped (process group and all: by the SDK's `stdio_client` sequence (`plain_client`,
  which reads lines in linear time), then `groups.py` for what is
  left of the group, or for a fork of the warm parent by `fork_client` and the fork server, which follow
  the same shutdown) when the scenario ends.
  stdio carries no caller identity, so each process gets its caller through environment variables
  the project maps (`env = {NOTES_USER = "{user}"}`); every process
  gets the scenario's doubles the same way (`extra_env`: the doubles file, the upstream
  loopback URLs), so the callers share one storage and one clock as they would share a
  deployment. The servers' stderr is kept (the report attaches it on failure) and a server
  that dies is reported with its exit code and the end of its stderr.
- HTTP: a session per caller, each with its caller's bearer token (configured per user, or
  mcpbdd's test token that `mcpbdd.kit.auth.TestTokenVerifier` accepts).
"""

from __future__ import annotations

import contextlib
import copy
import os
import shlex
import sys
import tempfile
from collections.abc import AsyncIterator, Mapping
from contextlib import AsyncExitStack, asynccontextmanager
from pathlib import Path
from typing import Any, Protocol

import httpx2
from mcp.client.stdio import StdioServerParameters
from mcp.client.streamable_http import streamable_http_client
from mcp.server import Server
from mcp.server.mcpserver import MCPServer

from mcpbdd._sdk import lowlevel_server
from mcpbdd.authorization.edge import BearerSource, EdgeAuth, EdgeLog
from mcpbdd.harness.exits import ExitGuard
from mcpbdd.harness.module_state import ModuleState
from mcpbdd.harness.processes import groups, spare, spawn
from mcpbdd.harness.processes.fork_client import fork_client
from mcpbdd.harness.processes.plain_client import plain_client
from mcpbdd.harness.processes.process_options import ProcessOptions, command_argv
from mcpbdd.harness.registrations import Registrations
from mcpbdd.kit.doubles import Doubles, providing
from mcpbdd.kit.principals import Principal
from mcpbdd.upstream import LoopbackServer

STDERR_TAIL_LINES = 20


class Connector(Protocol):
    """A way to reach a server, entered once per scenario."""

    kind: str

    async def start(self, stack: AsyncExitStack) -> None:
        """Enter whatever the scenario needs once (a lifespan); called in the owner task."""

    def target(self, caller: Principal | None) -> Any:
        """What to pass to `mcp.Client(...)` for this caller (a fresh transport each time)."""

    def diagnose(self) -> str | None:
        """Why the server stopped answering, if it is known (exit code, end of stderr)."""

    def stderr(self) -> str:
        """Everything the server wrote to stderr so far ('' when it is not a process)."""


class InProcess:
    """An `MCPServer` in this process; its lifespan entered once and shared by every caller's session, and its
    registrations put back as they were when the scenario ends (`mcpbdd.harness.registrations`)."""

    kind = "inprocess"

    def __init__(self, server: MCPServer[Any], doubles: Doubles | None = None) -> None:
        self.server = server
        self.doubles = doubles
        self._view: Server[Any] | None = None
        self.restored: list[str] = []
        """What the scenario had changed in the server's registrations, put back when it ended (`registrations`)."""

    async def start(self, stack: AsyncExitStack) -> None:
        registrations = Registrations.take(self.server)  # put back last, after the lifespan's shutdown
        stack.callback(self._restore, registrations, ModuleState.take(self.server))
        lowlevel = lowlevel_server(self.server)
        with providing(self.doubles) if self.doubles is not None else contextlib.nullcontext():
            state = await stack.enter_async_context(lowlevel.lifespan(lowlevel))
        self._view = _shared_lifespan_view(lowlevel, state)

    def _restore(self, registrations: Registrations, module_state: ModuleState) -> None:
        self.restored = registrations.restore()
        module_state.warn()  # what the SDK does not hold cannot be put back: said once

    def target(self, caller: Principal | None) -> Any:
        if self._view is None:
            raise RuntimeError("the in-process server's lifespan has not been entered")
        return self._view

    def diagnose(self) -> str | None:
        return None

    def stderr(self) -> str:
        return ""


def _shared_lifespan_view(server: Server[Any], state: Any) -> Server[Any]:
    """A shallow view of `server` whose lifespan yields the scenario's already-entered state, and whose handlers'
    `sys.exit` ends the call, not the run (`mcpbdd.harness.exits.ExitGuard`, innermost)."""

    @asynccontextmanager
    async def shared(_server: Server[Any]) -> AsyncIterator[Any]:
        yield state

    view = copy.copy(server)
    view.lifespan = shared
    view.middleware = [*server.middleware, ExitGuard()]  # a list of the view's own: the server's is not changed
    return view


_STATUS_WRAPPER = 'status="$1"; shift; "$@"; code=$?; echo "$code" > "$status"; exit "$code"'
"""Runs the server as a child of `sh` so its exit code is written down when it dies (pipes are inherited)."""


class Stdio:
    """Server processes started over stdio for the scenario, one per caller (and stopped with it)."""

    kind = "stdio"

    def __init__(self, command: str, options: ProcessOptions | None = None) -> None:
        self.options = options or ProcessOptions()
        self.argv = command_argv(command)
        if not self.argv:
            raise ValueError("the stdio command is empty")
        self._loopback: LoopbackServer | None = None
        self._folder: tempfile.TemporaryDirectory[str] | None = None
        self._stderr_file: Any = None
        self.started_for: list[Principal | None] = []
        """The caller of each process started so far, in order."""
        self.spares: dict[int, spare.Spare] = {}
        """The processes (by number) that were spares started ahead, taken instead of a start (`spare.py`)."""
        self._stack: AsyncExitStack | None = None

    async def start(self, stack: AsyncExitStack) -> None:
        self._stack = stack
        self._folder = tempfile.TemporaryDirectory(prefix="mcpbdd-stdio-")
        stack.callback(self._folder.cleanup)
        self._stderr_file = open(Path(self._folder.name) / "stderr.log", "w+", encoding="utf-8")  # noqa: SIM115
        stack.callback(self._stderr_file.close)
        self._loopback = self.options.loopback(stack)  # registered first, so it stops after the process

    def _status_path(self, number: int) -> Path:
        """Where process `number` (from 0) writes its exit code when it ends."""
        if number in self.spares:
            return self.spares[number].status_path
        assert self._folder is not None
        return Path(self._folder.name) / f"exit-code-{number}"

    def environment(self, caller: Principal | None) -> dict[str, str]:
        """The process environment: configured values, with `{user}`, `{tenant}`, `{scopes}` of the caller filled in."""
        return self.options.environment(caller)

    def target(self, caller: Principal | None) -> Any:
        """A new server process for `caller` (the harness asks once per caller)."""
        if self._stderr_file is None:
            raise RuntimeError("the stdio connector has not been started")
        number = len(self.started_for)
        self.started_for.append(caller)
        upstream_env = self._loopback.start().environment() if self._loopback is not None else {}
        env = {**os.environ, **upstream_env, **self.environment(caller)}
        if spawn.resolve(self.options.spawn, self.argv, self.options.cwd, env) == "spare":
            spawn.announce(self.options.spawn)
            taken = spare.take(self.argv, env, self.options.cwd, wrapper=_STATUS_WRAPPER, first=number == 0)
            if taken is not None:
                assert self._stack is not None
                self._stack.callback(taken.remove_files)  # after the process stops (its client exits first)
                self.spares[number] = taken
                return taken.transport()
        forks = spawn.fork_server(self.options.spawn, self.argv, cwd=self.options.cwd, env=env)
        if forks is not None:
            return fork_client(
                forks.socket_path,
                forks.args,
                env=env,
                cwd=self.options.cwd,
                errlog=self._stderr_file,
                status_path=self._status_path(number),
            )
        assert self._folder is not None
        pid_path = Path(self._folder.name) / f"pid-{number}"
        params = StdioServerParameters(
            command="sh",
            args=[
                "-c",
                groups.PID_WRAPPER + _STATUS_WRAPPER,
                "mcpbdd-stdio",
                str(pid_path),
                str(self._status_path(number)),
                *self.argv,
            ],
            env=env,
            cwd=self.options.cwd,
        )
        return groups.group_stopped(plain_client(params, self._stderr_file), pid_path)

    def exit_code(self, number: int = 0) -> int | None:
        """The exit code of process `number` (the first by default), or None while it runs."""
        try:
            return int(self._status_path(number).read_text().strip())
        except (OSError, ValueError):
            return None

    def stderr(self) -> str:
        if self._stderr_file is None or self._stderr_file.closed:
            return ""
        self._stderr_file.flush()
        text = Path(self._stderr_file.name).read_text(encoding="utf-8", errors="replace")
        return text + "".join(taken.stderr() for taken in self.spares.values())

    def diagnose(self) -> str | None:
        tail = "\n".join(self.stderr().splitlines()[-STDERR_TAIL_LINES:])
        parts = []
        several = len(self.started_for) > 1
        for number, caller in enumerate(self.started_for):
            code = self.exit_code(number)
            if code is not None:
                whose = f" of {caller.user if caller else 'the anonymous caller'}" if several else ""
                parts.append(f"the server process{whose} exited with code {code}")
        if tail:
            parts.append(f"the end of its stderr:\n{tail}")
        return "; ".join(parts) or None


class Http:
    """A Streamable HTTP server at a URL; a session per caller, each with its bearer token.

    The token is asked for on each request (`bearer`, the scenario's minted JWTs when it requires a
    token), and a 401 or 403 of the endpoint is recorded in `edge` for the call's outcome.
    """

    kind = "http"

    def __init__(
        self,
        url: str,
        *,
        tokens: Mapping[str, str] | None = None,
        timeout: float = 30.0,
        bearer: BearerSource | None = None,
        edge: EdgeLog | None = None,
    ) -> None:
        self.url = url
        self.tokens = dict(tokens or {})
        self.timeout = timeout
        self.bearer = bearer
        self.edge = edge or EdgeLog()

    async def start(self, stack: AsyncExitStack) -> None:
        """Nothing to enter once: each caller's session is opened by its own `Client`."""

    def token_for(self, caller: Principal | None) -> str | None:
        chosen = self.bearer(caller, self.url) if self.bearer is not None else None
        if chosen is not None:
            return chosen or None  # NO_TOKEN: this request carries none
        if caller is None:
            return None
        return self.tokens.get(caller.user, caller.token)

    def target(self, caller: Principal | None) -> Any:
        auth = EdgeAuth(caller, self.url, lambda: self.token_for(caller), self.edge)
        client = httpx2.AsyncClient(auth=auth, timeout=self.timeout)
        return _closing(streamable_http_client(self.url, http_client=client), client)

    def diagnose(self) -> str | None:
        return None

    def stderr(self) -> str:
        return ""


@asynccontextmanager
async def _closing(transport: Any, client: httpx2.AsyncClient) -> AsyncIterator[Any]:
    """The SDK's HTTP transport, then close the httpx client we gave it (it does not own it)."""
    try:
        async with transport as streams:
            yield streams
    finally:
        await client.aclose()


def python_command(module: str, *args: str) -> str:
    """`stdio: <this interpreter> -m module ...`, for tests and examples that must use the same Python."""
    return shlex.join([sys.executable, "-m", module, *args])


__all__ = ["STDERR_TAIL_LINES", "Connector", "Http", "InProcess", "Stdio", "python_command"]
