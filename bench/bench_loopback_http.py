"""What a scenario pays for a loopback HTTP server: start, one request, stop, uvicorn against the stdlib.

A scenario whose server runs in another process (stdio, HTTP) starts the upstream loopback server
(`LoopbackServer`: the catch-all, and a port per upstream origin) and stops it at its end, so its
start and stop are paid once per scenario. Three lifecycles, each `start, one GET, stop`, rounds
alternating (the machine is shared and noisy; only ratios within a run mean much):

- `stdlib`: a `ThreadingHTTPServer` in a thread, stopped as the loopback server stopped before it
  moved to uvicorn (`shutdown()` woken at once by a connection, then `server_close()` and a join);
- `uvicorn`: `LoopbackHttp` (uvicorn's h11 protocol on an event loop in a thread) with one ASGI app;
- `LoopbackServer`: the real thing, with its catch-all and one named origin, a GET to the origin.

    .venv/bin/python bench/bench_loopback_http.py [--reps 7] [--rounds 30]
"""

from __future__ import annotations

import argparse
import contextlib
import socket
import statistics
import threading
import time
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import httpx

from mcpbdd._loopback_http import LoopbackHttp
from mcpbdd.upstream import LoopbackServer, Upstream

API = "https://api.example"


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.0"

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def do_GET(self) -> None:
        self.send_response(200)
        self.send_header("content-length", "2")
        self.end_headers()
        self.wfile.write(b"ok")


def stdlib_once(client: httpx.Client) -> None:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    port = server.server_address[1]
    assert client.get(f"http://127.0.0.1:{port}/").status_code == 200
    stopper = threading.Thread(target=server.shutdown, daemon=True)
    stopper.start()
    while stopper.is_alive():  # the wake-up the stdlib loopback used (serve_forever polls every 50 ms otherwise)
        with contextlib.suppress(OSError):
            socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
        stopper.join(0.002)
    server.server_close()
    thread.join()


async def _ok(scope: Any, receive: Any, send: Any) -> None:
    headers = [(b"content-length", b"2"), (b"connection", b"close")]
    await send({"type": "http.response.start", "status": 200, "headers": headers})
    await send({"type": "http.response.body", "body": b"ok"})


def uvicorn_once(client: httpx.Client) -> None:
    http = LoopbackHttp("bench-loopback-http")
    url = http.serve(_ok)
    assert client.get(url + "/").status_code == 200
    http.stop()


def loopback_server_once(client: httpx.Client) -> None:
    upstream = Upstream()
    upstream.answer(API, "GET", "/a", 200, {"ok": True})
    with LoopbackServer(upstream) as loopback:
        assert client.get(loopback.url_for(API) + "/a").status_code == 200


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--reps", type=int, default=7)
    parser.add_argument("--rounds", type=int, default=30)
    args = parser.parse_args()
    cases: dict[str, Callable[[httpx.Client], None]] = {
        "stdlib": stdlib_once,
        "uvicorn": uvicorn_once,
        "LoopbackServer": loopback_server_once,
    }
    times: dict[str, list[float]] = {name: [] for name in cases}
    with httpx.Client() as client:
        for run in cases.values():  # warm-up: imports, first sockets
            run(client)
        for _ in range(args.reps):
            for name, run in cases.items():
                started = time.perf_counter()
                for _ in range(args.rounds):
                    run(client)
                times[name].append((time.perf_counter() - started) / args.rounds * 1000)
    base = statistics.median(times["stdlib"])
    print(f"start + one GET + stop, median over {args.reps} reps of the mean of {args.rounds} (ms; spread min-max)")
    for name, values in times.items():
        median = statistics.median(values)
        print(f"  {name:15} {median:7.2f} ms  ({min(values):.2f}-{max(values):.2f})  x{median / base:.2f} of stdlib")
    print(f"threads left: {[t.name for t in threading.enumerate() if t is not threading.main_thread()]}")


if __name__ == "__main__":
    main()
