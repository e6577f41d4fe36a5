"""ASGI apps served on 127.0.0.1 by uvicorn, from an event loop in a thread of its own: mcpbdd's one HTTP stack.

The helper servers a scenario or a run needs (the upstream doubles over loopback, the fake authorization
server) are ASGI apps served here, as the recorder and the example server's HTTP mode are served by uvicorn.
They run in a thread because the scenario's event loop only runs while a step drives it, while a server in
another process may call them at any moment (at start-up, in the background, between steps).

- The port is bound before `serve()` returns, and listens by then: the URL is usable at once.
- `stop()` is quick and complete: the listening sockets close, idle connections close, a connection still
  in a request has `grace` seconds to finish (an app ends its own long waits on `stopping`), then it is
  dropped; the loop stops and the thread is joined. uvicorn's own shutdown waits at least 100 ms, which a
  scenario would pay once per stop, so the steps are done here with uvicorn's server parts.
- An app may drop its request's connection without an answer, or with a TCP reset (`drop()`): an upstream
  that holds a request and gives up, or one that vanishes. ASGI has no word for it, so the connections are
  tracked as uvicorn's protocol makes them (a subclass of its h11 protocol, passed as `Config(http=...)`).

uvicorn is imported when the first thread starts (it is heavy, and a run without these servers needs none).
"""

from __future__ import annotations

import asyncio
import socket
import struct
import threading
from collections.abc import Awaitable, Callable, MutableMapping
from concurrent.futures import Future
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import uvicorn

__all__ = ["ASGIApp", "LoopbackHttp", "Scope"]

Scope = MutableMapping[str, Any]
ASGIApp = Callable[
    [Scope, Callable[[], Awaitable[MutableMapping[str, Any]]], Callable[[MutableMapping[str, Any]], Awaitable[None]]],
    Awaitable[None],
]

STOP_GRACE = 5.0
"""Seconds a connection still in a request has to finish when the thread stops, before it is dropped."""

START_TIMEOUT = 10.0
"""Seconds the loop thread has to start serving an app (it takes about a millisecond)."""

_Key = tuple[Any, Any]
"""A connection: (client address, server address), as an ASGI scope's `client` and `server` name it."""


def _key(client: Any, server: Any) -> _Key:
    return (tuple(client) if client else None, tuple(server) if server else None)


class LoopbackHttp:
    """One event loop in a thread, serving ASGI apps on 127.0.0.1 ports of their own with uvicorn.

        http = LoopbackHttp("mcpbdd-fake-as")
        url = http.serve(app)        # "http://127.0.0.1:<port>", listening already
        ...
        http.stop()                  # every port closed, every connection ended, the thread joined

    Thread-safe: `serve()` and `stop()` may be called from any thread but the loop's own.
    """

    def __init__(self, name: str) -> None:
        self.name = name
        self._loop = asyncio.new_event_loop()
        self.stopping = asyncio.Event()
        """Set (on the loop) when `stop()` begins: an app waiting on something long waits on this too."""
        self._servers: list[uvicorn.Server] = []
        self._transports: dict[_Key, asyncio.Transport] = {}
        self._lock = threading.Lock()
        self._stopped = False
        self._thread = threading.Thread(target=self._run, name=name, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        asyncio.set_event_loop(self._loop)
        try:
            self._loop.run_forever()
        finally:
            self._loop.close()

    # serving ---------------------------------------------------------------------------------------------

    def serve(self, app: ASGIApp) -> str:
        """Serve `app` on a new port of 127.0.0.1 (bound and listening when this returns); its base URL."""
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        try:
            sock.bind(("127.0.0.1", 0))
            port = int(sock.getsockname()[1])
            with self._lock:
                if self._stopped:
                    raise RuntimeError(f"{self.name}: this loopback HTTP thread was stopped; start a new one")
                self._call(self._start(app, sock), START_TIMEOUT)
        except BaseException:
            sock.close()
            raise
        return f"http://127.0.0.1:{port}"

    async def _start(self, app: ASGIApp, sock: socket.socket) -> None:
        import uvicorn
        from uvicorn.lifespan.off import LifespanOff

        config = uvicorn.Config(
            app,
            http=self._protocol(),
            ws="none",
            lifespan="off",
            interface="asgi3",
            log_config=None,  # uvicorn's default would reconfigure the process's logging, once per server
            proxy_headers=False,  # nobody is in front of a loopback double
            server_header=False,
            date_header=False,
        )
        config.load()
        server = uvicorn.Server(config)
        server.lifespan = LifespanOff(config)  # what `Server.serve` sets before `startup`; no lifespan to run
        await server.startup(sockets=[sock])
        self._servers.append(server)

    def _protocol(self) -> type[asyncio.Protocol]:
        """uvicorn's h11 protocol, recording each connection's transport so that an app can drop it."""
        from uvicorn.protocols.http.h11_impl import H11Protocol

        transports = self._transports

        class Tracked(H11Protocol):
            def __init__(self, *args: Any, **kwargs: Any) -> None:
                super().__init__(*args, **kwargs)
                # No access log line per request (a double's requests are recorded, not logged). Not through
                # `Config(access_log=False)`: that empties the process's "uvicorn.access" logger for everyone.
                self.access_log = False

            def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
                super().connection_made(transport)
                self.mcpbdd_key = _key(self.client, self.server)
                transports[self.mcpbdd_key] = transport

            def connection_lost(self, exc: Exception | None) -> None:
                transports.pop(self.mcpbdd_key, None)
                super().connection_lost(exc)

        return Tracked

    async def drop(self, scope: Scope, *, reset: bool = False) -> None:
        """Close the connection of `scope`'s request without an answer (`reset`: with a TCP reset). In the app."""
        transport = self._transports.get(_key(scope.get("client"), scope.get("server")))
        if transport is None:
            return  # the client has gone already
        if reset:
            sock = transport.get_extra_info("socket")
            if sock is not None:
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            transport.abort()
        else:
            transport.close()
        await asyncio.sleep(0)  # the protocol sees the connection lost before the app returns: no 500 is sent

    # stopping --------------------------------------------------------------------------------------------

    @property
    def connections(self) -> int:
        """How many connections are open now (0 after `stop()`)."""
        return len(self._transports)

    def stop(self, grace: float = STOP_GRACE) -> None:
        """Close every port and connection, stop the loop and join the thread (idempotent)."""
        with self._lock:
            if self._stopped:
                return
            self._stopped = True
        if self._thread.is_alive():
            try:
                self._call(self._close(grace), grace + START_TIMEOUT)
            finally:
                self._loop.call_soon_threadsafe(self._loop.stop)
                self._thread.join(timeout=grace + START_TIMEOUT)

    async def _close(self, grace: float) -> None:
        self.stopping.set()
        for server in self._servers:
            for listener in server.servers:
                listener.close()  # the port refuses connections from now on
            for connection in list(server.server_state.connections):
                connection.shutdown()  # an idle one closes now; one in a request closes after its answer
        loop = asyncio.get_running_loop()
        deadline = loop.time() + grace
        while self._transports and loop.time() < deadline:
            await asyncio.sleep(0.001)
        for transport in list(self._transports.values()):
            transport.abort()
        tasks = [task for server in self._servers for task in server.server_state.tasks]
        for task in tasks:
            task.cancel()
        if tasks:
            await asyncio.wait(tasks, timeout=grace)
        for server in self._servers:
            for listener in server.servers:
                await listener.wait_closed()
        self._servers.clear()

    def _call(self, coroutine: Any, timeout: float) -> None:
        """Run `coroutine` on the loop and wait for it (from another thread)."""
        if threading.current_thread() is self._thread:
            coroutine.close()
            raise RuntimeError(f"{self.name}: serve() and stop() are called from outside the loop's thread")
        future: Future[None] = asyncio.run_coroutine_threadsafe(coroutine, self._loop)
        future.result(timeout)

    def __repr__(self) -> str:
        state = "stopped" if self._stopped else f"{len(self._servers)} app(s), {self.connections} connection(s)"
        return f"LoopbackHttp({self.name!r}: {state})"
