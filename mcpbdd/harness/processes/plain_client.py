"""The client transport to a server mcpbdd starts plainly over stdio: the SDK's, with a linear reader.

The SDK's `stdio_client` reads the server's stdout as text and re-joins its buffer with every chunk
(`lines = (buffer + chunk).split("\\n")`): a line of n bytes costs O(n²/chunk), and a 50 MB result
was still being read when a 30 s call timeout ran out (the server wrote it in 0.15 s). This is that
transport with one change: stdout is read as bytes into a `LineBuffer` (`lines.py`, shared with
`fork_client`), which joins a line's chunks once, at its newline.

Everything else is the SDK's, called through `mcpbdd._sdk` (`start_stdio_process`, ...): the process is started by its
`_create_platform_compatible_process` (a session of its own, stderr to `errlog`, the SDK's default
environment under the given one), stdout is drained once the session is gone, and shutdown is its
sequence, shielded: stop the traffic, let the writer flush (0.5 s), close stdin, wait, stop the process
group (`_stop_server_process`), close the streams.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import IO, Any

import anyio
import anyio.lowlevel
from anyio.abc import ObjectReceiveStream, ObjectSendStream
from mcp.client.stdio import StdioServerParameters, get_default_environment
from mcp.shared.message import SessionMessage

from mcpbdd._sdk import drain_stdio_stdout, start_stdio_process, stop_stdio_process
from mcpbdd.harness.processes.fork_client import FLUSH_TIMEOUT
from mcpbdd.harness.processes.lines import LineBuffer, parse_message

__all__ = ["plain_client"]

logger = logging.getLogger(__name__)


@asynccontextmanager
async def plain_client(
    server: StdioServerParameters, errlog: IO[str]
) -> AsyncIterator[tuple[ObjectReceiveStream[SessionMessage | Exception], ObjectSendStream[SessionMessage]]]:
    """`mcp.client.stdio.stdio_client(server, errlog)`, reading stdout in linear time."""
    env = get_default_environment() | (server.env or {})
    process: Any = await start_stdio_process(server.command, list(server.args), env, errlog, server.cwd)
    read_writer, read_stream = anyio.create_memory_object_stream[SessionMessage | Exception](0)
    write_stream, write_reader = anyio.create_memory_object_stream[SessionMessage](0)
    shutting_down = False
    writer_done = anyio.Event()

    async def stdout_reader() -> None:
        lines = LineBuffer()
        try:
            async with read_writer:
                try:
                    async for chunk in process.stdout:
                        for line in lines.feed(chunk):
                            try:
                                await read_writer.send(parse_message(line))
                            except (anyio.ClosedResourceError, anyio.BrokenResourceError):
                                return  # the session is gone; only the drain below remains
                finally:
                    await drain_stdio_stdout(process)
        except anyio.ClosedResourceError:
            pass  # our own shutdown closed the stdout stream under the read
        except (anyio.BrokenResourceError, ConnectionError):
            if not shutting_down:
                logger.exception("Reading from the MCP server's stdout failed mid-session")

    async def stdin_writer() -> None:
        try:
            async with write_reader:
                async for message in write_reader:
                    data = message.message.model_dump_json(by_alias=True, exclude_unset=True).encode() + b"\n"
                    await process.stdin.send(data)
        except (anyio.ClosedResourceError, anyio.BrokenResourceError, OSError):
            await read_writer.aclose()  # the session sees the connection end instead of waiting forever
        finally:
            writer_done.set()

    async with anyio.create_task_group() as group:
        group.start_soon(stdout_reader)
        group.start_soon(stdin_writer)
        try:
            yield read_stream, write_stream
        finally:
            shutting_down = True
            with anyio.CancelScope(shield=True):
                read_stream.close()
                write_stream.close()
                with anyio.move_on_after(FLUSH_TIMEOUT):
                    await writer_done.wait()
                await stop_stdio_process(process)
                for stream in (read_stream, write_stream, read_writer, write_reader):
                    await stream.aclose()
                await anyio.lowlevel.checkpoint()
            group.cancel_scope.cancel()
    await anyio.lowlevel.cancel_shielded_checkpoint()
