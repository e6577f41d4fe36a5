"""The Locust user for MCP: one simulated caller with its own session, going through the profile.

Imported only inside a Locust process (importing `locust` monkey-patches the process with gevent), through the
locustfile mcpbdd hands Locust (`mcpbdd/locust/locustfile.py`). Each user:

- is a caller of the plan (`LocustPlan.caller_for`: worker w's users take callers w, w+N, ...), with that
  caller's bearer token on every request, in a session of its own (`bridge.CallerSession`);
- goes through the profile in turn, each step as many times as its weight per round, interleaved, with `{caller}`,
  `{tenant}` and `{n}` filled in (`{n}` counts the caller's calls, from 1);
- stops making calls when the plan's run time is over (counted from the worker's first user), so that Locust's
  master, whose own run time is longer, quits only once every call made has been reported;
- reports every call through Locust's request event: the request type is `MCP`, the name the tool, the response
  time in milliseconds, and a failed call's exception a `CallFailed` naming its channel (`channels.py`).

Each worker also tells the master, with its statistics, how many calls it made, as whom, and how many started
in each second of the wall clock (`report_to_master`); the master keeps the latest report of every worker in the
plan's `workers_report` file, which is how a run knows that every worker took part, and where its timeline comes
from (Locust's own history only sees the workers' reports, every 3 s). It also says which of each caller's calls
were acknowledged writes that name their call (`{caller}` and `{n}` in an argument): their numbers, from which
the storage checks after the load know what must be stored once, and where (`mcpbdd.locust.scenario`).
"""

from __future__ import annotations

import itertools
import json
import os
import time
from pathlib import Path
from typing import Any

import gevent
from locust import User, constant, events, task

from mcpbdd.load.profile import LoadStep
from mcpbdd.locust.bridge import CallerSession, LoopThread
from mcpbdd.locust.channels import CallFailed
from mcpbdd.locust.plan import LocustCaller, LocustPlan, schedule_of

__all__ = ["REPORT_KEY", "McpUser"]

REPORT_KEY = "mcpbdd_calls"
"""The key of mcpbdd's part in the data a worker sends the master with its statistics."""

_shared: dict[str, Any] = {}
"""This process's plan, loop thread, user counter and call counts (one Locust process, one of each)."""


def _plan() -> LocustPlan:
    if "plan" not in _shared:
        _shared["plan"] = LocustPlan.from_environment()
        # now is the first user's start: the worker's run began
        _shared["deadline"] = time.monotonic() + _shared["plan"].run_time_s
        _shared["counter"] = itertools.count()
        _shared["calls"] = {}
        _shared["seconds"] = {}
        _shared["callers"] = set()
        _shared["written"] = {}
    plan: LocustPlan = _shared["plan"]
    return plan


def _loop_thread() -> LoopThread:
    if "loop" not in _shared:
        _shared["loop"] = LoopThread()
    loop: LoopThread = _shared["loop"]
    return loop


def _client_factory(url: str, caller: LocustCaller, timeout_s: float) -> Any:
    def connect() -> Any:
        import httpx2
        from mcp import Client
        from mcp.client.streamable_http import streamable_http_client

        headers = {"Authorization": f"Bearer {caller.token}"} if caller.token else {}
        http = httpx2.AsyncClient(headers=headers, timeout=timeout_s)
        return Client(_Closing(streamable_http_client(url, http_client=http), http), cache=None)

    return connect


class _Closing:
    """The SDK's HTTP transport, then the httpx client it was given (it does not close what it does not own)."""

    def __init__(self, transport: Any, http: Any) -> None:
        self._transport = transport
        self._http = http

    async def __aenter__(self) -> Any:
        return await self._transport.__aenter__()

    async def __aexit__(self, *exc: Any) -> Any:
        try:
            return await self._transport.__aexit__(*exc)
        finally:
            await self._http.aclose()


class McpUser(User):
    """One MCP caller of the plan, in a session of its own, making the profile's calls back to back."""

    wait_time = constant(0)

    def __init__(self, environment: Any) -> None:
        super().__init__(environment)
        plan = _plan()
        runner = environment.runner
        worker_index = getattr(runner, "worker_index", 0) or 0
        self.caller = plan.caller_for(worker_index, next(_shared["counter"]))
        self.schedule = schedule_of(plan.steps)
        self.names_the_call = [bool(LoadStep(s.tool, s.arguments, s.weight).marked()) for s in self.schedule]
        self.sequence = 0
        self.session = CallerSession(
            _loop_thread(), _client_factory(plan.url, self.caller, plan.call_timeout_s), plan.call_timeout_s
        )
        _shared["callers"].add(self.caller.user)

    def on_stop(self) -> None:
        self.session.close()

    @task
    def next_call(self) -> None:
        if time.monotonic() >= _shared["deadline"]:
            gevent.sleep(0.5)  # the run time is over: no new call; the master quits once the last are reported
            return
        step = self.schedule[self.sequence % len(self.schedule)]
        self.sequence += 1
        arguments = step.filled(self.caller, self.sequence)
        started_at = time.time()
        started = time.perf_counter()
        failure: CallFailed | None = None
        try:
            self.session.call(step.tool, arguments)
        except CallFailed as failed:
            failure = failed
        elapsed_ms = (time.perf_counter() - started) * 1000
        _count(step.tool, started_at, failure is not None)
        if failure is None and self.names_the_call[(self.sequence - 1) % len(self.schedule)]:
            _shared["written"].setdefault(self.caller.user, []).append(self.sequence)
        self.environment.events.request.fire(
            request_type="MCP",
            name=step.tool,
            response_time=elapsed_ms,
            response_length=0,
            exception=failure,
            context={"tenant": self.caller.tenant, "caller": self.caller.user},
        )


def _count(tool: str, started_at: float, failed: bool) -> None:
    """This worker's calls per tool, and per second of the wall clock (calls, errors): its share of the timeline."""
    calls: dict[str, int] = _shared["calls"]
    calls[tool] = calls.get(tool, 0) + 1
    second = _shared["seconds"].setdefault(str(int(started_at)), [0, 0])
    second[0] += 1
    second[1] += int(failed)


@events.report_to_master.add_listener  # type: ignore[untyped-decorator]  # Locust's EventHook is unannotated
def _report(client_id: str, data: dict[str, Any], **_: Any) -> None:
    """On a worker: what it has done so far (cumulative), sent with its statistics."""
    if "plan" not in _shared:
        return
    data[REPORT_KEY] = {
        "calls": dict(_shared["calls"]),
        "seconds": {second: list(counts) for second, counts in _shared["seconds"].items()},
        "callers": sorted(_shared["callers"]),
        "written": {caller: list(numbers) for caller, numbers in _shared["written"].items()},
        "pid": os.getpid(),
    }


@events.worker_report.add_listener  # type: ignore[untyped-decorator]  # Locust's EventHook is unannotated
def _received(client_id: str, data: dict[str, Any], **_: Any) -> None:
    """On the master: keep every worker's latest report in the plan's file (written whole, then renamed)."""
    mine = data.get(REPORT_KEY)
    if not isinstance(mine, dict):
        return
    reports: dict[str, Any] = _shared.setdefault("reports", {})
    reports[client_id] = mine
    target = Path(_plan().workers_report)
    partial = target.with_suffix(".partial")
    partial.write_text(json.dumps(reports, indent=1, sort_keys=True), encoding="utf-8")
    partial.replace(target)
