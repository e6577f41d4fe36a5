"""Greenlets calling through `mcpbdd.locust.bridge`, in a process patched as a Locust worker is: a probe.

    python tests/locust_bridge_probe.py URL

Prints one JSON line: how long 8 greenlets took to get their `stall` calls back as timeouts (0.5 s each: if the
waits blocked each other, 4 s), what one greenlet counted while the others waited (the hub was not blocked),
and the channel of an `echo`, a `refuse` and a call after `close`. Run in its own process: importing locust
monkey-patches the whole process, which a pytest process must never be.
"""

from __future__ import annotations

import json
import sys
import time

import gevent
import httpx2
import locust  # noqa: F401  (first: it monkey-patches the process, as in a Locust worker)
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from mcpbdd.locust.bridge import CallerSession, LoopThread
from mcpbdd.locust.channels import CallFailed

URL = sys.argv[1]


def connect() -> Client:
    http = httpx2.AsyncClient(headers={"Authorization": "Bearer mcpbdd:acme:probe"}, timeout=5)
    return Client(streamable_http_client(URL, http_client=http), cache=None)


def channel(session: CallerSession, tool: str, arguments: dict[str, object] | None = None) -> str:
    try:
        session.call(tool, arguments or {})
    except CallFailed as failed:
        return failed.text
    return "ok"


loop = LoopThread()
sessions = [CallerSession(loop, connect, 0.5) for _ in range(8)]
assert all(channel(session, "echo", {"text": "warm"}) == "ok" for session in sessions)
ticks = 0


def ticking() -> None:
    global ticks
    while True:
        ticks += 1
        gevent.sleep(0.01)


ticker = gevent.spawn(ticking)
started = time.perf_counter()
stalled = gevent.joinall([gevent.spawn(channel, session, "stall") for session in sessions])
took = time.perf_counter() - started
ticker.kill()
one = sessions[0]
after = {"echo": channel(one, "echo", {"text": "x"}), "refuse": channel(one, "refuse")}
one.close()
print(
    json.dumps(
        {
            "stalled": [greenlet.value for greenlet in stalled],
            "took_s": took,
            "ticks": ticks,
            **after,
        }
    )
)
