"""Lines read from a pipe in chunks, in time linear in their length, however long a line is.

A 50 MB result is one JSON-RPC line that arrives in thousands of 64 KiB chunks. Appending each chunk
to a buffer and splitting the whole buffer again (`*lines, buffer = (buffer + chunk).split(b"\\n")`)
copies the line so far at every chunk: quadratic, and a 50 MB result took longer than a 30 s call
timeout to read while the server wrote it in 0.15 s. Here the chunks of an unfinished line are kept
in a list and joined once, when its newline arrives; only the new chunk is ever searched.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from mcp.shared.message import SessionMessage

__all__ = ["LineBuffer", "parse_message"]

logger = logging.getLogger(__name__)


class LineBuffer:
    """Feed it chunks; it gives back the complete lines (without their newline), keeping the rest."""

    def __init__(self) -> None:
        self._pending: list[bytes] = []

    def feed(self, chunk: bytes) -> list[bytes]:
        """The lines `chunk` completes, in order (none while the current line goes on)."""
        if b"\n" not in chunk:
            if chunk:
                self._pending.append(chunk)
            return []
        head, *rest = chunk.split(b"\n")
        tail = rest.pop()
        first = b"".join([*self._pending, head]) if self._pending else head
        self._pending = [tail] if tail else []
        return [first, *rest]


def parse_message(line: bytes) -> SessionMessage | Exception:
    """One line of a server's stdout as the SDK's stdio transport parses it: a message, or the error."""
    import mcp_types as types
    from mcp.shared.message import SessionMessage

    try:
        return SessionMessage(types.jsonrpc_message_adapter.validate_json(line, by_name=False))
    except ValueError as exc:
        logger.exception("Failed to parse JSONRPC message from server")
        return exc
