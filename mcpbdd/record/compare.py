"""What of a response is compared, and which values are volatile (different on every run).

Both `mcpbdd feature` and `mcpbdd verify` look at a response the same way:
- its **channel** first (ok, tool-error, protocol-error, input-required, no-answer): a tool
  error that became a protocol error is drift even when the text is the same;
- then its **observable** part: a tool result's content, structured content and `isError`;
  a question's input requests (never its sealed request state); an error's code, message and
  data; any other result without `_meta`.

Volatile values are found by running the session again, not by guessing from their shape: a
path whose value differs between the recording and fresh replays becomes a matcher marker
(`#uuid`, `#iso-datetime`, else the kind: `#string`, `#number`, ...).
"""

from __future__ import annotations

import copy
import re
from collections.abc import Sequence
from typing import Any

from mcpbdd.model.matching import escape, matches
from mcpbdd.record.assembler import INPUT_REQUIRED
from mcpbdd.record.replay import leaves

OK, TOOL_ERROR, PROTOCOL_ERROR, INPUT_REQUIRED_CHANNEL, NO_ANSWER = (
    "ok",
    "tool-error",
    "protocol-error",
    "input-required",
    "no-answer",
)


def channel(response: dict[str, Any] | None) -> str:
    """The channel a response came back on, in the words of `Then the outcome is "..."`."""
    if response is None:
        return NO_ANSWER
    if "error" in response:
        return PROTOCOL_ERROR
    result = response.get("result") or {}
    if result.get("resultType") == INPUT_REQUIRED:
        return INPUT_REQUIRED_CHANNEL
    return TOOL_ERROR if result.get("isError") else OK


def observable(response: dict[str, Any] | None) -> Any:
    """The part of a response a specification is about (see the module docstring)."""
    if response is None:
        return None
    if "error" in response:
        error = response["error"]
        return {key: error[key] for key in ("code", "message", "data") if key in error}
    result = dict(response.get("result") or {})
    if result.get("resultType") == INPUT_REQUIRED:
        return {"inputRequests": result.get("inputRequests") or {}}
    for key in ("_meta", "resultType", "requestState", "cacheScope", "ttlMs", "nextCursor"):
        result.pop(key, None)
    for key, by in LISTINGS.items():
        items = result.get(key)
        if isinstance(items, list) and all(isinstance(i, dict) and by in i for i in items):
            result[key] = {str(item[by]): item for item in items}
    return result


LISTINGS = {"tools": "name", "prompts": "name", "resources": "uri", "resourceTemplates": "uriTemplate"}
"""Listings compared by name, not position: `$.tools.get_note.description`, and a new tool is one difference."""


def _kind_marker(values: Sequence[Any]) -> str:
    from mcpbdd.model.matching import _UUID, _is_iso_datetime

    if all(isinstance(v, str) and _UUID.fullmatch(v) for v in values):
        return "#uuid"
    if all(isinstance(v, str) and _is_iso_datetime(v) for v in values):
        return "#iso-datetime"
    if all(isinstance(v, bool) for v in values):
        return "#boolean"
    if all(isinstance(v, int | float) and not isinstance(v, bool) for v in values):
        return "#number"
    if all(isinstance(v, str) for v in values):
        return "#string"
    return "#notnull" if all(v is not None for v in values) else "#ignore"


def volatile(recorded: Any, replays: Sequence[Any]) -> dict[str, str]:
    """Paths whose value differs between the recording and any replay, each with the marker that covers it.

    A path present in some runs and not others, or a structure that changed length, is left
    alone here: that is drift the comparison reports, not a volatile value.
    """
    runs = [dict(leaves(r)) for r in replays]
    markers: dict[str, str] = {}
    for path, value in leaves(recorded):
        seen = [value, *(run[path] for run in runs if path in run)]
        if len(seen) == len(runs) + 1 and any(other != value for other in seen[1:]):
            markers[path] = _kind_marker(seen)
    return markers


_UUID_TEXT = r"[0-9A-Fa-f]{8}-(?:[0-9A-Fa-f]{4}-){3}[0-9A-Fa-f]{12}"
_INSTANT_TEXT = r"\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2}(?:[.,]\d+)?)?(?:Z|[+-]\d{2}(?::?\d{2})?)?"
_FRESH = re.compile(f"{_UUID_TEXT}|{_INSTANT_TEXT}")
"""A uuid or an ISO 8601 instant anywhere in a text (a JSON text block that holds a created_at, say)."""


def _fresh_pattern(recorded: str) -> str:
    """`recorded` as a regular expression: each uuid or instant in it stands for any other one."""
    pattern, start = "", 0
    for found in _FRESH.finditer(recorded):
        kind = _UUID_TEXT if re.fullmatch(_UUID_TEXT, found.group()) else _INSTANT_TEXT
        pattern += re.escape(recorded[start : found.start()]) + f"(?:{kind})"
        start = found.end()
    return pattern + re.escape(recorded[start:])


def fresh_values(recorded: Any, runs: Sequence[Any]) -> dict[str, str]:
    """Paths where the recording holds a uuid or an instant that came back as another one in every run.

    What the recording shows to be made fresh on each run (an id, a timestamp), judged from the
    recorded value's form alone, never from the runs: a whole value gets `#uuid` or
    `#iso-datetime`, a text with one inside a `#regex` where each stands for any other.
    """
    from mcpbdd.model.matching import _UUID, _is_iso_datetime

    seen = [dict(leaves(run)) for run in runs]
    markers = {}
    for path, value in leaves(recorded):
        if not isinstance(value, str) or not _FRESH.search(value):
            continue
        found = [run.get(path) for run in seen]
        others = [other for other in found if isinstance(other, str)]
        if len(others) < len(found) or all(other == value for other in others):
            continue
        if _UUID.fullmatch(value) and all(_UUID.fullmatch(other) for other in others):
            markers[path] = "#uuid"
        elif _is_iso_datetime(value) and all(_is_iso_datetime(other) for other in others):
            markers[path] = "#iso-datetime"
        elif all(re.fullmatch(_fresh_pattern(value), other) for other in others):
            markers[path] = "#regex " + _fresh_pattern(value)
    return markers


def fresh_explains(recorded: Any, values: Sequence[Any]) -> bool:
    """Whether the runs' values differ only where the recorded text holds a uuid or an instant.

    Such a text is not a value that became volatile (its timestamp was fresh in the recording
    too); if it differs from the recording otherwise, that is an ordinary difference.
    """
    if not isinstance(recorded, str) or not _FRESH.search(recorded) or not all(isinstance(v, str) for v in values):
        return False
    return len({_FRESH.sub("", value) for value in values}) <= 1


def placeholders(recorded: Any, masks: Sequence[str]) -> dict[str, str]:
    """Paths where the recording holds a redaction mask: a `#regex` marker matching any text where the secret was.

    A cassette redacted at record time holds `«redacted»` where a secret stood; the server it was
    recorded from still sends the secret there, which is not drift.
    """
    markers = {}
    for path, value in leaves(recorded):
        if isinstance(value, str) and any(mask in value for mask in masks):
            parts = re.split("|".join(re.escape(mask) for mask in masks), value)
            markers[path] = "#regex (?s:" + ".+?".join(re.escape(part) for part in parts) + ")"
    return markers


def template(recorded: Any, markers: dict[str, str]) -> Any:
    """The recorded value as an expected document: literal values escaped, volatile paths as markers."""
    expected = escape(copy.deepcopy(recorded))

    def put(value: Any, path: str) -> Any:
        if path in markers:
            return markers[path]
        if isinstance(value, dict):
            from mcpbdd.model.matching import _child

            return {k: put(v, _child(path, k)) for k, v in value.items()}
        if isinstance(value, list):
            return [put(v, f"{path}[{i}]") for i, v in enumerate(value)]
        return value

    return put(expected, "$")


def differences(expected: Any, actual: Any) -> list[tuple[str, str]]:
    """(JSON path, what differs) between an expected document (with markers) and an actual value."""
    return [(m.path, m.reason) for m in matches(expected, actual)]


__all__ = [
    "INPUT_REQUIRED_CHANNEL",
    "NO_ANSWER",
    "OK",
    "PROTOCOL_ERROR",
    "TOOL_ERROR",
    "channel",
    "differences",
    "fresh_explains",
    "fresh_values",
    "observable",
    "placeholders",
    "template",
    "volatile",
]
