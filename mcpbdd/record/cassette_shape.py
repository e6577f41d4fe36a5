"""What each cassette line must hold, checked before anything reads it.

A cassette comes from a file anyone may have written or edited (it is data from a remote
party), so `mcpbdd feature` and `mcpbdd verify` check every member they read: its JSON type,
and whether it may be missing or null. A wrong one is a `CassetteError` naming the file, the
line and the member (`session.ndjson:3: "seq" must be an integer, not "first"`), never a
traceback deep in the replay, and never the exit status 1 that means drift.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, Final

__all__ = ["SHAPES", "ShapeError", "check_line"]


class ShapeError(ValueError):
    """A member of a line that is missing or of the wrong JSON type (the message says which and why)."""


_INTEGER, _NUMBER, _TEXT, _OBJECT, _ARRAY = "an integer", "a number", "a string", "an object", "an array"
_TYPES: Final[dict[str, tuple[type, ...]]] = {
    _INTEGER: (int,),
    _NUMBER: (int, float),
    _TEXT: (str,),
    _OBJECT: (dict,),
    _ARRAY: (list,),
}

Shape = Mapping[str, tuple[str, bool]]
"""member -> (the JSON type it must have, whether it may be missing or null)."""

SHAPES: Final[dict[str, Shape]] = {
    "header": {
        "version": (_INTEGER, False),
        "transport": (_TEXT, True),
        "server": (_OBJECT, True),
        "startedAt": (_TEXT, True),
        "protocolVersion": (_TEXT, True),
        "client": (_OBJECT, True),
    },
    "exchange": {
        "seq": (_INTEGER, False),
        "request": (_OBJECT, False),
        "response": (_OBJECT, True),
        "rounds": (_ARRAY, True),
        "startedAt": (_TEXT, True),
        "latencyMs": (_NUMBER, True),
        "origin": (_TEXT, True),
        "caller": (_OBJECT, True),
    },
    "end": {
        "exitCode": (_INTEGER, True),
        "stderr": (_TEXT, True),
        "endedAt": (_TEXT, True),
        "messages": (_INTEGER, True),
        "unparsed": (_INTEGER, True),
    },
}
"""Each line type's members (the format: docs/cassette.md)."""

_REQUEST: Final[Shape] = {"method": (_TEXT, False), "params": (_OBJECT, True)}
_PARAMS: Final[Shape] = {"name": (_TEXT, True), "uri": (_TEXT, True), "arguments": (_OBJECT, True)}
_ROUND: Final[Shape] = {"era": (_TEXT, False), "asked": (_OBJECT, True), "retry": (_OBJECT, True)}
_ANSWER: Final[Shape] = {"answer": (_OBJECT, True)}
_OUTCOME: Final[Shape] = {"result": (_OBJECT, True), "error": (_OBJECT, True)}
_RETRY: Final[Shape] = {"params": (_OBJECT, True)}


def _shown(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=True)
    return text if len(text) <= 60 else text[:57] + "..."


def _check(line: Mapping[str, Any], shape: Shape, where: str) -> None:
    for member, (kind, optional) in shape.items():
        value = line.get(member)
        if value is None:
            if not optional:
                raise ShapeError(f"{where}{member!r} is missing: it must be {kind}")
            continue
        if isinstance(value, bool) or not isinstance(value, _TYPES[kind]):
            raise ShapeError(f"{where}{member!r} must be {kind}, not {_shown(value)}")


def check_line(kind: str, line: Mapping[str, Any]) -> None:
    """Raise `ShapeError` if a line of type `kind` (header, exchange, end) lacks a member or has a wrong one."""
    _check(line, SHAPES[kind], "")
    if kind != "exchange":
        return
    _check(line["request"], _REQUEST, "request: ")
    if line["request"].get("params") is not None:
        _check(line["request"]["params"], _PARAMS, "request: params: ")
    if line.get("response") is not None:
        _check(line["response"], _OUTCOME, "response: ")
    for number, round_ in enumerate(line.get("rounds") or []):
        where = f"rounds[{number}]: "
        if not isinstance(round_, dict):
            raise ShapeError(f"{where}must be an object, not {_shown(round_)}")
        _check(round_, _ROUND, where)
        _check(round_, _ANSWER, where)
        if round_.get("retry") is not None:
            _check(round_["retry"], _RETRY, f"{where}retry: ")
        if round_.get("answer") is not None:
            _check(round_["answer"], _OUTCOME, f"{where}answer: ")
