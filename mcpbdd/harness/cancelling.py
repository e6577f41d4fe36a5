"""Carrying out a planned cancel while a call runs, and watching what comes after it: both harnesses share it.

The harness starts the call as a task, waits for the plan's moment (so many progress reports,
or so many milliseconds, whichever the plan names) or for the call's end, and then cancels:
over a wire, with `notifications/cancelled` naming the request's id, the frame the SDK's client
sends when a request's scope is cancelled (`send_cancel`); in-process, where the handler runs in
the caller's task (the context harness, the SDK's in-process client on 2026-07-28), by cancelling
that task, which is how the SDK's client cancels there and what its server runner does to a
handler on a peer's cancel. It then watches for the plan's grace: the task cancelled (nothing
came), the call's answer arriving anyway (a late answer), or, in-process, a handler still running.

A wire cancel keeps the SDK's waiter for the request open through the grace (the SDK drops a
late answer once its caller is gone), so a late answer is seen; after the grace the waiter is
cancelled too, as a client that gave up.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable

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

__all__ = ["Abandoned", "cancel_part_way", "stop_abandoned"]

Abandoned = Callable[["asyncio.Task[Outcome]"], None]
"""Takes a handler's task that swallowed its cancellation, for the harness to stop when it closes."""


async def cancel_part_way(
    call: Call,
    run: Callable[[], Awaitable[Outcome]],
    plan: CancelPlan,
    reports: Callable[[], int],
    progressed: asyncio.Event,
    send_cancel: Callable[[], Awaitable[None]] | None,
    abandoned: Abandoned,
) -> Outcome:
    """`run()` (the classified call), cancelled as `plan` says; the Outcome says what the client saw.

    `reports()` counts the call's progress reports so far and `progressed` is set at each; `send_cancel`
    sends the wire's `notifications/cancelled` (None: the handler runs in this process's task, which is
    cancelled instead). A handler still running after the grace goes to `abandoned`.
    """
    started = time.perf_counter()
    task = asyncio.ensure_future(run())
    try:
        return await _carry_out(call, task, plan, reports, progressed, send_cancel, abandoned, started)
    except BaseException:  # the step itself cancelled (a scenario torn down): the call goes with it
        task.cancel()
        raise


async def _carry_out(
    call: Call,
    task: asyncio.Task[Outcome],
    plan: CancelPlan,
    reports: Callable[[], int],
    progressed: asyncio.Event,
    send_cancel: Callable[[], Awaitable[None]] | None,
    abandoned: Abandoned,
    started: float,
) -> Outcome:
    """Wait for the plan's moment, cancel, and watch the grace: what the client saw, as the call's Outcome."""
    await _until_due(task, plan, reports, progressed)
    if task.done():
        return not_sent(task.result(), plan, reports(), time.perf_counter() - started)
    at = time.perf_counter() - started
    count = reports()
    cancelled_at = time.perf_counter()
    if send_cancel is None:
        task.cancel()
    else:
        await send_cancel()
    done, _ = await asyncio.wait({task}, timeout=plan.grace)
    seen, late, late_after = Seen.NOTHING, None, None
    if not done:
        task.cancel()  # the client stops waiting, as one that gave up; in-process, the handler is cancelled again
        if send_cancel is None:
            seen = Seen.STILL_RUNNING
            abandoned(task)
        else:
            await asyncio.gather(task, return_exceptions=True)
    elif not task.cancelled():
        late, late_after = task.result(), time.perf_counter() - cancelled_at
        code = late.error.code if late.channel is Channel.PROTOCOL_ERROR and late.error is not None else None
        seen = Seen.CONFIRMED if code == REQUEST_CANCELLED else Seen.LATE_ANSWER
    how = TASK_CANCELLED if send_cancel is None else NOTIFIED
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
