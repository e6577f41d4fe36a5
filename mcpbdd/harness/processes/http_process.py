"""A server mcpbdd starts itself and reaches over Streamable HTTP: `http: <command with {port}>`.

    Given the MCP server "http: {python} -m mcpbdd.examples.notes --http 127.0.0.1:{port}"

mcpbdd picks a free loopback port, starts the command with `{port}` (and `{python}`, this
interpreter) filled in and the scenario's doubles in its environment (the doubles file, the
upstream loopback URLs), waits until the port accepts connections, then gives every caller a
session of their own at `http://127.0.0.1:<port>/mcp` with their bearer token, as for a URL.
One process serves every caller (HTTP carries identity). When the scenario ends the process
group is stopped (SIGTERM, then SIGKILL after a grace period); a process that exits early is
reported with its exit code and the end of its stderr.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import subprocess
import tempfile
import time
from collections.abc import Mapping
from contextlib import AsyncExitStack
from pathlib import Path
from typing import Any

from mcpbdd.authorization.edge import BearerSource, EdgeLog
from mcpbdd.harness.connectors import STDERR_TAIL_LINES, Http
from mcpbdd.harness.processes import groups, ports, spawn
from mcpbdd.harness.processes.ports import PortClaim, free_port
from mcpbdd.harness.processes.process_options import ProcessOptions, command_argv
from mcpbdd.kit.principals import Principal

__all__ = ["MCP_PATH", "PORT_ATTEMPTS", "STOP_GRACE", "HttpProcess", "free_port"]  # free_port: from `ports`

MCP_PATH = "/mcp"
"""Where the SDK's `streamable_http_app()` serves MCP unless told otherwise."""

LISTEN_POLL_MIN = 0.002
LISTEN_POLL_MAX = 0.05
"""How often to look whether the server listens (and, when stopping, whether it ended): often at first, since
a forked server is up in tens of milliseconds, then less, for a server that takes seconds."""

PORT_ATTEMPTS = 3
"""Starts on a new port when the picked one was taken before the server bound it (see `HttpProcess.start`)."""

STOP_GRACE = 5.0
"""Seconds a stopped server has to exit after SIGTERM before its process group is killed."""


class HttpProcess:
    """A Streamable HTTP server process started for the scenario from a command with `{port}`."""

    kind = "http-command"

    def __init__(
        self,
        command: str,
        options: ProcessOptions | None = None,
        *,
        tokens: Mapping[str, str] | None = None,
        start_timeout: float = 20.0,
        path: str = MCP_PATH,
        bearer: BearerSource | None = None,
    ) -> None:
        if "{port}" not in command:
            raise ValueError(f"the http command {command!r} has no {{port}}: mcpbdd picks the port and fills it in")
        self.command = command
        self.options = options or ProcessOptions()
        # One process serves every caller (they are told apart by their tokens): a template naming the
        # caller (`{user}`, `{tenant}`, `{scopes}`, meant for stdio) is filled with nothing, never a guess.
        self.env = self.options.environment(None)
        self.tokens = dict(tokens or {})
        self.start_timeout = start_timeout
        self.path = path
        self.port: int | None = None
        self._claim: PortClaim | None = None
        self._process: subprocess.Popen[bytes] | None = None
        self._stderr_path: Path | None = None
        self._http: Http | None = None
        self.bearer = bearer
        self.edge = EdgeLog()
        """The 401s and 403s the server answered, per caller (`mcpbdd.authorization.edge`)."""

    @property
    def url(self) -> str:
        if self.port is None:
            raise RuntimeError("the http server process has not been started")
        return f"http://127.0.0.1:{self.port}{self.path}"

    def argv(self, port: int) -> list[str]:
        return command_argv(self.command, port=str(port))

    async def start(self, stack: AsyncExitStack) -> None:
        """Start the process (in the owner task) and wait until its port accepts connections.

        The port is free when picked and claimed against mcpbdd's other pickers (`ports.py`) until the
        process stops, but another program may still bind it before the server does. A server that ends
        saying its address is in use is started again on a new port (`PORT_ATTEMPTS` in all); any other
        early end is reported at once.
        """
        folder = tempfile.TemporaryDirectory(prefix="mcpbdd-http-")
        stack.callback(folder.cleanup)
        self._stderr_path = Path(folder.name) / "stderr.log"
        upstream_env: dict[str, str] = {}
        loopback = self.options.loopback(stack)  # registered before the process, so it stops after it
        if loopback is not None:
            upstream_env = loopback.start().environment()
        env = {**os.environ, **upstream_env, **self.env}
        stack.push_async_callback(self._stop)
        for attempt in range(1, PORT_ATTEMPTS + 1):
            self._spawn(env)
            try:
                await self._wait_until_listening()
            except ConnectionError:
                if attempt == PORT_ATTEMPTS or not self._lost_its_port():
                    raise
                continue
            break
        self._http = Http(self.url, tokens=self.tokens, bearer=self.bearer, edge=self.edge)

    def _spawn(self, env: dict[str, str]) -> None:
        """Start the command on a newly picked port, its stderr in the scenario's file (the last attempt's)."""
        assert self._stderr_path is not None
        self._release_port()
        self._claim = ports.claim_port()
        self.port = self._claim.port
        argv = spawn.prepare(self.options.spawn, self.argv(self.port), cwd=self.options.cwd, env=env)
        with open(self._stderr_path, "wb") as stderr:
            self._process = subprocess.Popen(
                argv,
                env=env,
                cwd=self.options.cwd,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=stderr,
                start_new_session=True,  # its own process group: stopping it stops whatever it started
            )

    def _lost_its_port(self) -> bool:
        """The process ended because another one bound the port between the pick and its bind."""
        process = self._process
        if process is None or process.poll() is None:
            return False
        groups.kill_group(process.pid)  # whatever it started, before a new one takes its place
        said = self.stderr().lower()
        return "address already in use" in said or "errno 98" in said

    async def _wait_until_listening(self) -> None:
        assert self._process is not None and self.port is not None
        deadline = time.monotonic() + self.start_timeout
        pause = LISTEN_POLL_MIN
        while True:
            if self._process.poll() is not None:
                raise ConnectionError(f"the http server process ended before it listened; {self.diagnose()}")
            try:
                _, writer = await asyncio.open_connection("127.0.0.1", self.port)
            except OSError:
                if time.monotonic() > deadline:
                    why = self.diagnose()
                    raise ConnectionError(
                        f"the http server did not listen on 127.0.0.1:{self.port} within {self.start_timeout:g} s "
                        "of starting (does the command put {port} where the server reads its port?)"
                        + (f"; {why}" if why else "")
                    ) from None
                await asyncio.sleep(pause)
                pause = min(pause * 2, LISTEN_POLL_MAX)
                continue
            writer.close()
            with contextlib.suppress(OSError):
                await writer.wait_closed()
            return

    async def _stop(self) -> None:
        """SIGTERM to the process group, SIGKILL after the grace period; always reaped; then SIGKILL to what is
        left of the group (`groups.py`: a helper of a server that ended on SIGTERM, or before the stop)."""
        process = self._process
        if process is None:
            self._release_port()
            return
        if process.poll() is not None:
            groups.kill_group(process.pid)
            self._release_port()
            return
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGTERM)
        deadline = time.monotonic() + STOP_GRACE
        pause = LISTEN_POLL_MIN
        while process.poll() is None and time.monotonic() < deadline:
            await asyncio.sleep(pause)
            pause = min(pause * 2, LISTEN_POLL_MAX)
        groups.kill_group(process.pid)  # the server, if it outlived the grace period, and whatever it left
        process.wait()
        self._release_port()

    def _release_port(self) -> None:
        if self._claim is not None:
            self._claim.close()
            self._claim = None

    def target(self, caller: Principal | None) -> Any:
        if self._http is None:
            raise RuntimeError("the http server process has not been started")
        return self._http.target(caller)

    def exit_code(self) -> int | None:
        return None if self._process is None else self._process.poll()

    def stderr(self) -> str:
        if self._stderr_path is None or not self._stderr_path.exists():
            return ""
        return self._stderr_path.read_text(encoding="utf-8", errors="replace")

    def diagnose(self) -> str | None:
        code = self.exit_code()
        tail = "\n".join(self.stderr().splitlines()[-STDERR_TAIL_LINES:])
        parts = []
        if code is not None:
            parts.append(f"the server process exited with code {code}")
        if tail:
            parts.append(f"the end of its stderr:\n{tail}")
        return "; ".join(parts) or None
