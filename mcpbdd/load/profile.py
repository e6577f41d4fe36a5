"""A load profile: what each caller does, how much of it, and how fast the callers arrive.

A profile is a list of steps (a tool, its arguments, a weight) that every caller goes through in turn, and a
bound. The bound is what makes a load stop by itself: a duration, a number of calls (over all callers), or a
number of iterations per caller (one iteration: every step once per unit of its weight). A profile with no
bound is refused when it is built, never discovered as a run that does not end.

String arguments may name the caller: `{caller}` (the user), `{tenant}` (the caller's tenant) and `{n}` (the
caller's own sequence number, 1 for its first call) are replaced in every string, at any depth. A value holding
both `{caller}` and `{n}` is therefore unique to one call, which is how the checks after a load find each
acknowledged write in storage (`mcpbdd.load.checks`).
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

PLACEHOLDERS = ("{caller}", "{tenant}", "{n}")
_PLACEHOLDER = re.compile("|".join(re.escape(placeholder) for placeholder in PLACEHOLDERS))
_AROUND_PLACEHOLDERS = re.compile(f"({_PLACEHOLDER.pattern})")
DEFAULT_TIME_LIMIT_S = 120.0
"""How long a load bounded by calls or iterations may run at most before it is stopped (its results kept)."""
MAX_ITERATION = 10_000
"""At most this many calls in one iteration (the weights' sum): an iteration is built as a list, once per load."""
MAX_DURATION_S = 86_400.0
"""The longest a load (its duration or its time limit) may be asked to run: a day. A figure beyond it is a slip
(`for 1000000 seconds`), and a load must stop by itself within a time a CI job can wait for."""


class LoadSpecError(ValueError):
    """A load profile that cannot run as written (no bound, a weight below one, no step): the specification is
    wrong, and the message says how to write it."""


@dataclass(frozen=True)
class LoadStep:
    """One row of a profile: call `tool` with `arguments` (placeholders filled per call), `weight` times per
    iteration."""

    tool: str
    arguments: Mapping[str, Any] = field(default_factory=dict)
    weight: int = 1

    def filled(self, caller: str, tenant: str | None, n: int) -> dict[str, Any]:
        """The arguments of this caller's `n`th call."""
        values = {"{caller}": caller, "{tenant}": tenant or "", "{n}": str(n)}
        return {name: fill(value, values) for name, value in self.arguments.items()}

    def marked(self) -> list[str]:
        """The argument names whose values are unique to one call (they hold both `{caller}` and `{n}`)."""
        return [name for name, value in self.arguments.items() if _names_the_call(value)]

    def filler(self) -> Filler:
        """`filled`, prepared once for a whole load: `step.filler()(caller, tenant, n)` gives what
        `step.filled(caller, tenant, n)` gives, with each string's placeholders found once instead of per call.

        A number, a string without placeholders, a boolean or None is handed to every call as it is (nothing can
        change it); every list and object is new for every call, as `filled` makes them, constant or not: in
        process (the context harness) a tool is handed the very objects the driver made, and one that changes
        what it was handed must not change what the next call, another tenant's perhaps, sends.
        """
        prepared = [(name, _prepared(value)) for name, value in self.arguments.items()]

        def filled(caller: str, tenant: str | None, n: int) -> dict[str, Any]:
            values = {"caller": caller, "tenant": tenant or "", "n": str(n)}
            return {name: value.fill(values) if type(value) is _Fill else value for name, value in prepared}

        return filled


Filler = Callable[[str, "str | None", int], dict[str, Any]]
"""A step's arguments for one call: `(caller, tenant, n) -> arguments` (`LoadStep.filler`)."""


class _Fill:
    """A value with placeholders, ready to fill from `{"caller": ..., "tenant": ..., "n": ...}`."""

    __slots__ = ("fill",)

    def __init__(self, fill: Callable[[Mapping[str, str]], Any]) -> None:
        self.fill = fill


def _value(prepared: Any, values: Mapping[str, str]) -> Any:
    return prepared.fill(values) if type(prepared) is _Fill else prepared


def _prepared(value: Any) -> Any:
    """A scalar as it is when it holds no placeholder, else a `_Fill` that fills it (one pass, like `fill`)."""
    if isinstance(value, str):
        parts = _AROUND_PLACEHOLDERS.split(value)
        if len(parts) == 1:
            return value
        # Placeholders (odd parts) become format fields; braces elsewhere are escaped so they stay as written; a
        # filled-in value is inserted as written (`str.format` never reads what it inserts).
        escaped = (
            part if index % 2 else part.replace("{", "{{").replace("}", "}}") for index, part in enumerate(parts)
        )
        return _Fill("".join(escaped).format_map)
    if isinstance(value, list):  # a new list for every call even when nothing in it varies (`filler` says why)
        items = [_prepared(item) for item in value]
        return _Fill(lambda values: [_value(item, values) for item in items])
    if isinstance(value, dict):
        entries = [(key, _prepared(item)) for key, item in value.items()]
        return _Fill(lambda values: {key: _value(item, values) for key, item in entries})
    return value


def fill(value: Any, values: Mapping[str, str]) -> Any:
    """`value` with every placeholder replaced, in strings at any depth of lists and objects."""
    if isinstance(value, str):  # one pass: a caller named `team{n}` is inserted as written, not filled again
        return _PLACEHOLDER.sub(lambda found: values.get(found.group(0), found.group(0)), value)
    if isinstance(value, list):
        return [fill(item, values) for item in value]
    if isinstance(value, dict):
        return {key: fill(item, values) for key, item in value.items()}
    return value


def _names_the_call(value: Any) -> bool:
    return isinstance(value, str) and "{caller}" in value and "{n}" in value


@dataclass(frozen=True)
class LoadBound:
    """When a load stops: after `duration_s`, after `calls` calls in all, or after `iterations` per caller.

    Several may be given; the first reached stops the load. `time_limit_s` stops a load bounded by count
    that takes too long (a slow server must not hold the run); a duration is its own limit.
    """

    duration_s: float | None = None
    calls: int | None = None
    iterations: int | None = None
    time_limit_s: float = DEFAULT_TIME_LIMIT_S

    def __post_init__(self) -> None:
        if self.duration_s is None and self.calls is None and self.iterations is None:
            raise LoadSpecError(
                "the load has no bound, so it would never stop: say how long it runs (`for 5 seconds`), how many "
                "calls it makes (`for 200 calls`) or how many times each caller goes through the profile "
                "(`for 10 iterations per caller`)"
            )
        for name, value in (("duration", self.duration_s), ("calls", self.calls), ("iterations", self.iterations)):
            if value is not None and (not math.isfinite(value) or value <= 0):
                raise LoadSpecError(f"the load's {name} must be a positive number, not {value!r}")
        if not math.isfinite(self.time_limit_s) or self.time_limit_s <= 0:
            raise LoadSpecError(f"the load's time limit must be a positive number of seconds, not {self.time_limit_s}")
        for name, seconds in (("duration", self.duration_s), ("time limit", self.time_limit_s)):
            if seconds is not None and seconds > MAX_DURATION_S:
                raise LoadSpecError(
                    f"the load's {name} of {seconds:g} s is more than a day ({MAX_DURATION_S:g} s): a load must stop "
                    "by itself within a time a run can wait for; split a longer soak into runs"
                )

    @property
    def limit_s(self) -> float:
        """The longest the load may run (its duration when it has one, else the time limit)."""
        return self.duration_s if self.duration_s is not None else self.time_limit_s

    def describe(self) -> str:
        parts = []
        if self.duration_s is not None:
            parts.append(f"{self.duration_s:g} s")
        if self.calls is not None:
            parts.append(f"{self.calls} calls")
        if self.iterations is not None:
            parts.append(f"{self.iterations} iterations per caller")
        return " or ".join(parts)


@dataclass(frozen=True)
class LoadProfile:
    """The steps every caller goes through, the bound, and the ramp-up (callers start evenly spread over it)."""

    steps: Sequence[LoadStep]
    bound: LoadBound
    ramp_up_s: float = 0.0

    def __post_init__(self) -> None:
        if not self.steps:
            raise LoadSpecError("the load profile has no step: give at least one tool to call")
        for step in self.steps:
            if step.weight < 1:
                raise LoadSpecError(f"the weight of {step.tool!r} must be a whole number from 1, not {step.weight}")
        total = sum(step.weight for step in self.steps)
        if total > MAX_ITERATION:
            raise LoadSpecError(
                f"the profile's weights add up to {total} calls per iteration, more than {MAX_ITERATION}: weights "
                "are proportions (3 and 1 call one tool three times as often), so write them small"
            )
        if not math.isfinite(self.ramp_up_s) or self.ramp_up_s < 0:
            raise LoadSpecError(f"the ramp-up must be zero or a positive number of seconds, not {self.ramp_up_s}")

    def schedule(self) -> list[LoadStep]:
        """One iteration: each step as many times as its weight, interleaved so no tool comes in a long run."""
        rounds = max(step.weight for step in self.steps)
        return [step for turn in range(rounds) for step in self.steps if turn < step.weight]

    @property
    def tools(self) -> list[str]:
        return list(dict.fromkeys(step.tool for step in self.steps))


__all__ = [
    "DEFAULT_TIME_LIMIT_S",
    "MAX_DURATION_S",
    "MAX_ITERATION",
    "PLACEHOLDERS",
    "LoadBound",
    "LoadProfile",
    "LoadSpecError",
    "LoadStep",
    "fill",
]
