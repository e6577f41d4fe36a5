"""Which channel a call under Locust ended on, and how that travels through Locust's statistics and back.

Locust knows a request succeeded or failed, and groups failures by the text of their exception. mcpbdd's
checks need more: a tool error (`isError`, with the declared reason), a JSON-RPC error (with its code), a broken
transport and a call that ran out of time have different owners. So every failed call is reported with a
`CallFailed` whose text is a fixed form, `<channel>[ reason=<reason>][ code=<code>]`, which Locust writes into
its failures CSV as the error and `parse_failure` reads back.

A reason is what the server wrote, so it is data from a remote party: only a plain token (letters, digits and
`_.:-`, at most 64 characters) is kept; anything else is reported as `unreadable`, never copied into the CSV.
"""

from __future__ import annotations

import re
from typing import Any

from mcpbdd.load.results import CHANNELS, CallChannel

__all__ = ["CallFailed", "classify_error", "classify_result", "parse_failure"]

_TOKEN = re.compile(r"[A-Za-z0-9_.:-]{1,64}")
_FAILURE = re.compile(r"(?P<channel>[a-z_]+)(?: reason=(?P<reason>\S+))?(?: code=(?P<code>-?\d+))?")
UNREADABLE = "unreadable"


class CallFailed(Exception):
    """A call that did not end on the `ok` channel, as Locust's request event receives it."""

    def __init__(self, channel: CallChannel, reason: str | None = None, code: int | None = None) -> None:
        self.channel = channel
        self.reason = _plain(reason)
        self.code = code
        super().__init__(self.text)

    @property
    def text(self) -> str:
        parts: list[str] = [self.channel]
        if self.reason is not None:
            parts.append(f"reason={self.reason}")
        if self.code is not None:
            parts.append(f"code={self.code}")
        return " ".join(parts)

    def __repr__(self) -> str:  # Locust's failures CSV groups by repr(exception)
        return self.text

    __str__ = __repr__


def _plain(reason: str | None) -> str | None:
    if reason is None:
        return None
    return reason if _TOKEN.fullmatch(reason) else UNREADABLE


def classify_result(result: Any) -> CallFailed | None:
    """None for a result on the `ok` channel; a tool error (with its declared reason) otherwise."""
    from mcpbdd.kit.errors import reason_and_hint

    if not getattr(result, "is_error", False):
        return None
    reason, _ = reason_and_hint(getattr(result, "structured_content", None), None)
    return CallFailed("tool_error", reason)


def classify_error(error: BaseException) -> CallFailed:
    """The channel of a call that raised: a JSON-RPC error, a timeout, or a broken transport."""
    import httpx2
    from mcp.shared.exceptions import MCPError

    from mcpbdd.kit.errors import reason_and_hint

    if isinstance(error, CallFailed):
        return error
    if isinstance(error, MCPError):
        data = getattr(error.error, "data", None)
        reason, _ = reason_and_hint(None, data)
        return CallFailed("protocol_error", reason, int(error.error.code))
    if isinstance(error, TimeoutError | httpx2.TimeoutException):
        return CallFailed("timeout")
    if isinstance(error, BaseExceptionGroup) and len(error.exceptions) == 1:
        return classify_error(error.exceptions[0])
    return CallFailed("transport_error", type(error).__name__)


def parse_failure(text: str) -> CallFailed:
    """A failure as Locust's CSV wrote it, back to its channel, reason and code.

    Text of another form (an exception Locust caught in a task, outside any call) counts as a transport error,
    so no failure goes uncounted."""
    found = _FAILURE.fullmatch(text.strip())
    if found is None or found["channel"] not in CHANNELS or found["channel"] == "ok":
        return CallFailed("transport_error", UNREADABLE)
    code = int(found["code"]) if found["code"] is not None else None
    channel: CallChannel = next(known for known in CHANNELS if known == found["channel"])
    return CallFailed(channel, found["reason"], code)
