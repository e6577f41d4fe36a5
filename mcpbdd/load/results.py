"""What a load run measured: one sample per call, summarised per tool, with a timeline.

Every engine (in-process, HTTP, stdio, Locust) brings its measurements back in this one shape so that the
checks, the charts and the report read one model whatever generated the load. A sample records which channel
the call's answer came on, because under load the question is not only "how fast" but "did refusals stay on
the right channel": a tool error (`isError`), a JSON-RPC error, a broken transport and a call that ran out of
time are different failures with different owners.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from operator import itemgetter
from pathlib import Path
from typing import Any, Generic, Literal, TypeVar, get_args, overload

CallChannel = Literal["ok", "tool_error", "protocol_error", "transport_error", "timeout"]
CHANNELS: tuple[CallChannel, ...] = get_args(CallChannel)
ERROR_CHANNELS: tuple[CallChannel, ...] = tuple(channel for channel in CHANNELS if channel != "ok")

T = TypeVar("T")


class Rows(Sequence[T], Generic[T]):
    """Records a load keeps one per call (samples, writes, answers), held as plain tuples, made into `make`'s
    dataclass when read.

    Why tuples: a load keeps every call's record until it ends, thousands a second, and each dataclass instance
    is an object Python's cyclic collector tracks. Kept for the run, they are promoted into its oldest
    generation, whose growth is what triggers a full collection (a walk of every object in the process). A flat
    tuple of strings, numbers and None is untracked by the collector the first time it looks at it, so it is never
    promoted (a tuple inside one may keep it tracked: keep rows flat); the dataclass is built when a check or a
    chart reads the record (BENCHMARKS.md, the load driver's overhead).
    """

    __slots__ = ("make", "rows")

    def __init__(self, make: Callable[..., T], rows: Iterable[tuple[Any, ...]] = ()) -> None:
        self.make = make
        self.rows: list[tuple[Any, ...]] = list(rows)
        """The records as tuples of `make`'s fields, in order: append a record here (`rows.rows.append(...)`)."""

    def __len__(self) -> int:
        return len(self.rows)

    @overload
    def __getitem__(self, index: int) -> T: ...

    @overload
    def __getitem__(self, index: slice) -> list[T]: ...

    def __getitem__(self, index: int | slice) -> T | list[T]:
        if isinstance(index, slice):
            return [self.make(*row) for row in self.rows[index]]
        return self.make(*self.rows[index])

    def __iter__(self) -> Iterator[T]:
        make = self.make
        for row in self.rows:
            yield make(*row)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Rows):
            return self.make is other.make and self.rows == other.rows
        return isinstance(other, Sequence) and list(self) == list(other)

    __hash__ = None  # type: ignore[assignment]  # mutable, like the list it stands for

    def __repr__(self) -> str:
        return f"Rows({getattr(self.make, '__name__', self.make)}, {len(self.rows)} records)"


@dataclass(frozen=True)
class CallSample:
    """One call under load: who made it, when it started (seconds since the load began), how long it took."""

    tool: str
    caller: str
    tenant: str | None
    started_s: float
    latency_ms: float
    channel: CallChannel
    reason: str | None


@dataclass(frozen=True)
class ToolSummary:
    """One tool's calls: how many, the latency percentiles, and how they ended (by channel and by reason)."""

    tool: str
    calls: int
    p50_ms: float
    p95_ms: float
    p99_ms: float
    max_ms: float
    by_channel: dict[CallChannel, int]
    reasons: dict[str, int]

    @property
    def errors(self) -> int:
        """The calls that did not end on the `ok` channel."""
        return sum(count for channel, count in self.by_channel.items() if channel != "ok")

    def percentile_ms(self, percentile: int) -> float:
        """The latency at p50, p95 or p99 (the three a load profile may bound)."""
        by_name = {50: self.p50_ms, 95: self.p95_ms, 99: self.p99_ms, 100: self.max_ms}
        if percentile not in by_name:
            raise ValueError(f"percentile {percentile} is not measured: choose one of p50, p95, p99 or the maximum")
        return by_name[percentile]

    @classmethod
    def from_samples(cls, tool: str, samples: Iterable[CallSample]) -> ToolSummary:
        """Summarise one tool's samples (nearest-rank percentiles, so every figure is a latency that happened)."""
        mine = [sample for sample in samples if sample.tool == tool]
        by_channel: dict[CallChannel, int] = dict.fromkeys(CHANNELS, 0)
        for sample in mine:
            by_channel[sample.channel] += 1
        reasons = Counter(sample.reason for sample in mine if sample.reason is not None)
        return _summary(tool, [sample.latency_ms for sample in mine], by_channel, reasons)


def nearest_rank(ordered: list[float], percentile: float) -> float:
    """The nearest-rank percentile of an ascending list (0.0 for no values)."""
    if not ordered:
        return 0.0
    rank = max(1, math.ceil(percentile / 100 * len(ordered)))
    return ordered[min(rank, len(ordered)) - 1]


@dataclass(frozen=True)
class LoadResult:
    """A whole load run: which engine, how long, why it stopped, per tool, per second, and every sample.

    `stopped_because` says in words why the run ended ("the 200 calls were made", "the server stopped
    answering: ..."), so a partial result is never mistaken for a complete one. `samples` may be empty when the
    engine reports only aggregates (Locust); `artifacts` names the files an engine left (its CSVs).
    """

    engine: str
    duration_s: float
    stopped_because: str
    per_tool: dict[str, ToolSummary]
    timeline: list[tuple[float, int, int]]
    samples: Sequence[CallSample] = field(default_factory=list)
    artifacts: dict[str, Path] = field(default_factory=dict)

    @property
    def calls(self) -> int:
        """Every call made, over all tools."""
        return sum(summary.calls for summary in self.per_tool.values())

    @property
    def calls_per_second(self) -> float:
        """The throughput over the whole run (0.0 for a run that lasted no time)."""
        return self.calls / self.duration_s if self.duration_s > 0 else 0.0

    def by_channel(self) -> dict[CallChannel, int]:
        """The calls of every tool, counted by the channel they ended on."""
        totals: dict[CallChannel, int] = dict.fromkeys(CHANNELS, 0)
        for summary in self.per_tool.values():
            for channel, count in summary.by_channel.items():
                totals[channel] += count
        return totals

    def reasons(self) -> dict[str, int]:
        """The error reasons of every tool, counted."""
        totals: Counter[str] = Counter()
        for summary in self.per_tool.values():
            totals.update(summary.reasons)
        return dict(totals)

    @classmethod
    def from_samples(
        cls,
        engine: str,
        samples: Iterable[CallSample],
        *,
        duration_s: float,
        stopped_because: str,
        artifacts: Mapping[str, Path] | None = None,
    ) -> LoadResult:
        """Summarise per tool and per second (the timeline's second is the whole second the call started in).

        `samples` may be `sample_rows()` a driver filled (summarised from its tuples, kept as they are) or any
        iterable of `CallSample`s."""
        kept: Rows[CallSample] = samples if isinstance(samples, Rows) else Rows(CallSample, map(_row, samples))
        kept.rows.sort(key=_STARTED)  # stable: samples started at the same time keep their order
        return cls(
            engine=engine,
            duration_s=duration_s,
            stopped_because=stopped_because,
            per_tool=_summaries(kept.rows),
            timeline=_timeline(kept.rows, duration_s),
            samples=kept,
            artifacts=dict(artifacts or {}),
        )


def sample_rows() -> Rows[CallSample]:
    """An empty set of samples for a driver to append to, one tuple per call: `(tool, caller, tenant, started_s,
    latency_ms, channel, reason)`, `CallSample`'s fields in order (`Rows` says why tuples)."""
    return Rows(CallSample)


_STARTED = itemgetter(3)
"""A sample row's `started_s`."""


def _row(sample: CallSample) -> tuple[Any, ...]:
    return (
        sample.tool,
        sample.caller,
        sample.tenant,
        sample.started_s,
        sample.latency_ms,
        sample.channel,
        sample.reason,
    )


def _summaries(rows: Sequence[tuple[Any, ...]]) -> dict[str, ToolSummary]:
    """Every tool's summary from sample rows (by tool name, sorted), as `ToolSummary.from_samples` makes it, with
    the counting done by `Counter` and `sorted` rather than a Python step per sample."""
    by_tool: dict[str, list[tuple[Any, ...]]] = {}
    for row in rows:
        by_tool.setdefault(row[0], []).append(row)
    summaries = {}
    for tool in sorted(by_tool):
        mine = by_tool[tool]
        by_channel: dict[CallChannel, int] = dict.fromkeys(CHANNELS, 0)
        by_channel.update(Counter(map(_CHANNEL, mine)))
        reasons = Counter(reason for reason in map(_REASON, mine) if reason is not None)
        summaries[tool] = _summary(tool, list(map(_LATENCY, mine)), by_channel, reasons)
    return summaries


_LATENCY, _CHANNEL, _REASON = itemgetter(4), itemgetter(5), itemgetter(6)
"""A sample row's `latency_ms`, `channel` and `reason`."""


def _summary(
    tool: str, latencies: list[float], by_channel: dict[CallChannel, int], reasons: Counter[str]
) -> ToolSummary:
    latencies.sort()
    return ToolSummary(
        tool=tool,
        calls=len(latencies),
        p50_ms=nearest_rank(latencies, 50),
        p95_ms=nearest_rank(latencies, 95),
        p99_ms=nearest_rank(latencies, 99),
        max_ms=latencies[-1] if latencies else 0.0,
        by_channel=by_channel,
        reasons=dict(reasons),
    )


def timeline_of(samples: Iterable[CallSample], duration_s: float) -> list[tuple[float, int, int]]:
    """(second, calls started in it, of which errors) for every whole second of the run, empty seconds included."""
    return _timeline([_row(sample) for sample in samples], duration_s)


def _timeline(rows: Sequence[tuple[Any, ...]], duration_s: float) -> list[tuple[float, int, int]]:
    seconds = [int(started) for started in map(_STARTED, rows)]
    calls = Counter(seconds)
    errors = Counter(second for second, channel in zip(seconds, map(_CHANNEL, rows), strict=True) if channel != "ok")
    last = max(0, math.ceil(duration_s - 0.001) - 1)  # a run of 1.0003 s has one second, not a second empty one
    last = max(last, max(seconds)) if seconds else last
    return [(float(second), calls[second], errors[second]) for second in range(last + 1)]


__all__ = [
    "CHANNELS",
    "ERROR_CHANNELS",
    "CallChannel",
    "CallSample",
    "LoadResult",
    "Rows",
    "ToolSummary",
    "nearest_rank",
    "sample_rows",
    "timeline_of",
]
