"""Lines read from a pipe in chunks (`mcpbdd.harness.processes.lines`): every line, whatever the chunks.

The stdio transports (`fork_client`, `plain_client`) read a server's stdout through it; the 50 MB result it
makes readable in time is tests/spawning/test_large_results.py.
"""

from __future__ import annotations

from mcp_types import JSONRPCResponse

from mcpbdd.harness.processes.lines import LineBuffer, parse_message


def test_the_line_buffer_gives_back_every_line_whatever_the_chunks() -> None:
    lines = LineBuffer()
    assert lines.feed(b"ab") == [] and lines.feed(b"c") == []
    assert lines.feed(b"d\nef\n\ng") == [b"abcd", b"ef", b""]
    assert lines.feed(b"") == [] and lines.feed(b"\n") == [b"g"]
    assert lines.feed(b"\n") == [b""]


def test_a_line_that_is_not_json_rpc_is_handed_on_as_the_error() -> None:
    assert isinstance(parse_message(b"not json"), ValueError)
    message = parse_message(b'{"jsonrpc": "2.0", "id": 1, "result": {}}')
    assert not isinstance(message, Exception) and isinstance(message.message, JSONRPCResponse)
    assert message.message.id == 1
