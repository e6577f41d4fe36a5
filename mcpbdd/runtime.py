"""One event loop for the run, one owner task per scenario.

behave runs every step as a plain function call. An `mcp.Client` (and the server
lifespan, and later subprocesses) is an async context manager whose anyio cancel
scopes must be exited by the task that entered them: enter a client in one step's
`run_until_complete` and exit it in another's and anyio raises "Attempted to exit
cancel scope in a different task".

So each scenario gets an *owner task* on a loop that lives for the whole run. The
owner enters every async resource the scenario asks for and, at cleanup, exits them
all in reverse order in that same task. Steps drive the loop only for as long as their
own call takes (`run`), during which the owner task (and whatever it entered, such as
a client's receive loop) keeps running. No second thread is involved: an anyio
blocking portal would cost a thread hand-off per call (measured ~2.3x).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable, Coroutine
from contextlib import AbstractAsyncContextManager, AsyncExitStack
from typing import Any, TypeVar

from mcpbdd._sdk import set_anyio_root_task

T = TypeVar("T")

_CLOSE = object()


class OwnerTaskDied(RuntimeError):
    """The scenario's owner task ended early (a resource it holds crashed)."""


class ScenarioOwner:
    """Owns a scenario's async resources inside one task on a shared loop.

    `enter(cm)` hands a context manager to the owner task, which enters it and keeps
    it open; `close()` makes the owner task exit everything it entered, LIFO, in the
    same task. `run(coro)` drives the loop for one coroutine (a call, an assertion
    that needs the server) while the owner task stays alive in the background.
    """

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self._loop = loop
        self._queue: asyncio.Queue[Any] = asyncio.Queue()
        self._task: asyncio.Task[None] = loop.create_task(self._own(), name="mcpbdd-scenario-owner")
        self._closed = False
        self.close_errors: list[BaseException] = []

    @property
    def loop(self) -> asyncio.AbstractEventLoop:
        return self._loop

    async def _own(self) -> None:
        async with AsyncExitStack() as stack:
            while True:
                item = await self._queue.get()
                if item is _CLOSE:
                    return
                enter, future = item
                try:
                    value = await enter(stack)
                except BaseException as exc:  # handed back to the step that asked
                    if not future.done():
                        future.set_exception(exc)
                    if not isinstance(exc, Exception):
                        raise
                else:
                    if not future.done():
                        future.set_result(value)

    async def _wait(self, future: asyncio.Future[T]) -> T:
        """Wait for the owner's answer, or report that the owner itself died."""
        done, _ = await asyncio.wait({future, self._task}, return_when=asyncio.FIRST_COMPLETED)
        if future in done:
            return future.result()
        future.cancel()
        raise OwnerTaskDied(f"the scenario's owner task ended before answering: {self._describe_death()}")

    def _describe_death(self) -> str:
        if not self._task.done():
            return "still running"
        if self._task.cancelled():
            return "it was cancelled"
        exc = self._task.exception()
        return f"{type(exc).__name__}: {exc}" if exc else "it finished"

    async def enter_async(self, cm: AbstractAsyncContextManager[T]) -> T:
        """Have the owner task enter `cm`; return what `__aenter__` returned."""
        return await self.call_in_owner(lambda stack: stack.enter_async_context(cm))

    async def call_in_owner(self, fn: Callable[[AsyncExitStack], Awaitable[T]]) -> T:
        """Run `fn(stack)` inside the owner task (so whatever it enters, the owner exits)."""
        if self._closed:
            raise RuntimeError("this scenario's resources are already closed")
        if self._task.done():
            raise OwnerTaskDied(f"the scenario's owner task is gone: {self._describe_death()}")
        future: asyncio.Future[T] = self._loop.create_future()
        self._queue.put_nowait((fn, future))
        return await self._wait(future)

    def run(self, coro: Coroutine[Any, Any, T]) -> T:
        """Drive the loop until `coro` finishes (the owner keeps running meanwhile)."""
        return self._loop.run_until_complete(coro)

    def enter(self, cm: AbstractAsyncContextManager[T]) -> T:
        """Synchronous `enter_async`, for step code."""
        return self.run(self.enter_async(cm))

    def close(self) -> list[BaseException]:
        """Exit every resource in the owner task, LIFO; never raises, returns what went wrong."""
        if self._closed:
            return self.close_errors
        self._closed = True
        if not self._task.done():
            self._queue.put_nowait(_CLOSE)
        try:
            self._loop.run_until_complete(self._task)
        except BaseException as exc:  # a resource failed while closing: keep it for the report
            self.close_errors.append(exc)
        return self.close_errors


class RunLoop:
    """The one event loop of a run (a behave run or a pytest session).

    It also keeps one task alive for the whole run and makes it anyio's *root task*.
    The SDK runs sync tools in anyio worker threads, and anyio stops its workers when the
    root task ends; left to itself anyio would pick the task of the current
    `run_until_complete`, i.e. one step, and start and stop an OS thread for every step
    that reaches a sync tool (measured: 3-5x the cost of the step). With a run-long root
    task the worker threads are reused across steps and stopped when the run ends.
    """

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self._keeper: asyncio.Task[None] = self.loop.create_task(_sleep_forever(), name="mcpbdd-run-root")
        self.loop.run_until_complete(_make_anyio_root(self._keeper))

    def owner(self) -> ScenarioOwner:
        return ScenarioOwner(self.loop)

    def close(self) -> None:
        if self.loop.is_closed():
            return
        pending = [t for t in asyncio.all_tasks(self.loop) if not t.done()]
        for task in pending:
            task.cancel()
        if pending:
            with contextlib.suppress(BaseException):
                self.loop.run_until_complete(asyncio.gather(*pending, return_exceptions=True))
        with contextlib.suppress(BaseException):
            self.loop.run_until_complete(self.loop.shutdown_asyncgens())
        self.loop.close()


async def _sleep_forever() -> None:
    await asyncio.Event().wait()


async def _make_anyio_root(task: asyncio.Task[None]) -> None:
    """Tell anyio which task owns its worker threads (see `mcpbdd._sdk.set_anyio_root_task`)."""
    await set_anyio_root_task(task)


__all__ = ["OwnerTaskDied", "RunLoop", "ScenarioOwner"]
