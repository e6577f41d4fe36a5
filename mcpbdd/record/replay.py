"""Replaying a cassette's client side against a server, message for message.

The recorded requests are sent again as they were (the SDK's transports carry them: stdio
or Streamable HTTP), in order, one exchange at a time. The server's questions are answered
from the recording: a 2025-11-25 mid-call request gets the recorded answer of its round,
a 2026-07-28 `input_required` result gets the recorded retry with the *fresh* request state.
Values the server made up and the client sent back (a created id) are carried: where a
later request's argument equals a value an earlier recorded result held, the value the
replayed result holds at the same place is sent instead.

Each replay over stdio runs a fresh server process, started as a scenario's is (`spawn`, "auto" by default: a
Python command is forked from a warm parent that has imported its dependencies, so the second and later replays,
and every replay after the first in the same process, skip the interpreter's start and the SDK's import; "plain"
starts it plainly).
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import AsyncIterator, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, TypedDict

import anyio
import httpx2
import mcp_types
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.inbound import (
    MCP_METHOD_HEADER,
    MCP_NAME_HEADER,
    MCP_PROTOCOL_VERSION_HEADER,
    NAME_BEARING_METHODS,
    encode_header_value,
)
from mcp.shared.message import ClientMessageMetadata, SessionMessage

from mcpbdd.harness.processes.spawn import SpawnMode, prepare
from mcpbdd.record.assembler import INPUT_REQUIRED, META_VERSION
from mcpbdd.record.cassette import LEGACY, MODERN, Cassette, Exchange

TIMEOUT = 30.0
"""Seconds one exchange (with all its rounds) may take before the replay gives up on it."""


class ReplayError(RuntimeError):
    """The replay could not run at all (no server, a server that died, a transport failure)."""


@dataclass
class Replayed:
    """What the server answered this time to one recorded exchange."""

    recorded: Exchange
    response: dict[str, Any] | None = None
    rounds: list[dict[str, Any]] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    """What could not be replayed as recorded (an extra question, a timeout)."""
    carried: dict[Any, Any] = field(default_factory=dict)
    """The run's carried values (recorded -> replayed), as the run ended: the same dict for every exchange of it."""


def leaves(value: Any, path: str = "$") -> Iterator[tuple[str, Any]]:
    """Every scalar in a JSON value with its path (`$.items[0].id`), the paths `mcpbdd.model.matching` prints."""
    from mcpbdd.model.matching import _child

    if isinstance(value, dict):
        for key, item in value.items():
            yield from leaves(item, _child(path, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from leaves(item, f"{path}[{index}]")
    else:
        yield path, value


def at(value: Any, path: str) -> Any:
    """The value at a path `leaves` produced (KeyError when it is not there)."""
    for found, item in leaves(value):
        if found == path:
            return item
    raise KeyError(path)


def result_document(response: dict[str, Any] | None) -> Any:
    """What a result's values live in: the structured content, else the whole result."""
    if not response or "result" not in response:
        return None
    result = response["result"]
    return result.get("structuredContent", result)


class Carried:
    """Values an earlier response gave that later requests send back, recorded -> replayed."""

    MIN_LENGTH = 2

    def __init__(self) -> None:
        self.values: dict[Any, Any] = {}

    def learn(self, recorded: dict[str, Any] | None, replayed: dict[str, Any] | None) -> None:
        mine = dict(leaves(result_document(replayed))) if replayed else {}
        for path, value in leaves(result_document(recorded)):
            if isinstance(value, str) and len(value) >= self.MIN_LENGTH and path in mine and mine[path] != value:
                self.values[value] = mine[path]

    def apply(self, value: Any) -> Any:
        if isinstance(value, dict):
            return {k: self.apply(v) for k, v in value.items()}
        if isinstance(value, list):
            return [self.apply(v) for v in value]
        if isinstance(value, str) and value in self.values:
            return self.values[value]
        return value

    def params(self, params: dict[str, Any]) -> dict[str, Any]:
        out = dict(params)
        if "arguments" in out:
            out["arguments"] = self.apply(out["arguments"])
        if isinstance(out.get("uri"), str):
            for old, new in self.values.items():
                if isinstance(new, str) and len(old) >= 4:
                    out["uri"] = out["uri"].replace(old, new)
        return out


@contextlib.asynccontextmanager
async def _transport(
    command: Sequence[str] | None, url: str | None, token: str | None = None, spawn: SpawnMode = "auto"
) -> AsyncIterator[tuple[Any, Any]]:
    if url is not None:
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        async with (
            httpx2.AsyncClient(headers=headers, timeout=TIMEOUT) as http,
            streamable_http_client(url, http_client=http) as streams,
        ):
            yield streams[0], streams[1]
        return
    assert command
    with tempfile.TemporaryFile("w+", encoding="utf-8") as errlog:
        argv = prepare(spawn, command, cwd=os.getcwd(), env=os.environ)  # a warm fork's launcher, or as is
        params = StdioServerParameters(command=argv[0], args=list(argv[1:]), env=dict(os.environ))
        try:
            async with stdio_client(params, errlog=errlog) as (read, write):
                yield read, write
        except OSError as exc:
            raise ReplayError(f"cannot start {command[0]!r}: {exc}") from exc


class _Session:
    def __init__(self, read: Any, write: Any) -> None:
        self.read, self.write = read, write

    async def send(self, message: mcp_types.JSONRPCMessage, metadata: ClientMessageMetadata | None = None) -> None:
        await self.write.send(SessionMessage(message, metadata))

    async def receive(self) -> mcp_types.JSONRPCMessage:
        try:
            item = await self.read.receive()
        except (anyio.EndOfStream, anyio.ClosedResourceError) as exc:
            raise ReplayError("the server closed the connection") from exc
        if isinstance(item, Exception):
            raise ReplayError(f"the transport failed: {item}")
        message: mcp_types.JSONRPCMessage = item.message
        return message

    async def request(self, id_: Any, method: str, params: dict[str, Any]) -> None:
        message = mcp_types.JSONRPCRequest(jsonrpc="2.0", id=id_, method=method, params=params)
        await self.send(message, _routing(method, params))


def _routing(method: str, params: dict[str, Any]) -> ClientMessageMetadata | None:
    """A 2026-07-28 request's per-message HTTP headers (version, method, name), as the SDK's client sets them.

    Over Streamable HTTP a modern server routes on them (without them it asks for a session);
    over stdio the transport ignores them.
    """
    version = (params.get("_meta") or {}).get(META_VERSION)
    if not version:
        return None
    headers = {MCP_PROTOCOL_VERSION_HEADER: version, MCP_METHOD_HEADER: method}
    name_key = NAME_BEARING_METHODS.get(method)
    if name_key is not None and isinstance(name := params.get(name_key), str):
        headers[MCP_NAME_HEADER] = encode_header_value(name)
    return ClientMessageMetadata(headers=headers)


def _answer_message(id_: Any, answer: dict[str, Any]) -> mcp_types.JSONRPCMessage:
    if "error" in answer:
        error = mcp_types.ErrorData.model_validate(answer["error"])
        return mcp_types.JSONRPCError(jsonrpc="2.0", id=id_, error=error)
    return mcp_types.JSONRPCResponse(jsonrpc="2.0", id=id_, result=answer.get("result") or {})


def _outcome(message: mcp_types.JSONRPCResponse | mcp_types.JSONRPCError) -> dict[str, Any]:
    if isinstance(message, mcp_types.JSONRPCResponse):
        return {"result": message.result}
    return {"error": message.error.model_dump(mode="json", exclude_none=True)}


async def _replay_one(session: _Session, exchange: Exchange, carried: Carried, timeout: float) -> Replayed:
    done = Replayed(exchange, carried=carried.values)
    modern = iter([r for r in exchange.rounds if r.get("era") == MODERN and "retry" in r])
    legacy = iter([r for r in exchange.rounds if r.get("era") == LEGACY])
    waiting_for = exchange.request.get("id")
    await session.request(waiting_for, exchange.method, carried.params(exchange.params))
    with anyio.move_on_after(timeout) as scope:
        while True:
            message = await session.receive()
            if isinstance(message, mcp_types.JSONRPCRequest):  # a 2025-11-25 question mid-call
                asked = {"id": message.id, "method": message.method, "params": message.params or {}}
                recorded = next(legacy, None)
                if recorded is None or "answer" not in recorded:
                    done.problems.append(f"the server asked {message.method} where the recording has no question")
                    answer: dict[str, Any] = {"error": {"code": -32601, "message": "not in the recording"}}
                else:
                    answer = recorded["answer"]
                done.rounds.append({"era": LEGACY, "asked": asked, "answer": answer})
                await session.send(_answer_message(message.id, answer))
                continue
            if not isinstance(message, mcp_types.JSONRPCResponse | mcp_types.JSONRPCError):
                continue  # notifications: progress, logging, list changes
            if message.id != waiting_for:
                continue
            outcome = _outcome(message)
            result = outcome.get("result") or {}
            if result.get("resultType") == INPUT_REQUIRED:
                done.rounds.append({"era": MODERN, "asked": result})
                recorded = next(modern, None)
                if recorded is None:  # the recording ended with this question open (or never saw it)
                    done.response = outcome
                    break
                retry = dict(recorded["retry"]["params"])
                retry = carried.params(retry)
                if "requestState" in result:
                    retry["requestState"] = result["requestState"]
                else:
                    retry.pop("requestState", None)
                waiting_for = recorded["retry"]["id"]
                done.rounds[-1]["retry"] = {"id": waiting_for, "params": retry}
                await session.request(waiting_for, exchange.method, retry)
                continue
            done.response = outcome
            break
    if scope.cancelled_caught:
        done.problems.append(f"no answer within {timeout:g} s")
    if exchange.method == "initialize" and done.response and "result" in done.response:
        await session.send(mcp_types.JSONRPCNotification(jsonrpc="2.0", method="notifications/initialized"))
    carried.learn(exchange.response, done.response)
    return done


async def replay(
    cassette: Cassette,
    *,
    command: Sequence[str] | None = None,
    url: str | None = None,
    token: str | None = None,
    timeout: float = TIMEOUT,
    spawn: SpawnMode = "auto",
) -> list[Replayed]:
    """Replay every client exchange of `cassette` against a fresh server started by `command`, or at `url`.

    The caller names the server: the command or URL in the cassette's header is never used (a
    cassette is data, possibly from a remote party; it must not choose what runs). Over HTTP the
    recorded bearer token is not in the cassette: pass `token`, or leave it out to send mcpbdd's
    test token of the recorded caller (`mcpbdd:<tenant>:<subject>`) when one is known. `spawn` says how the
    command starts (see the module docstring).
    """
    if not command and not url:
        raise ReplayError("no server to replay against: pass a command or a URL (the cassette's is never run)")
    if url is not None and token is None:
        token = recorded_test_token(cassette)
    carried = Carried()
    out: list[Replayed] = []
    try:
        async with _transport(command, url, token, spawn) as (read, write):
            session = _Session(read, write)
            for exchange in cassette.exchanges:
                if exchange.origin != "client":
                    continue
                replayed = await _replay_one(session, exchange, carried, timeout)
                out.append(replayed)
                if replayed.problems and replayed.response is None:
                    break  # a server that stops answering gets no more requests
    except ReplayError:
        raise
    except Exception as exc:  # a transport that failed under us: the replay could not run
        raise ReplayError(f"{type(exc).__name__}: {exc}") from exc
    return out


def recorded_test_token(cassette: Cassette) -> str | None:
    """mcpbdd's test token for the caller the recording names (its first), or None."""
    from mcpbdd.kit.principals import Principal

    caller = next((e.caller for e in cassette.exchanges if e.caller), None)
    if not caller or not caller.get("subject") or not caller.get("tenant"):
        return None
    return Principal(str(caller["subject"]), str(caller["tenant"])).token


def replay_sync(cassette: Cassette, **kwargs: Any) -> list[Replayed]:
    return anyio.run(lambda: replay(cassette, **kwargs))


class ReplayTarget(TypedDict, total=False):
    """Where a cassette is replayed, as keywords of `replay` and of what replays it (a feature, a verification)."""

    command: Sequence[str] | None
    """A fresh server process started with this command (never the one the cassette names)."""
    url: str | None
    """A Streamable HTTP server at this URL instead."""
    token: str | None
    """Over HTTP, the bearer token (mcpbdd's test token of the recorded caller by default)."""
    spawn: SpawnMode
    """How the command starts (`mcpbdd.harness.processes.spawn`): "auto" by default, a warm fork of a Python one."""


def replay_runs(cassette: Cassette, times: int, target: ReplayTarget) -> list[list[Replayed]]:
    """`times` replays of `cassette` against `target`, each against a fresh server (none for 0)."""
    return [replay_sync(cassette, **target) for _ in range(max(0, times))]


__all__ = [
    "Carried",
    "ReplayError",
    "ReplayTarget",
    "Replayed",
    "at",
    "leaves",
    "replay",
    "replay_runs",
    "replay_sync",
    "result_document",
]
