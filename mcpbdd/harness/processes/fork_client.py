"""The client transport to a forked server: the SDK's stdio transport, minus the process it would start.

The SDK's `stdio_client` insists on starting a process and talking to its pipes, so a forked server used
to need a launcher in between (`sh` and a `python -I -S` running `fork_launcher.py`): 10-60 ms per scenario
and caller, more than everything else a fork costs. Here mcpbdd makes the server's pipes itself, hands
their far ends to the fork server over its Unix socket (`SCM_RIGHTS`, the same request the launcher
sends) and speaks newline-delimited JSON-RPC over the near ends, exactly as `stdio_client` does:

- The server's stdin and stdout are real pipes (a server cannot tell it was not started plainly); its
  stderr is the connector's stderr file, as `stdio_client(errlog=...)` makes it.
- The socket stays open as the control channel: the fork server says `pid N` when the fork runs and
  `exit N` / `signal N` when it ends (the exit code is written where the connector reads it, 128+N for a
  signal as a shell reports it); `term` asks it to stop the server's process group (SIGTERM, then SIGKILL
  after its grace period); closing the socket, also by this process dying, stops the group at once. A
  socket the fork server closes without a status (it died) ends what is left of the group from here.
- Shutdown follows the SDK's, with its timeouts: flush what the session sent, close stdin, wait for the
  server to exit, then `term` and wait again. It runs shielded, so a cancelled scenario leaves no process.

Bytes are moved with `os.read`/`os.write` on non-blocking pipe ends woken by `anyio.wait_readable` and
`wait_writable` (the event loop's own readiness, no thread per pipe as anyio's file streams use).
"""

from __future__ import annotations

import contextlib
import errno
import logging
import os
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from pathlib import Path
from typing import IO, Any

import anyio
import anyio.lowlevel
from anyio.abc import ObjectReceiveStream, ObjectSendStream
from mcp.shared.message import SessionMessage

from mcpbdd.harness.processes import groups
from mcpbdd.harness.processes.fork_launcher import encode_request
from mcpbdd.harness.processes.lines import LineBuffer, parse_message

__all__ = ["FLUSH_TIMEOUT", "TERMINATION_TIMEOUT", "ForkedServer", "fork_client"]

logger = logging.getLogger(__name__)

TERMINATION_TIMEOUT = 2.0
"""Seconds the server may take to exit after its stdin closes before it is stopped (the SDK's figure)."""
KILL_TIMEOUT = 4.0
"""Seconds to wait after `term` (the fork server escalates to SIGKILL after its own 2 s grace)."""
FLUSH_TIMEOUT = 0.5
"""Seconds to let the writer deliver what the session already sent, at shutdown (the SDK's figure)."""
EXIT_REPORT_TIMEOUT = 1.0
"""Seconds to wait, once the server's stdout ends, for its exit code before the session sees the end."""
_CHUNK = 65536


class ForkedServer:
    """One forked server process as this process sees it: its pid, its pipes and its control socket."""

    def __init__(self, control: Any, pid: int, stdin: int, stdout: int, status_path: Path, said: bytes) -> None:
        self.control = control
        self._said = said
        self.pid = pid
        self.stdin = stdin
        self.stdout = stdout
        self.status_path = status_path
        self.exited = anyio.Event()
        self.returncode: int | None = None

    async def watch(self) -> None:
        """Read the fork server's `exit N` / `signal N`; write the code down; a closed socket counts as gone."""
        buffer = self._said
        try:
            while True:
                *lines, buffer = buffer.split(b"\n")
                for line in lines:
                    what, _, number = line.decode().partition(" ")
                    if what in ("exit", "signal"):
                        self._record(int(number) if what == "exit" else 128 + int(number))
                        return
                buffer += await self.control.receive(256)
        except (anyio.EndOfStream, anyio.BrokenResourceError, OSError):
            # The fork server hung up without a status: it died (or stopped). Its death signal has ended the
            # server; what the server left in its group is ended here, as `groups.py` ends a plain start's.
            groups.kill_group(self.pid)
        except anyio.ClosedResourceError:  # closed here, by `stop`: the fork server stops the group
            pass
        finally:
            self.exited.set()

    def _record(self, code: int) -> None:
        self.returncode = code
        with contextlib.suppress(OSError):
            self.status_path.write_text(f"{code}\n")

    async def wait(self, timeout: float) -> bool:
        """Whether the server ended within `timeout` seconds."""
        with anyio.move_on_after(timeout):
            await self.exited.wait()
        return self.exited.is_set()

    async def stop(self) -> None:
        """Close stdin, wait, then ask for the process group to be stopped, and wait again (bounded)."""
        _close_fd(self.stdin)
        self.stdin = -1
        if not await self.wait(TERMINATION_TIMEOUT):
            with contextlib.suppress(anyio.ClosedResourceError, anyio.BrokenResourceError, OSError):
                await self.control.send(b"term\n")
            if not await self.wait(KILL_TIMEOUT):
                logger.warning("the forked server %d is still alive after the kill escalation", self.pid)
        await self.control.aclose()  # the fork server stops whatever is left of the group

    def close_pipes(self) -> None:
        for fd in (self.stdin, self.stdout):
            _close_fd(fd)
        self.stdin = self.stdout = -1


def _close_fd(fd: int) -> None:
    if fd >= 0:
        with contextlib.suppress(OSError):
            anyio.notify_closing(fd)
        with contextlib.suppress(OSError):
            os.close(fd)


async def _start(
    socket_path: str, argv: Sequence[str], env: dict[str, str], cwd: str, errlog: IO[str], status_path: Path
) -> ForkedServer:
    """Ask the fork server for a fork running `argv`'s entry point on pipes made here; its `pid` line back."""
    stdin_read, stdin_write = os.pipe()
    stdout_read, stdout_write = os.pipe()
    request = encode_request(list(argv), env, os.path.abspath(cwd))
    control = None
    try:
        control = await anyio.connect_unix(socket_path)
        await control.send_fds(request[:4], [stdin_read, stdout_write, errlog.fileno()])
        await control.send(request[4:])
        said = b""
        while b"\n" not in said:
            said += await control.receive(256)
        first, _, said = said.partition(b"\n")
        what, _, number = first.decode().partition(" ")
        if what != "pid":
            raise OSError(f"the fork server answered {first!r}")
    except BaseException as exc:
        for fd in (stdin_write, stdout_read):
            os.close(fd)
        if control is not None:
            await control.aclose()
        if isinstance(exc, (OSError, anyio.EndOfStream, anyio.BrokenResourceError)):
            why = str(exc) or type(exc).__name__
            raise OSError(f"the fork server at {socket_path} did not start the server ({why})") from exc
        raise
    finally:
        os.close(stdin_read)
        os.close(stdout_write)
    os.set_blocking(stdin_write, False)
    os.set_blocking(stdout_read, False)
    return ForkedServer(control, int(number), stdin_write, stdout_read, status_path, said)


@asynccontextmanager
async def fork_client(
    socket_path: str,
    argv: Sequence[str],
    *,
    env: dict[str, str],
    cwd: str | None,
    errlog: IO[str],
    status_path: Path,
) -> AsyncIterator[tuple[ObjectReceiveStream[SessionMessage | Exception], ObjectSendStream[SessionMessage]]]:
    """A forked server on pipes, as the `(read, write)` streams `mcp.Client` takes from a transport."""
    errlog.flush()
    server = await _start(socket_path, argv, env, cwd or os.getcwd(), errlog, status_path)
    read_writer, read_stream = anyio.create_memory_object_stream[SessionMessage | Exception](0)
    write_stream, write_reader = anyio.create_memory_object_stream[SessionMessage](0)
    writer_done = anyio.Event()

    async def stdout_reader() -> None:
        """Lines to the session; once the session is gone, keep reading (and dropping) until the pipe ends, so
        a server flushing its output is not blocked on a full pipe and can still exit when its stdin closes."""
        lines = LineBuffer()  # linear in a line's length: a 50 MB result is one line (`lines.py`)
        delivering = True
        async with read_writer:
            while (chunk := await _read(server)) is not None:
                for line in lines.feed(chunk) if delivering else ():
                    try:
                        await read_writer.send(parse_message(line))
                    except (anyio.ClosedResourceError, anyio.BrokenResourceError):
                        delivering = False
                        await read_writer.aclose()
                        break
            # The end of stdout is, nearly always, the server exiting: let its exit code arrive before the
            # session sees the connection end, so what reports the failure can name it (as a shell's would).
            await server.wait(EXIT_REPORT_TIMEOUT)

    async def stdin_writer() -> None:
        try:
            async with write_reader:
                async for message in write_reader:
                    data = message.message.model_dump_json(by_alias=True, exclude_unset=True).encode() + b"\n"
                    await _write_all(server, data)
        except (anyio.ClosedResourceError, anyio.BrokenResourceError, OSError):
            await read_writer.aclose()  # the session sees the connection end instead of waiting forever
        finally:
            writer_done.set()

    async with anyio.create_task_group() as group:
        group.start_soon(server.watch)
        group.start_soon(stdout_reader)
        group.start_soon(stdin_writer)
        try:
            yield read_stream, write_stream
        finally:
            with anyio.CancelScope(shield=True):
                read_stream.close()
                write_stream.close()
                with anyio.move_on_after(FLUSH_TIMEOUT):
                    await writer_done.wait()
                await server.stop()
                server.close_pipes()
                for stream in (read_stream, write_stream, read_writer, write_reader):
                    await stream.aclose()
            group.cancel_scope.cancel()


async def _read(server: ForkedServer) -> bytes | None:
    """The next bytes from the server's stdout, or None at its end (or once the pipe is closed here)."""
    while server.stdout >= 0:
        try:
            await anyio.wait_readable(server.stdout)
            chunk = os.read(server.stdout, _CHUNK)
        except BlockingIOError:
            continue
        except (anyio.ClosedResourceError, OSError):
            return None
        return chunk or None
    return None


async def _write_all(server: ForkedServer, data: bytes) -> None:
    """Write all of `data` to the server's stdin (a full pipe waits until the server reads)."""
    view = memoryview(data)
    while view:
        if server.stdin < 0:
            raise anyio.ClosedResourceError
        try:
            view = view[os.write(server.stdin, view) :]
        except BlockingIOError:
            await anyio.wait_writable(server.stdin)
        except OSError as exc:
            if exc.errno == errno.EPIPE:
                raise anyio.BrokenResourceError from exc
            raise
