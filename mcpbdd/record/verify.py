"""`mcpbdd verify`: replay a cassette against a (new) server and report drift per exchange and JSON path.

Volatile values are found on the server being verified: it is replayed twice, and a path whose
value differs between those two runs is compared by kind only. A recorded uuid or timestamp that
comes back as another uuid or timestamp is also not drift. Everything else must be as recorded.
A changed channel is reported first and on its own: it is drift even when the text matches.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Unpack
from xml.sax.saxutils import escape as xml_escape
from xml.sax.saxutils import quoteattr

from mcpbdd.model.matching import _UUID, _is_iso_datetime
from mcpbdd.record.cassette import Cassette, Exchange
from mcpbdd.record.compare import channel, differences, observable, template, volatile
from mcpbdd.record.replay import Replayed, ReplayTarget, leaves, replay_runs

LINES_PER_EXCHANGE = 20
"""Differences printed per exchange (all of them are in the Report and the JUnit file)."""


@dataclass
class Verdict:
    """One exchange: what it was, and how the server's answer now differs from the recording."""

    exchange: Exchange
    channel_change: tuple[str, str] | None = None
    paths: list[tuple[str, str]] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return self.channel_change is None and not self.paths and not self.problems

    @property
    def name(self) -> str:
        target = f" {self.exchange.target}" if self.exchange.target else ""
        return f"#{self.exchange.seq} {self.exchange.method}{target}"

    def lines(self) -> list[str]:
        out = []
        if self.channel_change is not None:
            out.append(f"channel: recorded {self.channel_change[0]}, now {self.channel_change[1]}")
        out.extend(self.problems)
        out.extend(f"{path}: {reason}" for path, reason in self.paths)
        return out


@dataclass
class Report:
    """Every exchange's verdict, in recorded order (a structured diff for Python callers)."""

    verdicts: list[Verdict]

    @property
    def ok(self) -> bool:
        return all(v.ok for v in self.verdicts)

    @property
    def drifted(self) -> list[Verdict]:
        # Channel changes first: they matter most and explain the path differences after them.
        bad = [v for v in self.verdicts if not v.ok]
        return sorted(bad, key=lambda v: (v.channel_change is None, v.exchange.seq))

    def render(self) -> str:
        if self.ok:
            return f"mcpbdd verify: no drift in {len(self.verdicts)} exchange(s)"
        lines = [f"mcpbdd verify: drift in {len(self.drifted)} of {len(self.verdicts)} exchange(s)"]
        for verdict in self.drifted:
            lines.append(f"  {verdict.name}")
            found = verdict.lines()
            lines.extend(f"    {line}" for line in found[:LINES_PER_EXCHANGE])
            if len(found) > LINES_PER_EXCHANGE:
                lines.append(f"    ... and {len(found) - LINES_PER_EXCHANGE} more difference(s)")
        return "\n".join(lines)


def _same_shape(recorded: Any, now: Any) -> dict[str, str]:
    """Paths where a recorded uuid or timestamp came back as another one: a fresh id, not drift."""
    mine = dict(leaves(now))
    markers = {}
    for path, value in leaves(recorded):
        other = mine.get(path)
        if isinstance(value, str) and isinstance(other, str) and value != other:
            if _UUID.fullmatch(value) and _UUID.fullmatch(other):
                markers[path] = "#uuid"
            elif _is_iso_datetime(value) and _is_iso_datetime(other):
                markers[path] = "#iso-datetime"
    return markers


def judge(exchange: Exchange, runs: Sequence[Replayed | None]) -> Verdict:
    """Compare the first run's answer with the recording, under markers from the runs' own differences."""
    verdict = Verdict(exchange)
    first = runs[0]
    if first is None:
        verdict.problems.append("not replayed: the server stopped answering before it")
        return verdict
    verdict.problems.extend(first.problems)
    recorded_channel, now_channel = channel(exchange.response), channel(first.response)
    if recorded_channel != now_channel:
        verdict.channel_change = (recorded_channel, now_channel)
        return verdict
    verdict.paths = _question_drift(exchange.rounds, first.rounds, [r.rounds for r in runs[1:] if r is not None])
    recorded, now = observable(exchange.response), observable(first.response)
    others = [observable(r.response) for r in runs[1:] if r is not None]
    markers = {**_same_shape(recorded, now), **(volatile(now, others) if others else {})}
    verdict.paths += differences(template(recorded, markers), now)
    return verdict


def _questions(rounds: Sequence[dict[str, Any]]) -> list[Any]:
    """What each round asked (its kind, message and form), without request ids or sealed state."""
    asked = []
    for round_ in rounds:
        if "inputRequests" in (round_.get("asked") or {}):
            requests = round_["asked"]["inputRequests"]
        else:
            requests = {"": round_.get("asked") or {}}
        asked.append({key: {"method": r.get("method"), **_form(r.get("params") or {})} for key, r in requests.items()})
    return asked


def _form(params: dict[str, Any]) -> dict[str, Any]:
    return {k: params[k] for k in ("message", "requestedSchema") if k in params}


def _question_drift(
    recorded: Sequence[dict[str, Any]], now: Sequence[dict[str, Any]], others: Sequence[Sequence[dict[str, Any]]]
) -> list[tuple[str, str]]:
    """Differences in the questions asked on the way (`$.rounds[0].confirm.message: ...`), under the same markers."""
    expected, actual = _questions(recorded), _questions(now)
    if len(expected) != len(actual):
        asked = f"the server asked {len(actual)} round(s) of questions; the recording has {len(expected)}"
        return [("$.rounds", asked)]
    markers = {**_same_shape(expected, actual), **volatile(actual, [_questions(o) for o in others])}
    found = differences(template(expected, markers), actual)
    return [(path.replace("$", "$.rounds", 1), reason) for path, reason in found]


def verify_cassette(cassette: Cassette, *, replays: int = 2, **target: Unpack[ReplayTarget]) -> Report:
    """Replay `cassette` against the server (`replays` fresh runs, at least one) and judge every client exchange."""
    runs = replay_runs(cassette, max(1, replays), target)
    exchanges = [e for e in cassette.exchanges if e.origin == "client"]
    verdicts = []
    for index, exchange in enumerate(exchanges):
        per_run = [run[index] if index < len(run) else None for run in runs]
        verdicts.append(judge(exchange, per_run))
    return Report(verdicts)


def junit_xml(report: Report, suite: str) -> str:
    """One JUnit test case per exchange; a drifted one fails with its paths as the message body."""
    cases = []
    for verdict in report.verdicts:
        name = quoteattr(verdict.name)
        if verdict.ok:
            cases.append(f'  <testcase classname="mcpbdd.verify" name={name}/>')
        else:
            body = xml_escape("\n".join(verdict.lines()))
            first = quoteattr(verdict.lines()[0])
            cases.append(
                f'  <testcase classname="mcpbdd.verify" name={name}>\n'
                f"    <failure message={first}>{body}</failure>\n  </testcase>"
            )
    failures = sum(not v.ok for v in report.verdicts)
    head = f'<testsuite name={quoteattr(suite)} tests="{len(report.verdicts)}" failures="{failures}">'
    return "\n".join(['<?xml version="1.0" encoding="utf-8"?>', head, *cases, "</testsuite>", ""])


__all__ = ["Report", "Verdict", "judge", "junit_xml", "verify_cassette"]
