"""What mcpbdd's harnesses cost on top of the MCP SDK they drive, measured in one process.

Run: `.venv/bin/python bench/bench_harness.py [--quick]`

Machines are shared and noisy, so absolute numbers mean little: what this script reports
is ratios between variants measured in the SAME run, interleaved rep by rep so that a
noisy moment hits every variant alike. Each figure is the median over several reps of N
calls (after warm-up); each ratio is computed from two such medians.

Per-call cost, for a trivial tool (`echo` on a tiny `MCPServer("bench")` defined here,
anonymous) and for the example notes server's `list_notes` called as a signed-in user
(alice of tenant acme, three notes seeded):

  a. raw `await server.call_tool(...)` in a loop inside one coroutine (baseline A). For
     notes, whose tool reads the lifespan state, one request context is built outside
     the timing and each call gets a fresh SDK `Context` over it (what `call_tool` does
     itself when given none), with the SDK auth contextvar set around the call;
  b. `ContextHarness.call_tool(...)` the same way, harness entered once. b/a <= 1.5x;
  c. a raw in-process `mcp.Client(server, cache=None)` (mode "auto") entered by an owner
     task of our own on a loop that stays open, each call driven from synchronous code
     with ONE `loop.run_until_complete(...)`, as a behave step drives it (baseline C;
     `cache=None` because ClientHarness passes it, so both sides do equal work; the auth
     contextvar is set around each call the way `mcpbdd.kit.principals.acting_as` does);
  d. `ClientHarness` entered by a `RunLoop().owner()`, each call one `owner.run(...)`
     (sessions opened in the owner task, as the World wires it). d/c <= 1.2x;
  e. (information) b's harness driven like d, one `owner.run(...)` per call: what a
     behave step on the context harness really pays.

A third case, `echo_async` (an `async def` tool), is reported for information: the SDK
runs a sync tool in an anyio worker thread, and that hop dominates (and adds noise to)
the trivial tool's cost, which hides the harness's own overhead.

Scenario setup + teardown (the fixed cost every scenario pays): a `World` with the
client harness, its harness opened and its in-process session opened, then closed
(target <= 3 ms); the same with the context harness; and a bare owner task for reference.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import logging
import os
import platform
import shlex
import statistics
import sys
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Coroutine
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from dataclasses import dataclass, field
from importlib.metadata import version
from typing import Any, TypeVar, cast

from mcp import Client
from mcp.server.auth.middleware.auth_context import auth_context_var
from mcp.server.auth.middleware.bearer_auth import AuthenticatedUser
from mcp.server.context import ServerRequestContext
from mcp.server.mcpserver import Context, MCPServer
from mcp_types import CallToolResult

from mcpbdd._sdk import lowlevel_server, subscription_bus
from mcpbdd.examples.notes import mcp as notes_server
from mcpbdd.harness.client import ClientHarness, EnterInOwner
from mcpbdd.harness.context import ContextHarness
from mcpbdd.harness.mock_context import MockContext
from mcpbdd.kit.principals import Principal
from mcpbdd.model.config import Settings
from mcpbdd.model.kinds import HarnessKind
from mcpbdd.model.outcome import Outcome
from mcpbdd.scenario.runtime import RunLoop, ScenarioOwner
from mcpbdd.scenario.world import World

T = TypeVar("T")

NOTES_TARGET = "mcpbdd.examples.notes:mcp"
ALICE = Principal("alice", "acme")

bench = MCPServer("bench")


@bench.tool()
def echo(text: str) -> str:
    return text


@bench.tool()
async def echo_async(text: str) -> str:
    """Informational: the SDK runs a sync tool in a worker thread (anyio.to_thread); an async one it awaits."""
    return text


# ---------------------------------------------------------------------------------------------
# configuration


@dataclass(frozen=True)
class Plan:
    """How much to measure: N calls per rep, reps, warm-up calls, scenarios per rep."""

    calls: int
    reps: int
    warmup: int
    scenarios: int
    scenario_warmup: int


FULL = Plan(calls=250, reps=11, warmup=150, scenarios=40, scenario_warmup=20)
QUICK = Plan(calls=30, reps=3, warmup=10, scenarios=8, scenario_warmup=3)


@dataclass(frozen=True)
class Case:
    """One tool to call: on which server, with which arguments, as whom."""

    name: str
    server: MCPServer[Any]
    tool: str
    arguments: dict[str, Any]
    caller: Principal | None
    seed: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    needs_context: bool = False
    """The tool reads the lifespan state, so baseline A must give `call_tool` a Context."""
    targets: bool = True
    """False: reported for information only (the targets are defined for the other cases)."""


CASES = (
    Case("echo (anonymous)", bench, "echo", {"text": "hi"}, None),
    Case(
        "notes list_notes (alice@acme)",
        notes_server,
        "list_notes",
        {},
        ALICE,
        seed=[("create_note", {"title": f"note {i}", "body": "some text", "tags": ["t"]}) for i in range(3)],
        needs_context=True,
    ),
    Case("echo_async (async def; no worker thread)", bench, "echo_async", {"text": "hi"}, None, targets=False),
)

CallFn = Callable[[str, dict[str, Any]], Coroutine[Any, Any, Any]]
"""Makes the coroutine of one call (tool, arguments)."""


@dataclass
class Variant:
    """One way of making the call, and its per-call samples (ns) across reps."""

    key: str
    label: str
    case: Case
    call: CallFn
    drive: Callable[[Coroutine[Any, Any, Any]], Any] | None
    """None: all N calls are awaited inside one coroutine; else: each call is driven by this (sync)."""
    loop: asyncio.AbstractEventLoop
    samples: list[float] = field(default_factory=list)

    def measure(self, n: int) -> float:
        """Make `n` calls; return ns per call."""
        tool, arguments = self.case.tool, self.case.arguments
        if self.drive is None:
            return self.loop.run_until_complete(_timed_in_one_coroutine(self.call, tool, arguments, n)) / n
        drive, call = self.drive, self.call
        started = time.perf_counter_ns()
        for _ in range(n):
            drive(call(tool, arguments))
        return (time.perf_counter_ns() - started) / n

    @property
    def median(self) -> float:
        return statistics.median(self.samples)


async def _timed_in_one_coroutine(call: CallFn, tool: str, arguments: dict[str, Any], n: int) -> int:
    started = time.perf_counter_ns()
    for _ in range(n):
        await call(tool, arguments)
    return time.perf_counter_ns() - started


# ---------------------------------------------------------------------------------------------
# a raw owner task (baseline C: no mcpbdd code between the step and the SDK)


class RawHolder:
    """Enters one async context manager in a task of its own and keeps it open until `close`."""

    def __init__(self, loop: asyncio.AbstractEventLoop, cm: AbstractAsyncContextManager[T]) -> None:
        self._loop = loop
        self._stop = asyncio.Event()
        self._ready: asyncio.Future[Any] = loop.create_future()
        self._task = loop.create_task(self._hold(cm))
        self.value = loop.run_until_complete(self._ready)

    async def _hold(self, cm: AbstractAsyncContextManager[Any]) -> None:
        async with cm as value:
            self._ready.set_result(value)
            await self._stop.wait()

    def close(self) -> None:
        self._stop.set()
        self._loop.run_until_complete(self._task)


async def _never_called(*_args: Any, **_kwargs: Any) -> Any:
    raise AssertionError("the benchmark tools ask no questions")


def _auth_user(caller: Principal | None) -> AuthenticatedUser | None:
    """The SDK's authenticated user for `caller`, built with SDK classes only."""
    return AuthenticatedUser(caller.access_token()) if caller is not None else None


@asynccontextmanager
async def _lifespan(server: MCPServer[Any]) -> AsyncIterator[Any]:
    lowlevel = lowlevel_server(server)
    async with lowlevel.lifespan(lowlevel) as state:
        yield state


# ---------------------------------------------------------------------------------------------
# the variants of a case (a-d, and e for information)


def build_variants(case: Case, run_loop: RunLoop, closers: list[Callable[[], Any]]) -> list[Variant]:
    loop = run_loop.loop
    server = case.server
    user = _auth_user(case.caller)

    # a. raw server.call_tool, no harness
    request_context: ServerRequestContext[Any, Any] | None = None
    if case.needs_context:
        holder_a = RawHolder(loop, _lifespan(server))
        closers.append(holder_a.close)
        request_context = MockContext(server, lifespan=holder_a.value).request_context("tools/call", None)

    async def raw_server_call(tool: str, arguments: dict[str, Any]) -> Any:
        if request_context is None:
            return await server.call_tool(tool, arguments)
        # What call_tool(context=None) does for echo, with the one request context built above.
        context = Context(request_context=request_context, mcp_server=server, subscriptions=subscription_bus(server))
        token = auth_context_var.set(user)
        try:
            return await server.call_tool(tool, arguments, context)
        finally:
            auth_context_var.reset(token)

    # b. ContextHarness, entered once
    owner_b = run_loop.owner()
    closers.append(owner_b.close)
    context_harness = owner_b.enter(ContextHarness(server))

    async def context_harness_call(tool: str, arguments: dict[str, Any]) -> Any:
        return await context_harness.call_tool(case.caller, tool, arguments)

    # c. raw mcp.Client held open by a task of our own, one run_until_complete per call
    # The harness declares elicitation, sampling and roots by default; the raw client declares the same.
    holder_c = RawHolder(
        loop,
        Client(
            server,
            cache=None,
            elicitation_callback=_never_called,
            sampling_callback=_never_called,
            list_roots_callback=_never_called,
        ),
    )
    closers.append(holder_c.close)
    client: Client = holder_c.value

    async def raw_client_call(tool: str, arguments: dict[str, Any]) -> Any:
        token = auth_context_var.set(user)  # what acting_as does (None when anonymous, as acting_as(None))
        try:
            return await client.call_tool(tool, arguments)
        finally:
            auth_context_var.reset(token)

    # d. ClientHarness entered by a scenario owner, one owner.run per call
    owner_d = run_loop.owner()
    closers.append(owner_d.close)
    client_harness = ClientHarness(server, enter_in_owner=_in_owner(owner_d))
    owner_d.enter(client_harness)

    async def client_harness_call(tool: str, arguments: dict[str, Any]) -> Any:
        return await client_harness.call_tool(case.caller, tool, arguments)

    variants = [
        Variant("a", "raw `server.call_tool`, one coroutine", case, raw_server_call, None, loop),
        Variant("b", "`ContextHarness.call_tool`, one coroutine", case, context_harness_call, None, loop),
        Variant(
            "c",
            "raw `Client.call_tool`, 1 run_until_complete/call",
            case,
            raw_client_call,
            loop.run_until_complete,
            loop,
        ),
        Variant("d", "`ClientHarness.call_tool`, 1 owner.run/call", case, client_harness_call, owner_d.run, loop),
    ]
    for variant in variants:
        for tool, arguments in case.seed:
            _check(variant, _drive(variant, tool, arguments))
        _check(variant, _drive(variant, case.tool, case.arguments))

    # e. (information) b's harness driven the way a behave step drives it: one owner.run per call
    stepwise = Variant(
        "e", "`ContextHarness.call_tool`, 1 owner.run/call", case, context_harness_call, owner_b.run, loop
    )
    _check(stepwise, _drive(stepwise, case.tool, case.arguments))
    return [*variants, stepwise]


def _in_owner(owner: ScenarioOwner) -> EnterInOwner[Any]:
    """What World passes as `enter_in_owner`: open sessions inside the owner task."""

    def enter(fn: Callable[[], Awaitable[Any]]) -> Awaitable[Any]:
        return owner.call_in_owner(lambda _stack: fn())

    return enter


def _drive(variant: Variant, tool: str, arguments: dict[str, Any]) -> Any:
    coro = variant.call(tool, arguments)
    return variant.drive(coro) if variant.drive is not None else variant.loop.run_until_complete(coro)


def _check(variant: Variant, answer: Any) -> None:
    """A benchmark of failing calls would be meaningless: every variant must succeed."""
    failed = (isinstance(answer, Outcome) and not answer.ok) or (isinstance(answer, CallToolResult) and answer.is_error)
    if failed:
        raise SystemExit(f"{variant.case.name} / {variant.key}: the call did not succeed: {answer!r}")


# ---------------------------------------------------------------------------------------------
# scenario setup + teardown


@dataclass
class ScenarioVariant:
    label: str
    once: Callable[[], None]
    samples: list[float] = field(default_factory=list)

    def measure(self, n: int) -> float:
        """Run `n` scenario setups+teardowns; return ns per scenario."""
        once = self.once
        started = time.perf_counter_ns()
        for _ in range(n):
            once()
        return (time.perf_counter_ns() - started) / n

    @property
    def median(self) -> float:
        return statistics.median(self.samples)


def build_scenarios(run_loop: RunLoop) -> list[ScenarioVariant]:
    client_settings = Settings(server=NOTES_TARGET, harness=HarnessKind.CLIENT)
    context_settings = Settings(server=NOTES_TARGET, harness=HarnessKind.CONTEXT)

    def bare_owner() -> None:
        owner = run_loop.owner()
        _no_errors(owner.close())

    def world_client() -> None:
        world = World(client_settings, run_loop.owner())
        harness = cast(ClientHarness, world.harness)
        world.run(harness.session(None))
        _no_errors(world.close())

    def world_context() -> None:
        world = World(context_settings, run_loop.owner())
        _ = world.harness
        _no_errors(world.close())

    return [
        ScenarioVariant("World, client harness: create + open harness + open session + close", world_client),
        ScenarioVariant("World, context harness: create + open harness + close", world_context),
        ScenarioVariant("bare owner task: `loop.owner()` + `owner.close()`", bare_owner),
    ]


def _no_errors(errors: list[BaseException]) -> None:
    if errors:
        raise SystemExit(f"closing the scenario failed: {errors!r}")


# ---------------------------------------------------------------------------------------------
# running and reporting


def run_interleaved(variants: list[Any], n: int, reps: int, warmup: int) -> None:
    """Warm every variant up, then take `reps` samples of `n`, variant after variant within each rep."""
    for variant in variants:
        variant.measure(warmup)
    for _ in range(reps):
        for variant in variants:
            gc.collect()
            variant.samples.append(variant.measure(n))


def spread(samples: list[float], scale: float, digits: int = 1) -> str:
    return f"{min(samples) / scale:.{digits}f}-{max(samples) / scale:.{digits}f}"


def ratio_row(case: Case, what: str, top: Variant, bottom: Variant, target: float | None) -> str:
    """Ratio of the medians (the figure judged), the overhead it means, and the per-rep ratios for context."""
    ratio = top.median / bottom.median
    per_rep = [t / b for t, b in zip(top.samples, bottom.samples, strict=True)]
    overhead = (top.median - bottom.median) / 1000
    verdict = "(information)"
    if case.targets and target is not None:
        verdict = f"<= {target:g}x: " + ("ok" if ratio <= target else "**MISSED**")
    return (
        f"| {case.name} | {what} | {top.key}/{bottom.key} | **{ratio:.2f}x** | {overhead:+.1f} "
        f"| {statistics.median(per_rep):.2f}x | {min(per_rep):.2f}-{max(per_rep):.2f}x | {verdict} |"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--quick", action="store_true", help="small N: a smoke run (< 10 s)")
    args = parser.parse_args(argv)
    plan = QUICK if args.quick else FULL
    logging.getLogger("mcp").setLevel(logging.WARNING)

    started = time.perf_counter()
    run_loop = RunLoop()
    closers: list[Callable[[], Any]] = []
    try:
        by_case = [(case, build_variants(case, run_loop, closers)) for case in CASES]
        run_interleaved([v for _, variants in by_case for v in variants], plan.calls, plan.reps, plan.warmup)
        scenarios = build_scenarios(run_loop)
        run_interleaved(scenarios, plan.scenarios, plan.reps, plan.scenario_warmup)
    finally:
        for close in reversed(closers):
            close()
        run_loop.close()
    elapsed = time.perf_counter() - started

    command = shlex.join([os.path.relpath(sys.executable), *sys.argv])
    print("# mcpbdd harness overhead\n")
    print(f"Command: `{command}`  ")
    print(
        f"Python {platform.python_version()}, mcp {version('mcp')}, {os.cpu_count()} CPUs. "
        f"Per variant: warm-up {plan.warmup} calls, then {plan.reps} reps x {plan.calls} calls, "
        f"interleaved across all variants; scenarios: {plan.reps} reps x {plan.scenarios}. Took {elapsed:.1f} s.\n"
    )
    print("## Per call (median over reps of the mean µs/call in a rep; spread = min-max over reps)\n")
    print("| case | variant | µs/call | spread µs |")
    print("| --- | --- | ---: | ---: |")
    for case, variants in by_case:
        for v in variants:
            print(f"| {case.name} | {v.key}. {v.label} | {v.median / 1000:.1f} | {spread(v.samples, 1000)} |")
    print("\n## Ratios (ratio of the medians above; overhead = difference of the medians)\n")
    print("| case | harness | pair | ratio of medians | overhead µs/call | median rep ratio | per-rep range | target |")
    print("| --- | --- | --- | ---: | ---: | ---: | ---: | --- |")
    for case, variants in by_case:
        a, b, c, d, e = variants
        print(ratio_row(case, "ContextHarness vs raw call_tool", b, a, 1.5))
        print(ratio_row(case, "ClientHarness vs raw Client", d, c, 1.2))
        print(ratio_row(case, "ContextHarness: 1 owner.run/call vs one coroutine", e, b, None))
    print("\n## Scenario setup + teardown (notes server; median over reps of the mean ms/scenario)\n")
    print("| what | ms/scenario | spread ms | target |")
    print("| --- | ---: | ---: | --- |")
    for s in scenarios:
        target = ""
        if s.label.startswith("World, client"):
            target = "<= 3 ms: " + ("ok" if s.median <= 3e6 else "**MISSED**")
        print(f"| {s.label} | {s.median / 1e6:.3f} | {spread(s.samples, 1e6, 3)} | {target} |")
    print(
        "\nFairness: the raw Client gets `cache=None` as ClientHarness does, and the raw calls set the SDK auth "
        "contextvar (`auth_context_var`) around each call as `acting_as` does. A sync tool runs in an anyio worker "
        "thread; compare e with b to see what one `owner.run` per call (a behave step) adds to that."
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
