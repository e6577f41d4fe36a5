"""`mcpbdd record -- COMMAND`: a stdio proxy a client starts in place of the server.

It starts the server, copies every line both ways unchanged (a line is forwarded before it is
parsed, so recording adds no parsing time to the path), copies the server's stderr through,
and hands each line to the `Recorder`. It ends when either side closes: the client closing
stdin closes the server's stdin and waits for it to exit; the server exiting ends the session.
The exit code is the server's.

Its core, `pump`, takes the client's side as arguments (where lines come from, where they go), so the
loopback HTTP bridge `mcpbdd conformance --official` starts for a stdio server (`mcpbdd.record.bridge`)
is the same pipe with HTTP requests on the client's side.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import BinaryIO, Protocol

from mcp.client.stdio import StdioServerParameters

from mcpbdd.harness.processes.spawn import one_off, prepare
from mcpbdd.model.redaction import Redactor
from mcpbdd.record.assembler import now_iso
from mcpbdd.record.cassette import Header
from mcpbdd.record.recorder import Recorder

LINE_LIMIT = 64 * 1024 * 1024
"""The longest message accepted (a large resource read); asyncio's default of 64 KiB is too small."""
STDERR_KEPT = 64 * 1024
"""How much of the server's stderr the cassette keeps (the end of it)."""
EXIT_GRACE = 5.0
"""Seconds the server gets to exit after its stdin closes before it is terminated."""


async def _stdin_reader() -> asyncio.StreamReader:
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader(limit=LINE_LIMIT)
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)
    return reader


class LineSource(Protocol):
    """The client's side of the pipe: lines in, `b""` once it has closed (an `asyncio.StreamReader` is one)."""

    async def readline(self) -> bytes: ...


def _ignore(_line: bytes) -> None:
    return None


async def pump(
    command: Sequence[str],
    client: LineSource,
    to_client: Callable[[bytes], None],
    *,
    env: dict[str, str] | None = None,
    from_client: Callable[[bytes], None] = _ignore,
    from_server: Callable[[bytes], None] = _ignore,
    on_exit: Callable[[int | None, str], None] | None = None,
) -> int:
    """Start `command` and copy lines both ways until either side closes; returns the server's exit code.

    The stdio proxy's core, apart from where the client's lines come from and go to: `mcpbdd record`
    gives it its own stdin and stdout, the loopback HTTP bridge (`mcpbdd.record.bridge`) a queue fed
    by HTTP requests and a router of the answers. A line is forwarded before `from_client` or
    `from_server` sees it. The server's stderr is copied to this process's; `on_exit` gets the exit
    code (None if it never ended) and the end of that stderr, whatever way the session ended.
    """
    server = await asyncio.create_subprocess_exec(
        *command,
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        env=env if env is not None else dict(os.environ),
        limit=LINE_LIMIT,
    )
    assert server.stdin is not None and server.stdout is not None and server.stderr is not None
    stderr_tail = bytearray()

    async def upstream() -> None:
        assert server.stdin is not None
        try:
            while line := await client.readline():
                server.stdin.write(line)
                await server.stdin.drain()
                from_client(line)
        except (BrokenPipeError, ConnectionResetError):
            return
        finally:
            with contextlib.suppress(OSError):
                server.stdin.close()

    async def downstream() -> None:
        assert server.stdout is not None
        while line := await server.stdout.readline():
            to_client(line)
            from_server(line)

    async def errors() -> None:
        assert server.stderr is not None
        while chunk := await server.stderr.read(65536):
            sys.stderr.buffer.write(chunk)
            sys.stderr.buffer.flush()
            stderr_tail.extend(chunk)
            del stderr_tail[:-STDERR_KEPT]

    up = asyncio.create_task(upstream())
    down = asyncio.create_task(downstream())
    err = asyncio.create_task(errors())
    try:
        await asyncio.wait({up, down}, return_when=asyncio.FIRST_COMPLETED)
        if not down.done():  # the client closed: the server gets its stdin closed and a grace period
            try:
                await asyncio.wait_for(asyncio.shield(down), EXIT_GRACE)
            except TimeoutError:
                server.terminate()
        up.cancel()
        try:
            code = await asyncio.wait_for(server.wait(), EXIT_GRACE)
        except TimeoutError:
            server.kill()
            code = await server.wait()
        await asyncio.gather(down, err, return_exceptions=True)
    finally:
        for task in (up, down, err):
            task.cancel()
        if server.returncode is None:
            server.kill()
            await server.wait()
        if on_exit is not None:
            on_exit(server.returncode, stderr_tail.decode("utf-8", errors="replace"))
    return code


async def proxy(
    command: Sequence[str],
    out: Path,
    *,
    redactor: Redactor | None = None,
    env: dict[str, str] | None = None,
    stdout: BinaryIO | None = None,
) -> int:
    """Run the session through the proxy and write the cassette; returns the server's exit code."""
    header = Header("stdio", {"command": list(command)}, now_iso())
    recorder = Recorder(out, header, redactor=redactor)
    to_client = stdout or sys.stdout.buffer

    def deliver(line: bytes) -> None:
        to_client.write(line)
        to_client.flush()

    # A single start: forked from a fork server an owner shares (a test suite recording many sessions), else plainly.
    # The cassette's header keeps the command as given.
    started = prepare(one_off("auto"), command, cwd=os.getcwd(), env=os.environ if env is None else env)
    return await pump(
        started,
        await _stdin_reader(),
        deliver,
        env=env,
        from_client=recorder.from_client,
        from_server=recorder.from_server,
        on_exit=recorder.close,
    )


def through_recorder(
    out: Path, command: Sequence[str], *, secrets: Sequence[str] = (), env: dict[str, str] | None = None
) -> StdioServerParameters:
    """What to give `mcp.Client` (from pytest, say) so that its session with `command` is recorded into `out`.

    The same line a client's configuration has: `mcpbdd record --out OUT -- COMMAND`, run with
    this interpreter. The environment is passed whole (the SDK's default passes only a few names).
    """
    options = [arg for secret in secrets for arg in ("--secret", secret)]
    args = ["-m", "mcpbdd.cli.main", "record", "--out", str(out), *options, "--", *command]
    return StdioServerParameters(command=sys.executable, args=args, env=dict(os.environ if env is None else env))


def record_stdio(command: Sequence[str], out: Path, *, redactor: Redactor | None = None) -> int:
    """The blocking entry point `mcpbdd record` calls."""
    return asyncio.run(proxy(command, out, redactor=redactor))


__all__ = ["LineSource", "proxy", "pump", "record_stdio", "through_recorder"]
