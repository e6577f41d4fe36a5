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
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal, get_args

CallChannel = Literal["ok", "tool_error", "protocol_error", "transport_error", "timeout"]
CHANNELS: tuple[CallChannel, ...] = get_args(CallChannel)
ERROR_CHANNELS: tuple[CallChannel, ...] = tuple(channel for channel in CHANNELS if channel != "ok")


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
        latencies = sorted(sample.latency_ms for sample in mine)
        by_channel: dict[CallChannel, int] = dict.fromkeys(CHANNELS, 0)
        for sample in mine:
            by_channel[sample.channel] += 1
        reasons = Counter(sample.reason for sample in mine if sample.reason is not None)
        return cls(
            tool=tool,
            calls=len(mine),
            p50_ms=nearest_rank(latencies, 50),
            p95_ms=nearest_rank(latencies, 95),
            p99_ms=nearest_rank(latencies, 99),
            max_ms=latencies[-1] if latencies else 0.0,
            by_channel=by_channel,
            reasons=dict(reasons),
        )


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
    samples: list[CallSample] = field(default_factory=list)
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
        """Summarise per tool and per second (the timeline's second is the whole second the call started in)."""
        kept = sorted(samples, key=lambda sample: sample.started_s)
        tools = sorted({sample.tool for sample in kept})
        per_tool = {tool: ToolSummary.from_samples(tool, kept) for tool in tools}
        return cls(
            engine=engine,
            duration_s=duration_s,
            stopped_because=stopped_because,
            per_tool=per_tool,
            timeline=timeline_of(kept, duration_s),
            samples=kept,
            artifacts=dict(artifacts or {}),
        )


def timeline_of(samples: Iterable[CallSample], duration_s: float) -> list[tuple[float, int, int]]:
    """(second, calls started in it, of which errors) for every whole second of the run, empty seconds included."""
    calls: Counter[int] = Counter()
    errors: Counter[int] = Counter()
    last = max(0, math.ceil(duration_s - 0.001) - 1)  # a run of 1.0003 s has one second, not a second empty one
    for sample in samples:
        second = int(sample.started_s)
        last = max(last, second)
        calls[second] += 1
        if sample.channel != "ok":
            errors[second] += 1
    return [(float(second), calls[second], errors[second]) for second in range(last + 1)]


__all__ = [
    "CHANNELS",
    "ERROR_CHANNELS",
    "CallChannel",
    "CallSample",
    "LoadResult",
    "ToolSummary",
    "nearest_rank",
    "timeline_of",
]
