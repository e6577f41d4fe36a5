"""A scenario's load: its callers, its profile, the last run, and the checks on it, for steps and Python alike.

`load_of(world)` gives the scenario's `ScenarioLoad` (made on first use and gone with the World, so no load
outlives its scenario). The World knows nothing of it: the load is a layer above the scenario, and drives the
scenario's own harness on the scenario's own loop (`World.run`), as any other step does.

    load = load_of(world)
    load.add_callers(3, ["acme", "globex"])
    run = load.run(LoadProfile([LoadStep("list_notes")], LoadBound(duration_s=2)))
    load.check_latency("list_notes", 95, 200)
"""

from __future__ import annotations

import weakref
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from mcpbdd.load import checks
from mcpbdd.load.driver import LoadRun, engine_of, run_load
from mcpbdd.load.profile import LoadBound, LoadProfile, LoadSpecError, LoadStep
from mcpbdd.load.results import CallChannel

if TYPE_CHECKING:
    from mcpbdd.kit.principals import Principal
    from mcpbdd.scenario.world import World

_LOADS: weakref.WeakKeyDictionary[Any, ScenarioLoad] = weakref.WeakKeyDictionary()


def load_of(world: World) -> ScenarioLoad:
    """The scenario's load (one per World)."""
    found = _LOADS.get(world)
    if found is None:
        found = _LOADS[world] = ScenarioLoad(world)
    return found


class ScenarioLoad:
    """Who calls under load, what they do, and what the last load measured."""

    def __init__(self, world: World) -> None:
        self.world = world
        self.callers: list[Principal] = []
        """The callers declared for the load (`add_callers`); none: every user the scenario declared."""
        self.steps: list[LoadStep] = []
        """The profile's steps (`Given the load profile:`)."""
        self.ramp_up_s = 0.0
        self.runs: list[LoadRun] = []
        self.upstream_mark = 0
        """How many upstream requests the scenario had seen when the last load began (what it received is after)."""

    def add_callers(self, per_tenant: int, tenants: Sequence[str]) -> list[Principal]:
        """`per_tenant` callers in each tenant, named `<tenant>-caller-<i>`: distinct users the server sees."""
        if per_tenant < 1:
            raise LoadSpecError(f"each tenant needs at least one caller, not {per_tenant}")
        if not tenants:
            raise LoadSpecError("name at least one tenant whose callers make the load")
        added = [
            self.world.add_user(f"{tenant}-caller-{number}", tenant)
            for tenant in tenants
            for number in range(1, per_tenant + 1)
        ]
        self.callers.extend(added)
        return added

    def load_callers(self) -> list[Principal]:
        callers = self.callers or list(self.world.directory.users.values())
        if not callers:
            raise LoadSpecError(
                'the load has no caller: declare them first (`Given 3 callers in each of the tenants "acme, globex"`)'
            )
        return callers

    def profile(self, bound: LoadBound, steps: Sequence[LoadStep] | None = None) -> LoadProfile:
        chosen = list(steps) if steps is not None else self.steps
        if not chosen:
            raise LoadSpecError("the load has no profile: give one (`Given the load profile:`) or name a tool to call")
        return LoadProfile(chosen, bound, self.ramp_up_s)

    def run(self, profile: LoadProfile) -> LoadRun:
        """Run `profile` with the load's callers against the scenario's server; keeps and returns what it measured."""
        harness = self.world.harness
        callers = self.load_callers()
        self.upstream_mark = len(self.world.upstream.requests)
        run = self.world.run(run_load(harness, callers, profile, engine=engine_of(harness)))
        if any(sample.channel != "transport_error" for sample in run.result.samples):
            self.world.placement.answered()  # the server answered: a check relying on the doubles can be judged
        self.runs.append(run)
        return run

    @property
    def last(self) -> LoadRun:
        if not self.runs:
            raise LoadSpecError("no load has run yet in this scenario: add a When step that runs the load")
        return self.runs[-1]

    def storage_now(self) -> dict[str, dict[str, Any]]:
        """Every tenant in play's storage as it is now (what the isolation and integrity checks read)."""
        self.world.relies_on_doubles("checking the storage after the load")
        tenants = sorted(set(self.world.tenants_in_play()) | {c.tenant for c in self.load_callers()})
        return {tenant: self.world.storage.snapshot(tenant) for tenant in tenants}

    # the checks, on the last run ------------------------------------------------------------------------

    def check_latency(self, tool: str | None, percentile: int, limit_ms: float) -> None:
        checks.check_latency(self.last.result, tool, percentile, limit_ms)

    def check_throughput(self, at_least: float) -> None:
        checks.check_throughput(self.last.result, at_least)

    def check_at_most(self, channel: CallChannel | str, percent: float, reason: str | None = None) -> None:
        checks.check_at_most(self.last.result, checks.channel_named(channel), percent, reason)

    def check_storage_isolated(self) -> None:
        checks.check_storage_isolated(self.last, self.storage_now())

    def check_written_once(self, tool: str | None = None) -> None:
        checks.check_written_once(self.last, self.storage_now(), tool)

    def check_upstream_per_call(self, base: str, method: str, path: str, tool: str) -> None:
        """The upstream `base` received `method path` once for each call of `tool` answered during the last load."""
        from mcpbdd.kit.upstream import origin_of

        origin, verb = origin_of(base), method.upper()
        path_only, _, query = path.partition("?")
        received = sum(
            1
            for request in self.world.upstream.requests[self.upstream_mark :]
            if request.reached
            and request.origin == origin
            and request.method == verb
            and request.path == path_only
            and (not query or "&".join(f"{k}={v}" for k, v in request.query) == query)
        )
        checks.check_upstream_per_call(self.last.result, tool, received, f"{verb} {path}")

    def check_answers_isolated(self) -> None:
        checks.check_answers_isolated(self.last)


__all__ = ["ScenarioLoad", "load_of"]
