"""What must hold under load: latency, throughput, errors by channel, and isolation and integrity after it.

Each check raises an `AssertionError` that says what was expected, what was measured, and (for isolation and
integrity) which caller, tenant and key. A check that would have nothing to judge fails instead of passing
(no call of the tool was made, no acknowledged write names its call, no tenant was in play): a green under
load must mean something was measured.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from typing import Any

from mcpbdd.load.driver import ANSWER_CHARS, LoadRun
from mcpbdd.load.profile import LoadSpecError
from mcpbdd.load.results import CHANNELS, CallChannel, LoadResult, ToolSummary

CHANNEL_WORDS: dict[str, CallChannel] = {
    "ok": "ok",
    "tool error": "tool_error",
    "tool errors": "tool_error",
    "protocol error": "protocol_error",
    "protocol errors": "protocol_error",
    "transport error": "transport_error",
    "transport errors": "transport_error",
    "timeout": "timeout",
    "timeouts": "timeout",
}


def channel_named(word: str) -> CallChannel:
    """The channel a phrase names ("protocol errors", "tool_error", "timeouts")."""
    normal = word.strip().lower().replace("_", " ").replace("-", " ")
    if normal in CHANNEL_WORDS:
        return CHANNEL_WORDS[normal]
    raise LoadSpecError(f"unknown error channel {word!r}: use one of {', '.join(c for c in CHANNELS if c != 'ok')}")


def _judgeable(what: str, value: float, unit: str, most: float = math.inf) -> None:
    """Refuse a bound no measure can be compared with: NaN passes every `>` test, a negative one fails every run."""
    if math.isnan(value) or not 0 <= value <= most or math.isinf(value):
        limit = f" and at most {most:g}" if math.isfinite(most) else ""
        raise LoadSpecError(f"the {what} must be a number of {unit} from 0{limit}, not {value!r}")


def _summary(result: LoadResult, tool: str) -> ToolSummary:
    summary = result.per_tool.get(tool)
    if summary is None or summary.calls == 0:
        made = ", ".join(f"{name} ({s.calls})" for name, s in result.per_tool.items()) or "none"
        raise AssertionError(
            f"no call of {tool!r} was made under load, so its latency cannot be judged (calls made: {made}; "
            f"the load stopped because {result.stopped_because})"
        )
    return summary


def _failures(by_channel: Mapping[CallChannel, int]) -> str:
    """`transport error: 3, timeout: 1`: how the calls that did not end ok ended."""
    return ", ".join(f"{_word(channel)}: {count}" for channel, count in by_channel.items() if count and channel != "ok")


def check_latency(result: LoadResult, tool: str | None, percentile: int, limit_ms: float) -> None:
    """The `percentile` latency (50, 95, 99; 100 for the maximum) of `tool` (None: every tool) is under `limit_ms`."""
    _judgeable("latency bound", limit_ms, "milliseconds")
    tools = [tool] if tool is not None else list(result.per_tool)
    if not tools:
        raise AssertionError(f"no call was made under load, so no latency can be judged: {result.stopped_because}")
    over = []
    for name in tools:
        summary = _summary(result, name)
        if not summary.by_channel["ok"]:
            raise AssertionError(
                f"none of the {summary.calls} calls of {name!r} ended ok ({_failures(summary.by_channel)}), so its "
                f"latency would measure failures only ({_context(result)})"
            )
        measured = summary.percentile_ms(percentile)
        if measured > limit_ms:
            over.append(f"{name}: p{percentile} {measured:.1f} ms over {summary.calls} calls")
    if over:
        label = "the maximum" if percentile == 100 else f"p{percentile}"
        raise AssertionError(
            f"Expected {label} latency under {limit_ms:g} ms, but " + "; ".join(over) + f" ({_context(result)})"
        )


def check_throughput(result: LoadResult, at_least: float) -> None:
    """At least `at_least` calls per second over the whole run."""
    _judgeable("throughput floor", at_least, "calls per second")
    totals = result.by_channel()
    if result.calls and not totals["ok"]:
        raise AssertionError(
            f"Expected at least {at_least:g} calls per second, but none of the {result.calls} calls ended ok "
            f"({_failures(totals)}), so the throughput would count failures only ({_context(result)})"
        )
    if result.calls == 0 or result.calls_per_second < at_least:
        raise AssertionError(
            f"Expected at least {at_least:g} calls per second, but {result.calls} calls in {result.duration_s:.2f} s "
            f"made {result.calls_per_second:.1f} per second ({_context(result)})"
        )


def check_at_most(result: LoadResult, channel: CallChannel, percent: float, reason: str | None = None) -> None:
    """At most `percent` % of the calls ended on `channel` (0: none did); with `reason`, only that reason counts.

    A budget with a reason also fails on errors of that channel with any other reason: a budget for the
    `rate_limited` tool error does not let a `note_not_found` through.
    """
    _judgeable("error budget", percent, "percent", most=100)
    total = result.calls
    if total == 0:
        raise AssertionError(f"no call was made under load, so no error budget can be judged: {result.stopped_because}")
    counted = result.by_channel()[channel]
    reasons = _reasons_on(result, channel)
    if reason is not None:
        others = {name: count for name, count in reasons.items() if name != reason}
        unexplained = counted - sum(reasons.values())
        if others or unexplained:
            listed = ", ".join(f"{name} ({count})" for name, count in others.items())
            if unexplained:
                listed = ", ".join(filter(None, [listed, f"without a declared reason ({unexplained})"]))
            raise AssertionError(
                f"Expected only {reason!r} among the {_word(channel)}s, but there were also: {listed} "
                f"({_context(result)})"
            )
        counted = reasons.get(reason, 0)
    share = 100 * counted / total
    if share > percent or (percent == 0 and counted):
        what = f"{_word(channel)}s" + (f" {reason!r}" if reason else "")
        raise AssertionError(
            f"Expected at most {percent:g}% {what}, but {counted} of {total} calls ({share:.1f}%) were"
            + _examples(reasons)
            + f" ({_context(result)})"
        )


def _reasons_on(result: LoadResult, channel: CallChannel) -> dict[str, int]:
    """The reasons of the calls that ended on `channel`; an engine that brings no samples (Locust) counts its
    reasons per tool only, so those stand for every error channel."""
    if not result.samples:
        return result.reasons() if channel != "ok" else {}
    counts: dict[str, int] = {}
    for sample in result.samples:
        if sample.channel == channel and sample.reason is not None:
            counts[sample.reason] = counts.get(sample.reason, 0) + 1
    return counts


def _examples(reasons: Mapping[str, int]) -> str:
    if not reasons:
        return ""
    return ": " + ", ".join(f"{name} ({count})" for name, count in sorted(reasons.items(), key=lambda i: -i[1])[:5])


def _word(channel: CallChannel) -> str:
    return channel.replace("_", " ")


def _context(result: LoadResult) -> str:
    return (
        f"{result.calls} calls by the {result.engine} load in {result.duration_s:.2f} s, "
        f"stopped because {result.stopped_because}"
    )


def check_upstream_per_call(result: LoadResult, tool: str, received: int, request: str) -> None:
    """The upstream received `request` once for each call of `tool` the server answered under load.

    A call that timed out or broke on the way may or may not have reached the server, so it may or may not have
    sent its request: the count must lie between the calls answered and all the calls of the tool.
    """
    summary = _summary(result, tool)
    answered = sum(summary.by_channel[channel] for channel in ("ok", "tool_error", "protocol_error"))
    if answered == 0:
        raise AssertionError(
            f"no call of {tool!r} was answered under load, so what the upstream should have received is unknown "
            f"({_context(result)})"
        )
    if not answered <= received <= summary.calls:
        expected = f"{answered}" if answered == summary.calls else f"between {answered} and {summary.calls}"
        raise AssertionError(
            f"Expected the upstream to receive {request} once for each call of {tool!r}: {expected} times, but it "
            f"received it {received} times during the load ({_context(result)})"
        )


def leaves(value: Any) -> Iterable[str]:
    """Every string in a JSON value, at any depth (keys included)."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, list):
        for item in value:
            yield from leaves(item)
    elif isinstance(value, dict):
        for key, item in value.items():
            yield key
            yield from leaves(item)


def _owners(run: LoadRun) -> dict[str, tuple[str, str | None]]:
    """Every mark an acknowledged write carried, with the caller and tenant that wrote it.

    A mark must name one write: two writes carrying the same text (`"{caller}{n}"` gives `alice-1` + `12` and
    `alice-11` + `2` the same `alice-112`) could not be told apart, so one of them lost would look stored. That
    is refused, never guessed.
    """
    owners: dict[str, tuple[str, str | None]] = {}
    first: dict[str, int] = {}
    for index, write in enumerate(run.written):
        for mark in write.marks:
            earlier = first.setdefault(mark, index)
            if earlier != index:
                other = run.written[earlier]
                raise AssertionError(
                    f"two acknowledged writes carry the same text {mark!r} ({other.tool} by {other.caller} and "
                    f"{write.tool} by {write.caller}), so storage cannot tell them apart: put words between "
                    '{caller} and {n} (e.g. "title": "{caller} note {n}")'
                )
            owners[mark] = (write.caller, write.tenant)
    return owners


def _written_marks(run: LoadRun) -> dict[str, tuple[str, str | None]]:
    if run.writes_unreported:
        raise AssertionError(
            f"{run.writes_unreported} acknowledged writes were counted but not named by the {run.result.engine} "
            "load (a worker's last report was lost), so storage cannot be checked against everything written "
            f"({_context(run.result)})"
        )
    owners = _owners(run)
    if not owners:
        raise AssertionError(
            "no acknowledged write names its call, so storage cannot be checked against what was written: give a "
            'writing step an argument that holds both {caller} and {n} (e.g. "title": "{caller} note {n}") and '
            "make sure its calls succeed"
        )
    return owners


def check_storage_isolated(run: LoadRun, storage: Mapping[str, Mapping[str, Any]]) -> None:
    """Each tenant's storage holds only what its own callers wrote: no entry of tenant T holds another's write."""
    owners = _written_marks(run)
    by_caller: dict[str, list[str]] = {}
    for mark, (caller, _) in owners.items():
        by_caller.setdefault(caller, []).append(mark)
    shortest = min(len(mark) for mark in owners)
    leaks = []
    for tenant, entries in storage.items():
        for key, value in entries.items():
            for leaf in leaves(value):
                owner = owners.get(leaf)
                if owner is None and len(leaf) > shortest:
                    owner = _owner_within(leaf, tenant, owners, by_caller)
                if owner is not None and owner[1] != tenant:
                    writer = f'{owner[0]} of "{owner[1]}"'
                    leaks.append(f'tenant "{tenant}" holds {key!r} with {leaf!r}, written by {writer}')
                    break
    if leaks:
        shown = "\n  ".join(leaks[:10]) + (f"\n  ... and {len(leaks) - 10} more" if len(leaks) > 10 else "")
        raise AssertionError(
            f"Expected each tenant's storage to hold only what its own callers wrote, but {len(leaks)} entries "
            f"crossed tenants:\n  {shown}\n({_context(run.result)})"
        )


def _owner_within(
    leaf: str, tenant: str, owners: Mapping[str, tuple[str, str | None]], by_caller: Mapping[str, list[str]]
) -> tuple[str, str | None] | None:
    """The writer of another tenant whose mark is inside `leaf` (a server may store a title within a longer text,
    `"Re: alice note 1!"`); every mark holds its caller's name, so only the callers named in the leaf are searched."""
    for caller, marks in by_caller.items():
        if caller not in leaf:
            continue
        for mark in marks:
            owner = owners[mark]
            if owner[1] != tenant and mentions(leaf, mark):
                return owner
    return None


def check_written_once(run: LoadRun, storage: Mapping[str, Mapping[str, Any]], tool: str | None = None) -> None:
    """Every acknowledged write (of `tool`, or of any tool) is in its tenant's storage exactly once."""
    _written_marks(run)  # says why nothing can be checked, or why not everything can
    writes = [write for write in run.written if tool is None or write.tool == tool]
    if not writes:
        raise AssertionError(f"no acknowledged call of {tool!r} names its call, so none can be found in storage")
    found: dict[tuple[str | None, str], list[str]] = {}
    marks = {(write.tenant, write.marks[0]) for write in writes}
    for tenant, entries in storage.items():
        for key, value in entries.items():
            for leaf in set(leaves(value)):
                if (tenant, leaf) in marks:
                    found.setdefault((tenant, leaf), []).append(key)
    lost = [w for w in writes if not found.get((w.tenant, w.marks[0]))]
    twice = [(w, found[(w.tenant, w.marks[0])]) for w in writes if len(found.get((w.tenant, w.marks[0]), [])) > 1]
    if lost or twice:
        lines = [f'lost: {w.marks[0]!r} ({w.tool} by {w.caller} of "{w.tenant}")' for w in lost[:10]]
        lines += [f"stored {len(keys)} times: {w.marks[0]!r} under {', '.join(keys[:5])}" for w, keys in twice[:10]]
        raise AssertionError(
            f"Expected every acknowledged write to be stored exactly once, but of {len(writes)} acknowledged, "
            f"{len(lost)} are missing and {len(twice)} are stored more than once:\n  "
            + "\n  ".join(lines)
            + f"\n({_context(run.result)})"
        )


def check_answers_isolated(run: LoadRun) -> None:
    """No caller read another tenant's write: no answer holds a mark written by a caller of another tenant."""
    if run.result.engine == "locust":
        raise AssertionError(
            "what callers read under Locust stays in its workers (Locust keeps no answer), so no read can be "
            "checked: check the reads on a load run by mcpbdd (When the callers run the load profile ...), and "
            "the storage after the Locust run (each tenant's storage holds only what its own callers wrote)"
        )
    owners = _written_marks(run)
    if not run.answers:
        raise AssertionError(
            f"no call answered ok under load, so nothing a caller read can be checked ({_context(run.result)})"
        )
    by_tenant: dict[str | None, list[str]] = {}
    for mark, (_, tenant) in owners.items():
        by_tenant.setdefault(tenant, []).append(mark)
    seen = []
    for answer in run.answers:
        for tenant, marks in by_tenant.items():
            if tenant == answer.tenant:
                continue
            hit = next((mark for mark in marks if mentions(answer.text, mark)), None)
            if hit is not None:
                seen.append(f'{answer.caller} of "{answer.tenant}" read {hit!r} (of "{tenant}") in {answer.tool}')
                break
    if seen:
        raise AssertionError(
            f"Expected no caller to read another tenant's data, but {len(seen)} answers did:\n  "
            + "\n  ".join(seen[:10])
            + f"\n({_context(run.result)})"
        )
    if run.answers_dropped:
        raise AssertionError(
            f"only the first {len(run.answers)} answers were kept for this check and {run.answers_dropped} were "
            "not: bound the load to fewer calls to check every answer"
        )
    if run.answers_cut:
        raise AssertionError(
            f"{run.answers_cut} of the {len(run.answers)} answers kept were longer than the {ANSWER_CHARS} characters "
            "kept of each (their text, then the strings of their structured content), so what a caller read past "
            "that was not checked: make the tools read under load answer less per call (a page of results)"
        )


def mentions(text: str, mark: str) -> bool:
    """`mark` is in `text` whole: as a JSON string, or in plain text not inside a longer word or number (so
    `alice note 1` is not found in `alice note 12`, nor in `xalice note 1`)."""
    if mark not in text:
        return False
    if _quoted(mark) in text:
        return True
    start = text.find(mark)
    while start != -1:
        end = start + len(mark)
        before, after = text[start - 1 : start], text[end : end + 1]
        if not _word_char(before) and not _word_char(after):
            return True
        start = text.find(mark, start + 1)
    return False


def _word_char(char: str) -> bool:
    return char.isalnum() or char == "_"


def _quoted(mark: str) -> str:
    """How a mark appears inside a JSON answer (whole, so `alice-1` is not found inside `alice-10`)."""
    import json

    return json.dumps(mark, ensure_ascii=False)


__all__ = [
    "CHANNEL_WORDS",
    "channel_named",
    "check_answers_isolated",
    "check_at_most",
    "check_latency",
    "check_storage_isolated",
    "check_throughput",
    "check_upstream_per_call",
    "check_written_once",
    "leaves",
    "mentions",
]
