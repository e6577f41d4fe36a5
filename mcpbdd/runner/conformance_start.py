"""Before the pack runs: does the server start and answer at all? One "cannot start" verdict, not one per check.

`mcpbdd run`'s own preflight knows only what needs no start (a module that does not import, a program
not on the PATH). A server that starts and ends before its first answer (a missing setting, a port taken,
a crash at start) would otherwise fail every check of both eras with the same message. So `mcpbdd
conformance` starts it once, as the pack will (with the configured environment and folder: plainly, or forked
from a fork server an owner shares, `spawn.one_off`), and lists its tools as the anonymous caller; a server that
cannot get that far is reported once, with the reason the harness gives (its exit code and the end of its stderr),
and the command exits 2.

A refusal of the request (an error answer, an HTTP 401 at a protected server's edge) is an answer: the
server started. The check runs in a short-lived fork, so the run's workers inherit nothing it started.
"""

from __future__ import annotations

import asyncio

import httpx
import httpx2
from mcp.shared.exceptions import MCPError
from mcp_types import CONNECTION_CLOSED

from mcpbdd.harness.base import bounded
from mcpbdd.harness.client import ClientHarness
from mcpbdd.harness.connectors import Connector, Http, Stdio
from mcpbdd.harness.processes.http_process import HttpProcess
from mcpbdd.harness.processes.process_options import ProcessOptions
from mcpbdd.harness.processes.spawn import one_off
from mcpbdd.harness.targets import ServerTarget
from mcpbdd.model.config import Settings
from mcpbdd.model.errors import ServerCannotStart
from mcpbdd.runner.preflight import _isolated

__all__ = ["cannot_start"]


def cannot_start(target: str, settings: Settings) -> str | None:
    """Why the server at `target` cannot start and answer, or None (it answered, even with a refusal)."""
    return _isolated(lambda: asyncio.run(_first_answer(target, settings)))


def _connector(target: ServerTarget, settings: Settings) -> Connector:
    options = ProcessOptions(env=settings.env, cwd=settings.cwd, spawn=one_off(settings.spawn))
    if target.kind == "stdio":
        return Stdio(target.spec, options)
    if target.kind == "http-command":
        return HttpProcess(target.spec, options, tokens=settings.tokens, start_timeout=settings.start_timeout)
    return Http(target.spec, tokens=settings.tokens)


async def _first_answer(spec: str, settings: Settings) -> str | None:
    target = ServerTarget.parse(spec)
    if target.kind == "inprocess":
        return None  # mcpbdd conformance serves it over stdio: its caller passes a stdio target here
    connector = _connector(target, settings)
    edge = getattr(connector, "edge", None)  # an HTTP connector records a 401 or 403 at the server's edge
    harness = ClientHarness(connector, start_timeout=settings.start_timeout)
    try:
        async with harness:
            await bounded("tools/list", settings.start_timeout, harness.list_tools())
    except Exception as exc:
        if edge is not None and edge.take(None) is not None:
            return None  # refused at its HTTP edge: it started (the checks report the refusal of their caller)
        unreached = [leaf for leaf in _leaves(exc) if _unreached(leaf)]
        if not unreached:
            return None  # an answer, whatever it said (an error, a 401, one the SDK's client refuses): it started
        first = unreached[0]
        return str(first) if isinstance(first, ServerCannotStart) else f"{type(first).__name__}: {first}"
    return None


def _leaves(exc: BaseException) -> list[BaseException]:
    if isinstance(exc, BaseExceptionGroup):
        return [leaf for inner in exc.exceptions for leaf in _leaves(inner)]
    return [exc]


def _unreached(exc: BaseException) -> bool:
    """Whether the failure says nothing answered: the server could not start, the connection closed or failed."""
    if isinstance(exc, MCPError):
        return exc.error.code == CONNECTION_CLOSED
    return isinstance(exc, ServerCannotStart | OSError | TimeoutError | httpx.TransportError | httpx2.TransportError)
