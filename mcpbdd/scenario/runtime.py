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

Interrupts. Python raises `KeyboardInterrupt` at whatever line runs when SIGINT arrives; while
the loop runs, that can be inside a task (the owner's exits, the SDK's process shutdown) and
break it half-way, or be caught by a close and reported as a close error while the run goes
on. So a RunLoop handles SIGINT while it lives (and SIGTERM, once `mcpbdd.behave` makes it
an interrupt), unless a project installed a handler of its own. Between steps a signal raises
at once, as Python's own handler does. During a step the first signal cancels the step's
coroutine and `run` raises the interrupt once it has unwound; during a close the first signal
is held until everything is closed, then raised. A second signal raises at once (the user
insists: stop waiting). SIGTERM
is raised as `Terminated`, a `KeyboardInterrupt`, so behave stops the run and still runs its
after-hooks; the process then ends as killed by SIGTERM (status 143), as its sender expects.
"""

from __future__ import annotations

import asyncio
import atexit
import contextlib
import logging
import os
import signal
import sys
import threading
from collections.abc import Awaitable, Callable, Coroutine
from contextlib import AbstractAsyncContextManager, AsyncExitStack
from types import FrameType
from typing import Any, TypeVar

from mcpbdd._sdk import set_anyio_root_task

T = TypeVar("T")

_CLOSE = object()


class OwnerTaskDied(RuntimeError):
    """The scenario's owner task ended early (a resource it holds crashed)."""


class Terminated(KeyboardInterrupt):
    """SIGTERM, raised as an interrupt: behave stops the run on a `KeyboardInterrupt` and still runs its after-hooks."""

    def __str__(self) -> str:
        return "SIGTERM"


def signal_name(interrupt: BaseException) -> str:
    """The signal behind an interrupt, for messages: SIGTERM for `Terminated`, SIGINT for any other."""
    return "SIGTERM" if isinstance(interrupt, Terminated) else "SIGINT"


_exit_as_terminated = False


def _interrupt(number: int) -> KeyboardInterrupt:
    """The exception for a signal; a SIGTERM also makes the process end as killed by it once it has cleaned up."""
    global _exit_as_terminated
    if number != signal.SIGTERM:
        return KeyboardInterrupt()
    if not _exit_as_terminated:
        _exit_as_terminated = True
        atexit.register(_die_of_sigterm)
    return Terminated()


def _die_of_sigterm() -> None:
    """At interpreter exit after a SIGTERM: flush, then end by that signal (exit status 143), not behave's 1."""
    with contextlib.suppress(Exception):
        logging.shutdown()
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):
            stream.flush()
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    os.kill(os.getpid(), signal.SIGTERM)
    os._exit(128 + signal.SIGTERM)  # pragma: no cover - only if the signal could not end the process


_MAIN_THREAD = threading.main_thread().ident
_window: _Window | None = None
_loops_alive = 0


def _on_signal(number: int, frame: FrameType | None) -> None:
    """The handler of SIGINT while a RunLoop lives, and of SIGTERM after `handle_sigterm` (see the module's doc).

    Installed once, not per step (`signal.signal` costs ~6 µs a call): a step only marks its window.
    Outside a window it raises at once, as Python's own SIGINT handler does.
    """
    window = _window
    if window is None:
        raise _interrupt(number)
    window.received.append(number)
    if len(window.received) > 1:
        raise _interrupt(window.received[0])
    if window.on_first is not None:
        window.on_first()


class _Window:
    """A stretch of time the loop runs (a step, a close) during which a signal is not raised where it lands.

    The first signal calls `on_first` (cancel the step) or, without one, is only held; `raise_if_received`
    raises it afterwards. A second signal raises at once. Off the main thread it does nothing: Python
    runs signal handlers in the main thread only.
    """

    def __init__(self, on_first: Callable[[], None] | None = None) -> None:
        self.on_first = on_first
        self.received: list[int] = []
        self._outer: _Window | None = None
        self._open = False

    def __enter__(self) -> _Window:
        global _window
        if threading.get_ident() == _MAIN_THREAD:
            self._outer, _window, self._open = _window, self, True
        return self

    def __exit__(self, *exc_info: object) -> None:
        global _window
        if self._open:
            _window, self._open = self._outer, False

    def raise_if_received(self, cause: BaseException | None = None) -> None:
        if self.received:
            raise _interrupt(self.received[0]) from cause


def _take_sigint() -> None:
    """The first live RunLoop takes SIGINT over, unless someone installed a handler of their own."""
    global _loops_alive
    _loops_alive += 1
    main = threading.get_ident() == _MAIN_THREAD
    if _loops_alive == 1 and main and signal.getsignal(signal.SIGINT) is signal.default_int_handler:
        signal.signal(signal.SIGINT, _on_signal)


def _give_sigint_back() -> None:
    global _loops_alive
    _loops_alive = max(0, _loops_alive - 1)
    main = threading.get_ident() == _MAIN_THREAD
    if _loops_alive == 0 and main and signal.getsignal(signal.SIGINT) is _on_signal:
        signal.signal(signal.SIGINT, signal.default_int_handler)


def handle_sigterm() -> bool:
    """Make SIGTERM an interrupt (behave's `before_all` calls this). Only from the main thread, over the default."""
    if threading.get_ident() != _MAIN_THREAD:
        return False
    if signal.getsignal(signal.SIGTERM) is not signal.SIG_DFL:
        return False  # the project (or its runner) has a handler of its own: keep it
    signal.signal(signal.SIGTERM, _on_signal)
    return True


def restore_sigterm() -> None:
    """Undo `handle_sigterm` (behave's `after_all`); a handler someone else installed since is left alone."""
    if threading.get_ident() == _MAIN_THREAD and signal.getsignal(signal.SIGTERM) is _on_signal:
        signal.signal(signal.SIGTERM, signal.SIG_DFL)


def _interrupt_in(exc: BaseException) -> BaseException | None:
    """The interrupt (KeyboardInterrupt or SystemExit) `exc` is or carries in an exception group, if any."""
    if isinstance(exc, (KeyboardInterrupt, SystemExit)):
        return exc
    if isinstance(exc, BaseExceptionGroup):
        for inner in exc.exceptions:
            found = _interrupt_in(inner)
            if found is not None:
                return found
    return None


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
        either: set[asyncio.Future[Any]] = {future, self._task}
        done, _ = await asyncio.wait(either, return_when=asyncio.FIRST_COMPLETED)
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
        """Drive the loop until `coro` finishes (the owner keeps running meanwhile).

        An interrupt meanwhile cancels `coro` (so it unwinds at an await, never half-way through a
        line of some task) and is raised here once it has.
        """
        task = self._loop.create_task(coro)

        def cancel() -> None:
            task.cancel()
            self._loop.call_soon_threadsafe(_nothing)  # wake the selector: the handler ran inside its wait

        with _Window(on_first=cancel) as interrupts:
            try:
                result = self._loop.run_until_complete(task)
            except BaseException as exc:
                if isinstance(exc, KeyboardInterrupt):  # a second signal, raised at once
                    raise
                interrupts.raise_if_received(cause=None if isinstance(exc, asyncio.CancelledError) else exc)
                raise
        interrupts.raise_if_received()  # the coroutine swallowed its cancellation: the interrupt still stands
        return result

    def enter(self, cm: AbstractAsyncContextManager[T]) -> T:
        """Synchronous `enter_async`, for step code."""
        return self.run(self.enter_async(cm))

    def close(self) -> list[BaseException]:
        """Exit every resource in the owner task, LIFO; return what failed while closing.

        An interrupt is never one of those errors: one that arrives while closing is held until
        everything is closed and then raised (a second one raises at once), and one the owner task
        itself ended with is raised too. So an interrupted run stops, and what it had open is closed.
        """
        if self._closed:
            return self.close_errors
        self._closed = True
        if not self._task.done():
            self._queue.put_nowait(_CLOSE)
        with _Window() as interrupts:
            try:
                self._loop.run_until_complete(self._task)
            except BaseException as exc:
                interrupt = _interrupt_in(exc)
                if interrupt is exc:
                    raise
                if interrupt is not None:
                    raise interrupt from exc
                self.close_errors.append(exc)  # a resource failed while closing: keep it for the report
        interrupts.raise_if_received()
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
        _take_sigint()
        self.loop = asyncio.new_event_loop()
        self._keeper: asyncio.Task[None] = self.loop.create_task(_sleep_forever(), name="mcpbdd-run-root")
        self.loop.run_until_complete(_make_anyio_root(self._keeper))

    def owner(self) -> ScenarioOwner:
        return ScenarioOwner(self.loop)

    def close(self) -> None:
        """Cancel what is left on the loop and close it; an interrupt meanwhile is raised once it is closed."""
        if self.loop.is_closed():
            return
        with _Window() as interrupts:
            pending = [t for t in asyncio.all_tasks(self.loop) if not t.done()]
            for task in pending:
                task.cancel()
            if pending:
                with contextlib.suppress(Exception, asyncio.CancelledError):
                    self.loop.run_until_complete(asyncio.gather(*pending, return_exceptions=True))
            with contextlib.suppress(Exception, asyncio.CancelledError):
                self.loop.run_until_complete(self.loop.shutdown_asyncgens())
            self.loop.close()
            _give_sigint_back()
        interrupts.raise_if_received()


def _nothing() -> None:
    """A callback that only wakes the loop up."""


async def _sleep_forever() -> None:
    await asyncio.Event().wait()


async def _make_anyio_root(task: asyncio.Task[None]) -> None:
    """Tell anyio which task owns its worker threads (see `mcpbdd._sdk.set_anyio_root_task`)."""
    await set_anyio_root_task(task)


__all__ = ["OwnerTaskDied", "RunLoop", "ScenarioOwner"]
