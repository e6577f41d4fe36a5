"""A server for a Locust run that mcpbdd starts itself: a command with `{port}`, served until the run ends.

    command = "{python} -m mcpbdd.examples.notes --http 127.0.0.1:{port} --auth jwks={jwks},issuer={issuer}"
    with started_server(command) as url:
        run_locust(url, ...)

`{port}` is a free loopback port, `{python}` this interpreter, and `{jwks}` and `{issuer}` the run's fake
authorization server (started when the command names them), whose tokens `run_locust(tokens="jwt")` mints: the
server verifies them with its own production verifier. The command is split as a shell would split it but never
run by a shell. It runs in a session of its own; when the block ends (or start-up fails) its whole process
group gets SIGTERM, then SIGKILL after a grace; and it is started through `mcpbdd.locust.launch --exec`, so it
dies with this process even when this one is killed with SIGKILL (started from a thread, it dies with that
thread). A server that exits or does not listen within the start-up time is an error naming the command, its
exit code and the end of its output.
"""

from __future__ import annotations

import contextlib
import os
import shlex
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from typing import IO

from mcpbdd.harness.processes.ports import free_port

__all__ = ["ServerStartError", "started_server"]

STOP_GRACE_S = 5.0
OUTPUT_TAIL_CHARS = 2000


class ServerStartError(RuntimeError):
    """The server command did not come up (it exited, or never listened on its port)."""


def _fill(command: str, port: int) -> list[str]:
    if "{port}" not in command:
        raise ServerStartError(f"the server command {command!r} has no {{port}}: mcpbdd picks the port and fills it in")
    values = {"{port}": str(port), "{python}": sys.executable}
    if "{jwks}" in command or "{issuer}" in command:
        from mcpbdd.authorization.server import fake_authorization_server

        fake = fake_authorization_server()
        values |= {"{jwks}": fake.jwks_url, "{issuer}": fake.issuer}
    argv = shlex.split(command)
    for placeholder, value in values.items():
        argv = [part.replace(placeholder, value) for part in argv]
    return argv


@contextlib.contextmanager
def started_server(command: str, *, start_timeout_s: float = 30.0, path: str = "/mcp") -> Iterator[str]:
    """Start `command`, wait until it listens, yield its MCP URL; stop its process group afterwards."""
    port = free_port()
    argv = _fill(command, port)
    with tempfile.TemporaryFile() as output:
        guarded = [sys.executable, "-m", "mcpbdd.locust.launch", str(os.getpid()), "--exec", *argv]
        process = subprocess.Popen(  # the user's own command, as an argument list (no shell)
            guarded, stdin=subprocess.DEVNULL, stdout=output, stderr=subprocess.STDOUT, start_new_session=True
        )
        try:
            _wait_listening(process, port, start_timeout_s, command, output)
            yield f"http://127.0.0.1:{port}{path}"
        finally:
            _stop(process)


def _wait_listening(
    process: subprocess.Popen[bytes], port: int, timeout_s: float, command: str, output: IO[bytes]
) -> None:
    until = time.monotonic() + timeout_s
    while time.monotonic() < until:
        if process.poll() is not None:
            raise ServerStartError(f"the server {command!r} exited with code {process.returncode}{_tail(output)}")
        with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), timeout=0.2):
            return
        time.sleep(0.05)
    raise ServerStartError(
        f"the server {command!r} did not listen on port {port} within {timeout_s:g} s{_tail(output)}"
    )


def _tail(output: IO[bytes]) -> str:
    output.seek(0)
    text = output.read().decode("utf-8", "replace")[-OUTPUT_TAIL_CHARS:]
    return f"; the end of its output:\n{text}" if text.strip() else ""


def _stop(process: subprocess.Popen[bytes]) -> None:
    for signum in (signal.SIGTERM, signal.SIGKILL):
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(process.pid, signum)
        with contextlib.suppress(subprocess.TimeoutExpired):
            process.wait(timeout=STOP_GRACE_S)
            if signum == signal.SIGTERM:
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.killpg(process.pid, signal.SIGKILL)  # whatever it started and left in its group
                return
