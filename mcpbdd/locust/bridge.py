"""Driving the SDK's async `mcp.Client` from Locust's users, which are gevent greenlets.

Locust monkey-patches the process (`gevent.monkey.patch_all()`, on `import locust`): sockets, locks, `threading`
and `selectors` become gevent's, and every user is a greenlet on the main thread's hub. The SDK client is
asyncio (anyio) code. Two ways that do not work: running `asyncio.run` inside each greenlet (asyncio allows one
running loop per OS thread, and greenlets share the thread: the second user fails with "Cannot run the event
loop while another loop is running"), and blocking a greenlet on `concurrent.futures.Future.result()` (it
blocks the hub, so every other user of the worker stops).

What this module does instead, one of each per worker process:

- **one asyncio loop in a real OS thread** (started with the unpatched `_thread.start_new_thread`). Under the
  patch the loop's selector is gevent's, so that thread gets a hub of its own which runs inside the loop's
  `select`: the patched sockets, locks and the default executor (name resolution) all work there, and nothing
  of it touches the main thread's hub;
- **one owner task per caller** on that loop: it enters the caller's `mcp.Client` and exits it in the same task
  (anyio's cancel scopes require that), and serves the caller's calls from a queue, one at a time as a Locust
  user makes them. A session the transport broke is reopened on the next call;
- **a gevent-friendly wait**: a greenlet hands a call over with `loop.call_soon_threadsafe` and waits on a
  `gevent.event.AsyncResult`; the loop thread appends each answer to a deque and wakes the main hub through one
  `async_` watcher (the one gevent watcher that is safe to signal from another thread), whose callback sets
  the results in the hub's own thread. So a waiting user costs nothing, and the others run meanwhile.

Every call is bounded twice: inside the loop (`anyio.fail_after`, so the SDK cancels its own request) and, as a
safety net, in the greenlet's wait (a little longer). What the bridge costs against raw SDK calls at the same
concurrency is measured in bench/bench_locust.py (BENCHMARKS.md).
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from mcpbdd.locust.channels import CallFailed, classify_error, classify_result

__all__ = ["WAIT_GRACE_S", "CallerSession", "LoopThread"]

WAIT_GRACE_S = 2.0
"""How much longer than the call's own timeout a greenlet waits before it gives up on the loop thread."""


class LoopThread:
    """One asyncio loop in a real OS thread, and the thread-safe way back to the gevent hub."""

    def __init__(self) -> None:
        import gevent
        from gevent import monkey

        start_thread = monkey.get_original("_thread", "start_new_thread")
        allocate_lock = monkey.get_original("_thread", "allocate_lock")
        self._answers: collections.deque[tuple[Any, Any, BaseException | None]] = collections.deque()
        self._watcher = gevent.get_hub().loop.async_()
        self._watcher.start(self._deliver)
        started = allocate_lock()
        started.acquire()
        self.loop: asyncio.AbstractEventLoop | None = None

        def run() -> None:
            loop = asyncio.new_event_loop()
            asyncio.set_event_loop(loop)
            self.loop = loop
            started.release()
            try:
                loop.run_forever()
            finally:
                loop.close()

        start_thread(run, ())
        started.acquire()  # a real lock: the thread is up in microseconds

    def _deliver(self) -> None:
        """In the main hub: hand every answer that arrived to the greenlet waiting for it."""
        while self._answers:
            waiting, value, error = self._answers.popleft()
            if error is not None:
                waiting.set_exception(error)
            else:
                waiting.set(value)

    def answer(self, waiting: Any, value: Any, error: BaseException | None = None) -> None:
        """From the loop thread: answer a waiting greenlet (thread-safe)."""
        self._answers.append((waiting, value, error))
        self._watcher.send()

    def call_soon(self, callback: Callable[..., Any], *args: Any) -> None:
        assert self.loop is not None
        self.loop.call_soon_threadsafe(callback, *args)

    def stop(self) -> None:
        if self.loop is not None and not self.loop.is_closed():
            with contextlib.suppress(RuntimeError):
                self.loop.call_soon_threadsafe(self.loop.stop)
        self._watcher.close()


@dataclass
class _Job:
    tool: str
    arguments: dict[str, Any]
    waiting: Any


class CallerSession:
    """One caller's MCP session, owned by one task on the loop thread; `call` is made from a greenlet."""

    def __init__(self, loop_thread: LoopThread, connect: Callable[[], Any], timeout_s: float) -> None:
        self._thread = loop_thread
        self._connect = connect
        """A fresh `mcp.Client` (not yet entered) for this caller, built on the loop thread."""
        self.timeout_s = timeout_s
        self._queue: asyncio.Queue[_Job | None] | None = None
        self._owner: asyncio.Task[None] | None = None
        self._thread.call_soon(self._start)

    def _start(self) -> None:
        self._queue = asyncio.Queue()
        self._owner = asyncio.get_running_loop().create_task(self._own())

    def call(self, tool: str, arguments: dict[str, Any]) -> Any:
        """Call `tool` and wait without blocking the other greenlets; a call that did not end `ok` raises
        `CallFailed` naming its channel."""
        from gevent import Timeout
        from gevent.event import AsyncResult

        waiting = AsyncResult()
        self._thread.call_soon(self._enqueue, _Job(tool, arguments, waiting))
        try:
            return waiting.get(timeout=self.timeout_s + WAIT_GRACE_S)
        except Timeout:
            raise CallFailed("timeout") from None

    def _enqueue(self, job: _Job | None) -> None:
        assert self._queue is not None
        self._queue.put_nowait(job)

    def close(self) -> None:
        """Ask the owner task to leave the session (it exits the client in its own task)."""
        self._thread.call_soon(self._enqueue, None)

    async def _own(self) -> None:
        """Serve the caller's calls in one session, reopened when its transport breaks, until `close`."""
        assert self._queue is not None
        job: _Job | None = await self._queue.get()
        while job is not None:
            current: _Job | None = job
            closing = False
            try:
                async with self._connect() as client:
                    while current is not None:
                        await self._answer(client, current)
                        current = None  # answered: a break while waiting for the next call loses none
                        current = await self._queue.get()
                    closing = True
                return
            except Exception as error:  # the session broke: answer the call it held, reopen on the next one
                if closing:
                    return  # it broke while closing: nothing more to serve
                if current is not None:
                    self._thread.answer(current.waiting, None, classify_error(error))
            job = await self._queue.get()

    async def _answer(self, client: Any, job: _Job) -> None:
        import anyio

        try:
            with anyio.fail_after(self.timeout_s):
                result = await client.call_tool(job.tool, job.arguments)
        except Exception as error:
            failure = classify_error(error)
            if failure.channel == "transport_error":
                raise  # the session may be broken: the owner reopens it (and answers this call)
            self._thread.answer(job.waiting, None, failure)
            return
        failed = classify_result(result)
        self._thread.answer(job.waiting, result, failed)
