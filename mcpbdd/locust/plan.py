"""What a Locust run does, as one file every Locust process reads: the target, the callers, the profile.

The runner (in mcpbdd's process) writes the plan; the master and each worker read it from the path in
`$MCPBDD_LOCUST_PLAN`. It carries each caller's bearer token, minted once by the runner (the fake authorization
server's signing key lives in the runner's process only), so the file is a secret: it is written to a private
directory, readable by its owner only, and removed with that directory when the run ends.

Arguments may name the caller, as in every load profile: `{caller}` (the user), `{tenant}` and `{n}` (the
caller's own sequence number, 1 for its first call) are replaced in every string, at any depth.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Protocol

from mcpbdd.load.profile import fill  # the placeholders are filled as the in-process driver fills them

__all__ = [
    "PLAN_ENV",
    "LocustCaller",
    "LocustPlan",
    "LocustStep",
    "ProfileStep",
    "callers_of",
    "fill",
    "schedule_of",
    "steps_of",
]

MAX_ITERATION = 10_000
"""At most this many calls in one round of the profile (the weights' sum): every user builds the round as a list."""

PLAN_ENV = "MCPBDD_LOCUST_PLAN"
"""The environment variable naming the plan file in every Locust process mcpbdd starts."""


class ProfileStep(Protocol):
    """Anything with a tool, its arguments and a weight (a load profile's step is one)."""

    @property
    def tool(self) -> str: ...

    @property
    def arguments(self) -> Mapping[str, Any]: ...

    @property
    def weight(self) -> int: ...


@dataclass(frozen=True)
class LocustStep:
    """One row of the profile: call `tool` with `arguments` (placeholders filled per call), `weight` in the mix."""

    tool: str
    arguments: Mapping[str, Any] = field(default_factory=dict)
    weight: int = 1

    def __post_init__(self) -> None:
        if not self.tool:
            raise ValueError("a profile step needs a tool name")
        if not isinstance(self.weight, int) or self.weight < 1:
            raise ValueError(f"the weight of {self.tool!r} must be a whole number of at least 1, not {self.weight!r}")

    def filled(self, caller: LocustCaller, n: int) -> dict[str, Any]:
        """The arguments of `caller`'s `n`th call."""
        values = {"{caller}": caller.user, "{tenant}": caller.tenant, "{n}": str(n)}
        return {name: fill(value, values) for name, value in self.arguments.items()}


def steps_of(steps: Iterable[ProfileStep]) -> list[LocustStep]:
    """The profile as plan steps (a load profile's steps, or plan steps already)."""
    found = [LocustStep(step.tool, dict(step.arguments), step.weight) for step in steps]
    if not found:
        raise ValueError("the profile has no step: give at least one tool to call")
    total = sum(step.weight for step in found)
    if total > MAX_ITERATION:
        raise ValueError(
            f"the profile's weights add up to {total} calls per iteration, more than {MAX_ITERATION}: weights are "
            "proportions (3 and 1 call one tool three times as often), so write them small"
        )
    return found


def schedule_of(steps: list[LocustStep]) -> list[LocustStep]:
    """One round of the profile, each step as many times as its weight, interleaved: a caller's `n`th call is
    `schedule[(n - 1) % len(schedule)]` (how the statistics' runner finds which step an acknowledged call was)."""
    rounds = max(step.weight for step in steps)
    return [step for turn in range(rounds) for step in steps if turn < step.weight]


@dataclass(frozen=True)
class LocustCaller:
    """One simulated caller: the identity the server sees (tenant, user, scopes) and the token it sends."""

    tenant: str
    user: str
    scopes: tuple[str, ...] = ()
    token: str = ""


def callers_of(tenants: Mapping[str, int], scopes: Iterable[str] = ()) -> list[LocustCaller]:
    """`count` callers per tenant, named `<tenant>-<i>` (`{"acme": 2}`: acme-1 and acme-2), interleaved by tenant.

    Interleaved so that any prefix of the list (fewer Locust users than callers) still has every tenant.
    """
    if not tenants or any(count < 1 for count in tenants.values()):
        raise ValueError(f"give each tenant at least one caller, not {dict(tenants)!r}")
    granted = tuple(scopes)
    most = max(tenants.values())
    return [
        LocustCaller(tenant, f"{tenant}-{i}", granted)
        for i in range(1, most + 1)
        for tenant, count in tenants.items()
        if i <= count
    ]


@dataclass(frozen=True)
class LocustPlan:
    """Everything a Locust process needs, and where the master writes what each worker reported."""

    url: str
    callers: list[LocustCaller]
    steps: list[LocustStep]
    workers: int
    call_timeout_s: float
    workers_report: str
    """The file the master keeps each worker's call counts in (proof that every worker took part)."""
    run_time_s: float = 10.0
    """How long each worker's users make calls, from its first user's start. Locust's own `--run-time` must be
    longer (`LocustTiming.master_run_time_s`): users stop calling first, their last calls end and are reported,
    then the master quits, so no call is cut off unreported (Locust's quit waits half a second for the workers'
    final statistics, while a call in flight may need its whole timeout)."""

    def caller_for(self, worker_index: int, local_index: int) -> LocustCaller:
        """The caller of a worker's `local_index`th user: worker w takes callers w, w+N, w+2N... (N workers).

        Deterministic, so the server's records say which worker made which call; a worker given more users than
        its share reuses its callers in turn (two sessions of one caller).
        """
        mine = self.callers[worker_index % self.workers :: self.workers] or self.callers
        return mine[local_index % len(mine)]

    def write(self, path: Path) -> Path:
        """Write the plan readable by its owner only (it holds the callers' tokens)."""
        document = asdict(self)
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL
        with os.fdopen(os.open(path, flags, 0o600), "w", encoding="utf-8") as handle:
            json.dump(document, handle)
        return path

    @classmethod
    def read(cls, path: Path) -> LocustPlan:
        document = json.loads(path.read_text(encoding="utf-8"))
        return cls(
            url=document["url"],
            callers=[LocustCaller(c["tenant"], c["user"], tuple(c["scopes"]), c["token"]) for c in document["callers"]],
            steps=[LocustStep(s["tool"], s["arguments"], s["weight"]) for s in document["steps"]],
            workers=int(document["workers"]),
            call_timeout_s=float(document["call_timeout_s"]),
            workers_report=document["workers_report"],
            run_time_s=float(document.get("run_time_s", 10.0)),
        )

    @classmethod
    def from_environment(cls) -> LocustPlan:
        path = os.environ.get(PLAN_ENV)
        if not path:
            raise RuntimeError(f"${PLAN_ENV} is not set: start Locust through mcpbdd (run_locust or `mcpbdd locust`)")
        return cls.read(Path(path))
