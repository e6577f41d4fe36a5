"""Carrying out a planned cancel while a call runs, and watching what comes after it: both harnesses share it.

The harness starts the call as a task, waits for the plan's moment (so many progress reports,
or so many milliseconds, whichever the plan names) or for the call's end, and then cancels the
way the wire does: over a wire, with `notifications/cancelled` naming the request's id, the frame
the SDK's client sends when a request's scope is cancelled (`send_cancel`); in-process, where the
handler runs in the caller's task (the context harness, the SDK's in-process client on
2026-07-28), by cancelling the `RequestScope` the handler runs in, which is what the SDK's
dispatcher does to a handler on a peer's `notifications/cancelled`: a shielded stretch of the
handler (`anyio.CancelScope(shield=True)`) finishes, the handler stops at its next unshielded
await, and whatever it answers is not delivered (the SDK's server writes nothing for a request
its peer cancelled). It then watches for the plan's grace: nothing came (the protocol's
expectation), or the call's answer arrived anyway (a late answer, from a server that ignores the
notification).

A wire cancel keeps the SDK's waiter for the request open through the grace (the SDK drops a
late answer once its caller is gone), so a late answer is seen; after the grace the waiter is
cancelled too, as a client that gave up. In-process a handler still working then is left to
finish, as a server's would, and stopped when the harness closes.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar, cast

import anyio

from mcpbdd.model.cancellation import (
    NOTIFIED,
    REQUEST_CANCELLED,
    TASK_CANCELLED,
    Cancellation,
    CancelPlan,
    Seen,
    cancelled,
    not_sent,
)
from mcpbdd.model.outcome import Call, Channel, Outcome

__all__ = ["Abandoned", "RequestScope", "cancel_part_way", "stop_abandoned"]

T = TypeVar("T")

Abandoned = Callable[["asyncio.Task[Outcome]"], None]
"""Takes a handler's task that swallowed its cancellation, for the harness to stop when it closes."""


class RequestScope:
    """The cancel scope an in-process handler's request runs in, cancelled as the wire's cancel cancels it.

    Over a wire the SDK's dispatcher runs each request's handler in an `anyio.CancelScope` and, on the
    peer's `notifications/cancelled`, cancels that scope and writes no answer. `run(request)` does the
    same in the caller's task: `cancel()` cancels the scope (a shield inside it holds), and once a cancel
    was asked for, whatever the request comes to (an answer, an error, its cancellation) is never
    returned: the caller waits, as a client on the wire waits for an answer that never comes.
    """

    def __init__(self) -> None:
        self.requested = False
        self.handler_running = False
        """Whether the request is still running (a handler working on after its cancel, in a shield or not)."""
        self._scope: anyio.CancelScope | None = None

    async def run(self, request: Callable[[], Awaitable[T]]) -> T:
        answer: Any = None
        self.handler_running = True
        try:
            with anyio.CancelScope() as scope:
                self._scope = scope
                answer = await request()
        except Exception:
            if not self.requested:
                raise
        finally:
            self.handler_running = False
        if self.requested:  # the server writes nothing for a request its peer cancelled
            await asyncio.Event().wait()
        return cast(T, answer)  # the request's own answer: a failed one raised above, a cancelled one never returns

    async def cancel(self) -> None:
        self.requested = True
        if self._scope is not None:
            self._scope.cancel()


async def cancel_part_way(
    call: Call,
    run: Callable[[], Awaitable[Outcome]],
    plan: CancelPlan,
    reports: Callable[[], int],
    progressed: asyncio.Event,
    send_cancel: Callable[[], Awaitable[None]],
    abandoned: Abandoned,
    handler: RequestScope | None = None,
) -> Outcome:
    """`run()` (the classified call), cancelled as `plan` says; the Outcome says what the client saw.

    `reports()` counts the call's progress reports so far and `progressed` is set at each; `send_cancel`
    sends the wire's `notifications/cancelled`, or cancels `handler`, the scope of a handler running in
    this process's task. Such a handler still running after the grace goes to `abandoned`.
    """
    task = asyncio.ensure_future(run())  # it starts at the first await: `_carry_out` times it from there
    try:
        return await _carry_out(call, task, plan, reports, progressed, send_cancel, abandoned, handler)
    except BaseException:  # the step itself cancelled (a scenario torn down): the call goes with it
        task.cancel()
        raise


async def _carry_out(
    call: Call,
    task: asyncio.Task[Outcome],
    plan: CancelPlan,
    reports: Callable[[], int],
    progressed: asyncio.Event,
    send_cancel: Callable[[], Awaitable[None]],
    abandoned: Abandoned,
    handler: RequestScope | None,
) -> Outcome:
    """Wait for the plan's moment, cancel, and watch the grace: what the client saw, as the call's Outcome."""
    started = time.perf_counter()
    await _until_due(task, plan, reports, progressed)
    if task.done():
        return not_sent(task.result(), plan, reports(), time.perf_counter() - started)
    at = time.perf_counter() - started
    count = reports()
    cancelled_at = time.perf_counter()
    await send_cancel()
    done, _ = await asyncio.wait({task}, timeout=plan.grace)
    seen, late, late_after = Seen.NOTHING, None, None
    if not done:
        if handler is not None and handler.handler_running:
            abandoned(task)  # in-process the task is the handler's: it works on, as a server's would; closed later
        else:
            task.cancel()  # the client stops waiting, as one that gave up
            await asyncio.gather(task, return_exceptions=True)
    elif not task.cancelled():
        late, late_after = task.result(), time.perf_counter() - cancelled_at
        code = late.error.code if late.channel is Channel.PROTOCOL_ERROR and late.error is not None else None
        seen = Seen.CONFIRMED if code == REQUEST_CANCELLED else Seen.LATE_ANSWER
    how = TASK_CANCELLED if handler is not None else NOTIFIED
    record = Cancellation(plan, True, count, at, seen=seen, late=late, late_after=late_after, how=how)
    return cancelled(call, record, time.perf_counter() - started)


async def _until_due(
    task: asyncio.Task[Outcome], plan: CancelPlan, reports: Callable[[], int], progressed: asyncio.Event
) -> None:
    """Wait for the plan's moment or the call's end, whichever comes first."""
    if plan.after_ms is not None:
        await asyncio.wait({task}, timeout=plan.after_ms / 1000)
        return
    wanted = plan.after_reports or 0
    while reports() < wanted and not task.done():
        progressed.clear()
        waiter = asyncio.ensure_future(progressed.wait())
        try:
            await asyncio.wait({task, waiter}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            waiter.cancel()


async def stop_abandoned(tasks: list[asyncio.Task[Outcome]], timeout: float) -> None:
    """Cancel the handlers that ran on after their cancel and wait for them, within `timeout` (a harness closing)."""
    running, tasks[:] = [task for task in tasks if not task.done()], []
    for task in running:
        task.cancel()
    if running:
        await asyncio.wait(running, timeout=timeout)
