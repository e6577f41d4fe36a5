"""The load driver: many callers at once against one harness, on the scenario's own event loop.

Each caller is one task that goes through the profile's schedule, one call at a time, over its own session
(the harness keeps one `mcp.Client` per caller, so every call carries that caller's identity: in-process its
access token, over HTTP its bearer token, over stdio its own server process). Concurrency is the number of
callers: in-process they interleave at every await on one loop; over HTTP one server takes every caller's
requests at once; over stdio each caller has its own server process (a stdio server serves one client), all
sharing the scenario's storage file, so concurrency there is between processes.

Every run stops by itself: at its bound, or at its time limit (what was measured is kept, the calls still in
flight are cancelled and said so), or when the server stops answering (a closed connection, a process that
exited: the load stops at once and says why, with every sample taken until then).
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from mcpbdd.harness.base import Harness
from mcpbdd.kit.errors import reason_and_hint
from mcpbdd.kit.principals import Principal
from mcpbdd.load.profile import Filler, LoadProfile, LoadSpecError
from mcpbdd.load.results import CallChannel, LoadResult, Rows, sample_rows
from mcpbdd.model.outcome import Call, Channel, Outcome

ANSWERS_KEPT = 20_000
"""At most this many answers are kept for the isolation check of what callers read (counted beyond that)."""
ANSWER_CHARS = 65_536
"""At most this much of one answer's text is kept for that check."""
_TIMEOUT = "no answer within the call timeout"
MAX_CALLERS = 1_000
"""At most this many callers on one machine: each holds a session (over HTTP a connection); more is Locust's job."""
MAX_STDIO_CALLERS = 64
"""At most this many callers over stdio, where each caller is a server process of its own."""
REASON_CHARS = 120
"""A reason is a server's word: at most this much of it is kept (a server could send a megabyte per call)."""


@dataclass(frozen=True)
class Written:
    """An acknowledged call (it ended `ok`) whose arguments name it alone: what storage must hold once."""

    tool: str
    caller: str
    tenant: str | None
    marks: tuple[str, ...]


@dataclass(frozen=True)
class Answer:
    """What one caller read: the text of an `ok` answer (capped), for the check that no tenant saw another's."""

    tool: str
    caller: str
    tenant: str | None
    text: str


@dataclass
class LoadRun:
    """A finished load: its result (the shared model), plus what the integrity and isolation checks need."""

    result: LoadResult
    callers: list[Principal]
    written: Sequence[Written] = field(default_factory=list)
    answers: Sequence[Answer] = field(default_factory=list)
    answers_dropped: int = 0
    answers_cut: int = 0
    """Kept answers longer than the `ANSWER_CHARS` characters kept of each (`read_answer`): the isolation check of
    reads fails rather than pass on what it did not see."""
    writes_unreported: int = 0
    """Acknowledged writes the engine counted but could not name (a Locust worker whose last report was lost):
    the storage checks fail rather than judge storage against part of what was written."""

    def marks_of(self, tenant: str | None) -> set[str]:
        return {mark for write in self.written if write.tenant == tenant for mark in write.marks}


def channel_of(outcome: Outcome) -> tuple[CallChannel, str | None]:
    """The load channel of an outcome and its reason (the declared reason, or what a transport failure was)."""
    channel, reason = _channel_of(outcome)
    return channel, reason[:REASON_CHARS] if reason is not None else None


def _channel_of(outcome: Outcome) -> tuple[CallChannel, str | None]:
    if outcome.channel is Channel.OK:
        return "ok", None
    if outcome.channel is Channel.INPUT_REQUIRED:
        return "tool_error", "input_required"  # a call that asks a question did not finish under load
    if outcome.channel is Channel.TRANSPORT_FAILURE:
        failure = outcome.failure or "transport failure"
        if failure.startswith(_TIMEOUT):
            return "timeout", None
        return "transport_error", failure.split(":", 1)[0][:80]
    reason, _ = reason_and_hint(outcome.structured, outcome.error.data if outcome.error else None)
    if outcome.channel is Channel.PROTOCOL_ERROR:
        return "protocol_error", reason or (f"code {outcome.error.code}" if outcome.error else None)
    return "tool_error", reason


def read_text(outcome: Outcome) -> str:
    """What a caller read, capped: the answer's text and, one a line, every string of its structured content (a
    server may say "4 notes" in words and hand the notes themselves over in the structured content alone)."""
    return read_answer(outcome)[0]


def read_answer(outcome: Outcome) -> tuple[str, bool]:
    """`read_text`, and whether the cap cut it: some of what the caller read is not in the text kept (then a
    check of that text has not seen the whole answer and must say so rather than pass).

    Each list and object is walked once: an in-process server (the context harness) can hand over structured
    content that holds itself, or the same object twice; its strings are read once, and the walk ends.
    """
    whole = outcome.text
    text = whole[:ANSWER_CHARS]
    structured = outcome.structured
    if structured is None:
        return text, len(whole) > ANSWER_CHARS
    if len(text) >= ANSWER_CHARS:
        return text, len(whole) > ANSWER_CHARS or _holds_text([structured], set())
    parts, room = [text], ANSWER_CHARS - len(text)
    pending = [structured]  # depth first, in order (`mcpbdd.load.checks.leaves`), without a generator per level
    walked: set[int] = set()
    while pending and room > 0:
        value = pending.pop()
        if isinstance(value, str):
            room -= 1  # the line break before it
            parts.append(value[:room])
            room -= len(value)
        elif isinstance(value, list | dict):
            if id(value) in walked:
                continue
            walked.add(id(value))
            if isinstance(value, list):
                pending.extend(reversed(value))
            else:
                for key, item in reversed(value.items()):
                    pending.append(item)
                    pending.append(key)
    return "\n".join(parts), room < 0 or _holds_text(pending, walked)


def _holds_text(pending: list[Any], walked: set[int]) -> bool:
    """Whether a non-empty string is among `pending` at any depth (each list and object not in `walked` once)."""
    while pending:
        value = pending.pop()
        if isinstance(value, str):
            if value:
                return True
        elif isinstance(value, list | dict) and id(value) not in walked:
            walked.add(id(value))
            pending.extend(value if isinstance(value, list) else [*value.keys(), *value.values()])
    return False


def _written(tool: str, caller: str, tenant: str | None, *marks: str) -> Written:
    """A write from its row: the marks follow the caller's tenant in the row itself (a tuple inside a row could
    keep the row tracked by the collector)."""
    return Written(tool, caller, tenant, marks)


@dataclass(frozen=True, slots=True)
class _Planned:
    """One entry of the schedule, prepared once per load: its tool, how its arguments are filled, and which of
    them name the call (what an acknowledged write is found by in storage)."""

    tool: str
    fill: Filler
    marked: tuple[str, ...]


class _Load:
    """One run's shared state: the clock, the counters, the reason it stopped, and what every call left.

    Every call leaves a sample, and an `ok` one its write and its answer when the profile names its calls; they
    are kept as flat tuples of strings and numbers (`mcpbdd.load.results.Rows` says why), made into
    `CallSample`, `Written` and `Answer` when a check reads them.
    """

    def __init__(self, harness: Harness, profile: LoadProfile, callers: Sequence[Principal]) -> None:
        self.harness = harness
        self.profile = profile
        self.callers = list(callers)
        prepared = {id(step): _Planned(step.tool, step.filler(), tuple(step.marked())) for step in profile.steps}
        self.schedule = [prepared[id(step)] for step in profile.schedule()]  # a step of weight 3: prepared once
        self.keep_answers = any(planned.marked for planned in self.schedule)
        """Answers are kept only when some write names its call: the isolation check of reads needs nothing else."""
        self.started = time.perf_counter()
        self.issued = 0
        self.samples = sample_rows()
        self.written: Rows[Written] = Rows(_written)
        self.answers: Rows[Answer] = Rows(Answer)
        self.answers_dropped = 0
        self.answers_cut = 0
        self.stopped_because: str | None = None
        self.stop = asyncio.Event()

    def elapsed(self) -> float:
        return time.perf_counter() - self.started

    def halt(self, why: str) -> None:
        if self.stopped_because is None:
            self.stopped_because = why
        self.stop.set()

    def may_call(self, done: int) -> bool:
        bound = self.profile.bound
        if self.stop.is_set():
            return False
        if bound.iterations is not None and done >= bound.iterations * len(self.schedule):
            return False
        if bound.duration_s is not None and self.elapsed() >= bound.duration_s:
            self.halt(f"its duration of {bound.duration_s:g} s was reached")
            return False
        if bound.calls is not None:
            if self.issued >= bound.calls:
                self.halt(f"its {bound.calls} calls were made")
                return False
            self.issued += 1
        return True

    async def caller(self, index: int, principal: Principal) -> None:
        ramp = self.profile.ramp_up_s
        if ramp > 0 and not await self.arrive(ramp * index / len(self.callers)):
            return
        done = 0
        schedule = self.schedule
        while self.may_call(done):
            planned = schedule[(done + index) % len(schedule)]
            done += 1
            await self.call(principal, planned, done)

    async def arrive(self, at_s: float) -> bool:
        """Wait for this caller's arrival in the ramp-up; False when the load ends first (it never arrives).

        A ramp-up may be longer than the run: a caller due after the duration never starts, and one waiting when
        the load stops (its calls made, the server gone) stops waiting, so the ramp-up never holds a finished run.
        """
        duration = self.profile.bound.duration_s
        if duration is not None and at_s >= duration:
            return False
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self.stop.wait(), at_s)
        return not self.stop.is_set()

    async def call(self, principal: Principal, planned: _Planned, n: int) -> None:
        user, tenant, tool = principal.user, principal.tenant, planned.tool
        arguments = planned.fill(user, tenant, n)
        started = time.perf_counter() - self.started
        try:
            outcome = await self.harness.send(principal, Call.tool(tool, arguments))
        except Exception as exc:  # a harness that raised instead of answering: the server is gone
            latency = (self.elapsed() - started) * 1000
            why = f"{type(exc).__name__}: {exc}"
            self.samples.rows.append((tool, user, tenant, started, latency, "transport_error", why[:80]))
            self.halt(f"the server stopped answering ({why})")
            return
        channel, reason = ("ok", None) if outcome.channel is Channel.OK else channel_of(outcome)
        latency = (outcome.duration or self.elapsed() - started) * 1000
        self.samples.rows.append((tool, user, tenant, started, latency, channel, reason))
        if channel == "ok":
            if planned.marked:
                self.written.rows.append((tool, user, tenant, *[arguments[name] for name in planned.marked]))
            if self.keep_answers:
                if len(self.answers.rows) < ANSWERS_KEPT:
                    text, cut = read_answer(outcome)
                    self.answers.rows.append((tool, user, tenant, text))
                    self.answers_cut += cut
                else:
                    self.answers_dropped += 1
        elif channel == "transport_error" and (outcome.failure or "").startswith("connection closed"):
            self.halt(f"the server stopped answering ({outcome.failure})")


async def open_sessions(harness: Harness, callers: Sequence[Principal], tools: Sequence[str]) -> None:
    """Connect every caller before the clock starts, and refuse a profile naming a tool the server does not offer.

    A connection's set-up is not a call's latency; an unknown tool is a mistake in the profile, said before any
    load runs (its calls would only measure the server refusing them).
    """
    offered = [tool.name for tool in await harness.list_tools(callers[0])]
    unknown = [tool for tool in tools if tool not in offered]
    if unknown:
        raise LoadSpecError(
            f"the load profile names {', '.join(repr(tool) for tool in unknown)}, which the server does not offer; "
            f"it offers: {', '.join(offered) or 'no tools'}"
        )
    session = getattr(harness, "session", None)
    if session is not None:
        for caller in callers[1:]:
            await session(caller)


async def run_load(
    harness: Harness,
    callers: Sequence[Principal],
    profile: LoadProfile,
    *,
    engine: str = "in-process",
    grace_s: float | None = None,
) -> LoadRun:
    """Run `profile` with every caller at once on `harness` (already entered) and return what was measured.

    `grace_s`: how long past the bound the calls in flight may finish (default: the harness's call timeout
    plus one second); past it they are cancelled and the run says so. Never raises for what the server did:
    a server that dies or stalls is in the result's `stopped_because`, with every sample taken until then.
    """
    if not callers:
        raise LoadSpecError("the load has no caller: declare the tenants and their callers first")
    check_crowd(len(callers), engine_of(harness))
    await open_sessions(harness, callers, profile.tools)
    load = _Load(harness, profile, callers)
    timeout = getattr(harness, "timeout", 5.0)
    grace = grace_s if grace_s is not None else float(timeout) + 1.0
    limit = profile.ramp_up_s + profile.bound.limit_s + grace
    tasks = [asyncio.ensure_future(load.caller(index, caller)) for index, caller in enumerate(callers)]
    try:
        done, pending = await asyncio.wait(tasks, timeout=limit)
    finally:  # cancelled itself (an interrupt): no caller's task outlives the load
        running = [task for task in tasks if not task.done()]
        for task in running:
            task.cancel()
        if running:
            await asyncio.gather(*running, return_exceptions=True)
    if pending:
        load.halt(f"its time limit of {limit:g} s ran out with {len(pending)} callers' calls still in flight")
    for task in done:
        if not task.cancelled() and task.exception() is not None:
            error = task.exception()
            load.halt(f"a caller's task failed: {type(error).__name__}: {error}")
    duration = load.elapsed()
    why = load.stopped_because or _completed(profile)
    if why.startswith("the server stopped answering"):
        diagnosis = getattr(getattr(harness, "connector", None), "diagnose", lambda: None)() or ""
        said, _, tail = diagnosis.partition("the end of its stderr:")
        said = said.strip().rstrip(";")
        if said:
            why = f"{why}; {said}"
        if tail.strip():
            why = f"{why} (the server's stderr is attached to the scenario)"
    result = LoadResult.from_samples(engine, load.samples, duration_s=duration, stopped_because=why)
    return LoadRun(
        result, list(callers), load.written, load.answers, load.answers_dropped, answers_cut=load.answers_cut
    )


def check_crowd(count: int, engine: str) -> None:
    """Refuse more callers than one machine holds, before any session opens (opening ten thousand would take
    minutes, then fail on file descriptors): over stdio each caller is a server process, so fewer."""
    if engine == "stdio" and count > MAX_STDIO_CALLERS:
        raise LoadSpecError(
            f"the load has {count} callers over stdio, more than {MAX_STDIO_CALLERS}: each is a server process of "
            "its own; run the server over HTTP for more callers (one server, many clients)"
        )
    if count > MAX_CALLERS:
        raise LoadSpecError(
            f"the load has {count} callers, more than {MAX_CALLERS} one machine holds (each keeps a session open): "
            "use fewer callers, or scale out on Locust (`mcpbdd locust`, docs/reference/locust.md)"
        )


def _completed(profile: LoadProfile) -> str:
    bound = profile.bound
    if bound.iterations is not None:
        return f"every caller went through the profile {bound.iterations} times"
    if bound.calls is not None:
        return f"its {bound.calls} calls were made"
    return f"its duration of {bound.duration_s:g} s was reached"


def engine_of(harness: Any) -> str:
    """The engine name a result carries: in-process, http or stdio (what the harness reaches the server over)."""
    kind = getattr(getattr(harness, "connector", None), "kind", "inprocess")
    if str(kind).startswith("http"):  # a URL, or a server mcpbdd started from a command
        return "http"
    return {"inprocess": "in-process", "stdio": "stdio"}.get(kind, str(kind))


__all__ = [
    "MAX_CALLERS",
    "MAX_STDIO_CALLERS",
    "Answer",
    "LoadRun",
    "Written",
    "channel_of",
    "check_crowd",
    "engine_of",
    "open_sessions",
    "run_load",
]
