"""What a person looks at after a load: a latency histogram, throughput over time, and the tables behind them.

The charts are SVG drawn by pygal (pure Python, imported only when a chart is drawn, so a run without a load
never loads it). Every text in them (tool names come from a feature file, reasons from a server) is escaped by
pygal's XML writer; the tables are plain text. Both read only the shared result model, so a Locust run that
brings aggregates without samples still gets its table and its throughput chart.
"""

from __future__ import annotations

from typing import Any

from mcpbdd.load.results import CHANNELS, LoadResult

BUCKETS = 20
"""Bars in the latency histogram (equal widths from 0 to the slowest call)."""


def _style() -> Any:
    from pygal.style import Style

    return Style(background="white", plot_background="white", font_family="sans-serif")


def _common() -> dict[str, Any]:
    """What every load chart shares: its look, its size, and no script (pygal's tooltips script is fetched from the
    web: a report opened offline must not reach out)."""
    return {"style": _style(), "width": 800, "height": 400, "disable_xml_declaration": True, "js": []}


def latency_histogram(result: LoadResult) -> str | None:
    """An SVG histogram of the calls' latencies per tool (None when the engine brought no samples)."""
    if not result.samples:
        return None
    import pygal

    slowest = max(sample.latency_ms for sample in result.samples) or 1.0
    width = slowest / BUCKETS
    chart = pygal.Histogram(
        title=f"Latency of {result.calls} calls ({result.engine})",
        x_title="latency (ms)",
        y_title="calls",
        **_common(),
    )
    for tool in result.per_tool:
        counts = [0] * BUCKETS
        for sample in result.samples:
            if sample.tool == tool:
                counts[min(int(sample.latency_ms / width), BUCKETS - 1)] += 1
        chart.add(tool, [(count, index * width, (index + 1) * width) for index, count in enumerate(counts) if count])
    return str(chart.render(is_unicode=True))


def throughput_chart(result: LoadResult) -> str:
    """An SVG bar chart of the calls (and errors) started in each second of the run (bars read even for one second)."""
    import pygal

    chart = pygal.Bar(
        title=f"Throughput ({result.engine}): {result.calls_per_second:.1f} calls/s over {result.duration_s:.1f} s",
        x_title="second",
        y_title="calls started",
        show_minor_x_labels=False,
        **_common(),
    )
    seconds = [f"{second:g}" for second, _, _ in result.timeline]
    chart.x_labels = seconds
    chart.x_labels_major_every = max(1, len(seconds) // 10)
    chart.add("calls", [calls for _, calls, _ in result.timeline])
    chart.add("errors", [errors for _, _, errors in result.timeline])
    return str(chart.render(is_unicode=True))


def percentiles_table(result: LoadResult) -> str:
    """The per-tool table: calls, p50, p95, p99, max, errors."""
    header = ("tool", "calls", "p50 ms", "p95 ms", "p99 ms", "max ms", "errors")
    rows = [header] + [
        (
            s.tool,
            str(s.calls),
            f"{s.p50_ms:.1f}",
            f"{s.p95_ms:.1f}",
            f"{s.p99_ms:.1f}",
            f"{s.max_ms:.1f}",
            str(s.errors),
        )
        for s in result.per_tool.values()
    ]
    widths = [max(len(row[i]) for row in rows) for i in range(len(header))]
    lines = ["  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)).rstrip() for row in rows]
    summary = (
        f"{result.engine} load: {result.calls} calls in {result.duration_s:.2f} s "
        f"({result.calls_per_second:.1f} calls/s); stopped because {result.stopped_because}"
    )
    return "\n".join([summary, "", *lines])


def errors_table(result: LoadResult) -> str:
    """The calls by channel, and the reasons of those that failed."""
    totals = result.by_channel()
    lines = [f"{channel.replace('_', ' '):16} {totals[channel]}" for channel in CHANNELS]
    reasons = result.reasons()
    if reasons:
        lines += ["", "reasons:"]
        lines += [f"  {name}: {count}" for name, count in sorted(reasons.items(), key=lambda item: -item[1])]
    return "\n".join(lines)


__all__ = ["BUCKETS", "errors_table", "latency_histogram", "percentiles_table", "throughput_chart"]
