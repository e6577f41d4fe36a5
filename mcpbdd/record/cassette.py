"""The cassette: one recorded MCP session as NDJSON, readable by other tools (see docs/cassette.md).

A header line (format, negotiated protocol version, transport, server, client), one line per
exchange (a client request, its rounds and its final response or error, with latency), and an
end line (the server's exit code and stderr). Lines are plain JSON dicts so that the wire form
of every message is kept exactly as it was sent: params and results are never re-serialised
through a model that could drop an unknown field.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mcpbdd.record.cassette_shape import SHAPES, ShapeError, check_line

FORMAT = "mcpbdd-cassette"
VERSION = 1
MODERN = "2026-07-28"
"""The era whose questions come back as `input_required` results (SEP-2322)."""
LEGACY = "2025-11-25"
"""The era whose questions are server-initiated requests in the middle of a call."""


class CassetteError(ValueError):
    """A file that is not a cassette this version of mcpbdd can read (the message names file and line)."""


def _key(name: str) -> str:
    """An attribute's key on a cassette line: camelCase (`started_at` is `startedAt`)."""
    first, *rest = name.split("_")
    return first + "".join(word.capitalize() for word in rest)


def _as_keys(record: Any, *names: str) -> dict[str, Any]:
    """`record`'s attributes `names`, in that order, under their cassette keys."""
    return {_key(name): getattr(record, name) for name in names}


@dataclass
class Header:
    """What the session was: who talked to whom, over what, in which protocol version."""

    transport: str
    server: dict[str, Any]
    """`{"command": [...]}` over stdio, `{"url": ...}` over HTTP."""
    started_at: str
    protocol_version: str | None = None
    client: dict[str, Any] = field(default_factory=dict)
    """`{"name", "version", "capabilities"}` as the client declared them."""

    def to_json(self) -> dict[str, Any]:
        fields = _as_keys(self, "protocol_version", "transport", "server", "client", "started_at")
        return {"type": "header", "format": FORMAT, "version": VERSION, **fields}

    @classmethod
    def from_json(cls, line: dict[str, Any]) -> Header:
        return cls(
            transport=line.get("transport", "stdio"),
            server=line.get("server") or {},
            started_at=line.get("startedAt", ""),
            protocol_version=line.get("protocolVersion"),
            client=line.get("client") or {},
        )

    @property
    def modern(self) -> bool:
        return self.protocol_version is not None and self.protocol_version >= MODERN


@dataclass
class Exchange:
    """One client request as it went: the request, every round of questions, the final response.

    `request` is `{"id", "method", "params"}`; `response` is `{"result": ...}` or `{"error": ...}`
    (None when the session ended first). A round is either
    `{"era": "2026-07-28", "asked": <input_required result>, "retry": {"id", "params"}}` or
    `{"era": "2025-11-25", "asked": {"id", "method", "params"}, "answer": {"result"|"error": ...}}`.
    """

    seq: int
    request: dict[str, Any]
    response: dict[str, Any] | None = None
    rounds: list[dict[str, Any]] = field(default_factory=list)
    started_at: str = ""
    latency_ms: float | None = None
    origin: str = "client"
    """`server` for a request the server made outside any call (it has no rounds)."""
    caller: dict[str, Any] | None = None
    """Over HTTP: who sent it, from the bearer token (`{"subject", "tenant"}`); the token itself is never kept."""

    @property
    def method(self) -> str:
        return str(self.request.get("method", ""))

    @property
    def params(self) -> dict[str, Any]:
        return self.request.get("params") or {}

    @property
    def target(self) -> str:
        """The tool or prompt name, or the resource URI ('' for other methods)."""
        params = self.params
        return str(params.get("name") or params.get("uri") or "")

    @property
    def arguments(self) -> dict[str, Any]:
        return dict(self.params.get("arguments") or {})

    def to_json(self) -> dict[str, Any]:
        line: dict[str, Any] = {"type": "exchange", "seq": self.seq}
        if self.origin != "client":
            line["origin"] = self.origin
        if self.caller:
            line["caller"] = self.caller
        line.update(request=self.request, rounds=self.rounds, response=self.response)
        line.update(startedAt=self.started_at, latencyMs=self.latency_ms)
        return line

    @classmethod
    def from_json(cls, line: dict[str, Any]) -> Exchange:
        return cls(
            seq=int(line.get("seq", 0)),
            request=line.get("request") or {},
            response=line.get("response"),
            rounds=list(line.get("rounds") or []),
            started_at=line.get("startedAt", ""),
            latency_ms=line.get("latencyMs"),
            origin=line.get("origin", "client"),
            caller=line.get("caller"),
        )


@dataclass
class End:
    """How the session ended: the server's exit code and what it wrote to stderr."""

    exit_code: int | None
    stderr: str = ""
    ended_at: str = ""
    messages: int = 0
    unparsed: int = 0
    """Lines on the wire that were not JSON-RPC (passed through, not recorded)."""

    def to_json(self) -> dict[str, Any]:
        return {"type": "end", **_as_keys(self, "exit_code", "stderr", "ended_at", "messages", "unparsed")}

    @classmethod
    def from_json(cls, line: dict[str, Any]) -> End:
        return cls(
            exit_code=line.get("exitCode"),
            stderr=line.get("stderr", ""),
            ended_at=line.get("endedAt", ""),
            messages=int(line.get("messages", 0)),
            unparsed=int(line.get("unparsed", 0)),
        )


@dataclass
class Cassette:
    """A whole recorded session."""

    header: Header
    exchanges: list[Exchange]
    end: End | None = None

    def calls(self) -> list[Exchange]:
        """The exchanges a specification is about: tool calls, resource reads, prompts (in order)."""
        return [e for e in self.exchanges if e.origin == "client" and e.method in CALL_METHODS]


CALL_METHODS = ("tools/call", "resources/read", "prompts/get")


def dumps(line: dict[str, Any]) -> str:
    """One NDJSON line (compact, no trailing newline)."""
    return json.dumps(line, ensure_ascii=False, separators=(",", ":"))


def lines(cassette: Cassette) -> Iterator[str]:
    yield dumps(cassette.header.to_json())
    for exchange in cassette.exchanges:
        yield dumps(exchange.to_json())
    if cassette.end is not None:
        yield dumps(cassette.end.to_json())


def write(cassette: Cassette, path: Path) -> None:
    path.write_text("".join(f"{line}\n" for line in lines(cassette)), encoding="utf-8")


def parse(text_lines: Iterable[str], source: str = "<cassette>") -> Cassette:
    """Read a cassette; a line that is not JSON, not in its place or not of its shape fails naming the line.

    The header comes first and once; nothing follows the end line; no two exchanges share a
    `seq`; every member read has its JSON type (`cassette_shape`).
    """
    header: Header | None = None
    exchanges: list[Exchange] = []
    end: End | None = None
    seen: set[int] = set()
    for number, raw in enumerate(text_lines, start=1):
        if not raw.strip():
            continue
        where = f"{source}:{number}: "
        try:
            line = json.loads(raw)
        except json.JSONDecodeError as exc:
            raise CassetteError(f"{where}not JSON: {exc.msg}") from None
        kind = line.get("type") if isinstance(line, dict) else None
        if kind not in SHAPES:
            raise CassetteError(f"{where}unknown line type {kind!r} (header, exchange or end)")
        if end is not None:
            raise CassetteError(f"{where}a {kind} line after the end line: the end line comes last")
        if (header is None) != (kind == "header"):
            raise CassetteError(f"{where}{_misplaced(kind)}")
        try:
            check_line(kind, line)
        except ShapeError as exc:
            raise CassetteError(f"{where}{kind} line: {exc}") from None
        if kind == "header":
            if line.get("format") != FORMAT or line["version"] > VERSION or line["version"] < 1:
                raise CassetteError(f"{where}not a {FORMAT} version {VERSION} header (this mcpbdd reads version 1)")
            header = Header.from_json(line)
        elif kind == "exchange":
            if line["seq"] in seen:
                raise CassetteError(f"{where}a second exchange with seq {line['seq']}: each seq is one request")
            seen.add(line["seq"])
            exchanges.append(Exchange.from_json(line))
        else:
            end = End.from_json(line)
    if header is None:
        raise CassetteError(f"{source}: no header line: is this a cassette written by `mcpbdd record`?")
    return Cassette(header, exchanges, end)


def _misplaced(kind: str) -> str:
    if kind == "header":
        return "a second header line: a cassette is one session, with one header"
    return f"no header line before this {kind} line: the header comes first (is this a cassette from `mcpbdd record`?)"


def read(path: Path) -> Cassette:
    """The cassette at `path`; a file that cannot be read, is not UTF-8 or not a cassette is a CassetteError."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise CassetteError(f"{path}: {exc.strerror or exc}") from None
    except UnicodeDecodeError as exc:
        line = path.read_bytes()[: exc.start].count(b"\n") + 1
        byte = exc.object[exc.start]
        raise CassetteError(f"{path}:{line}: not UTF-8 (byte {byte:#04x}): a cassette is UTF-8 text") from None
    return parse(text.split("\n"), str(path))


__all__ = [
    "CALL_METHODS",
    "LEGACY",
    "MODERN",
    "Cassette",
    "CassetteError",
    "End",
    "Exchange",
    "Header",
    "dumps",
    "lines",
    "parse",
    "read",
    "write",
]
