"""`mcpbdd verify`: replay a cassette against a (new) server and report drift per exchange and JSON path.

Which values may differ is learned from the recording, never from the build being verified
(a build whose id became random must not teach the check to accept it): a recorded uuid or
timestamp that comes back as another uuid or timestamp is not drift, an id the server made up
and the recorded client sent back may come back as another one (where the replay carried it),
and a recorded redaction mask matches whatever stands where the secret was. Everything else
must be as recorded, with its JSON type (a number that became a string is drift). The build is
replayed twice: a value that differs between those runs and that the recording does not say may
differ is drift, reported as "became volatile". A changed channel is reported first and on its
own: it is drift even when the text matches.

The run's secrets (`redactor`) are applied to both sides before they are compared, so a cassette
redacted at record time matches its own server, and no secret reaches a verdict's lines.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Unpack

from mcpbdd.model.redaction import MASK, Redactor
from mcpbdd.record.cassette import Cassette, Exchange
from mcpbdd.record.compare import (
    channel,
    differences,
    fresh_explains,
    fresh_values,
    observable,
    placeholders,
    template,
    volatile,
)
from mcpbdd.record.gherkin_text import visible
from mcpbdd.record.replay import Replayed, ReplayTarget, leaves, replay_runs, result_document
from mcpbdd.reporting.junit import JUnitCase, junit_suite_xml

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
        """The console's lines; each control character a cassette or a server put in a name or value escaped."""
        if self.ok:
            return f"mcpbdd verify: no drift in {len(self.verdicts)} exchange(s)"
        lines = [f"mcpbdd verify: drift in {len(self.drifted)} of {len(self.verdicts)} exchange(s)"]
        for verdict in self.drifted:
            lines.append(f"  {visible(verdict.name)}")
            found = [visible(line) for line in verdict.lines()]
            lines.extend(f"    {line}" for line in found[:LINES_PER_EXCHANGE])
            if len(found) > LINES_PER_EXCHANGE:
                lines.append(f"    ... and {len(found) - LINES_PER_EXCHANGE} more difference(s)")
        return "\n".join(lines)


def _redacted(value: Any, redactor: Redactor) -> Any:
    """`value` with every secret of `redactor` masked, as the recorder masks a cassette."""
    if not redactor:
        return value
    return json.loads(redactor.redact_json(json.dumps(value, ensure_ascii=False)))


def _shown(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= 60 else text[:57] + "..."


def _kind(value: Any) -> str | None:
    """A JSON value's type in words (`a number`, `null`), None for what is not JSON."""
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    if value is None:
        return "null"
    names: dict[type, str] = {str: "a string", list: "an array", dict: "an object"}
    return names.get(type(value))


def _became_volatile(recorded: Any, values: list[Any]) -> str:
    """Why a value that now differs from run to run is drift; a change of JSON type is said too."""
    kinds = {_kind(value) for value in values}
    seen = ", ".join(_shown(value) for value in values)
    if len(kinds) == 1 and _kind(recorded) not in kinds:
        now = kinds.pop()
        return (
            f"became volatile: recorded {_shown(recorded)} ({_kind(recorded)}), now {now} different each run ({seen})"
        )
    return f"became volatile: recorded {_shown(recorded)}, now different each run ({seen})"


def _compare(recorded: Any, now: Any, others: Sequence[Any], masks: Sequence[str]) -> list[tuple[str, str]]:
    """Differences of `now` from `recorded`, and values that vary across the runs where the recording says none may."""
    allowed = {**fresh_values(recorded, [now, *others]), **placeholders(recorded, masks)}
    was = dict(leaves(recorded))
    runs = [dict(leaves(run)) for run in (now, *others)]
    became = []
    for path in volatile(now, others) if others else {}:
        if path in allowed or path not in was or fresh_explains(was[path], [run.get(path) for run in runs]):
            continue  # a recorded uuid, timestamp or mask; or a new path, which the comparison reports
        values = [run.get(path) for run in runs]
        became.append((path, _became_volatile(was[path], values)))
    volatile_paths = {path for path, _ in became}
    found = differences(template(recorded, allowed), now)
    return became + [(path, reason) for path, reason in found if path not in volatile_paths]


def _sent(exchange: Exchange) -> tuple[set[str], list[str]]:
    """The argument values (of the request and its retries) and the resource URI the recorded client sent."""
    values: set[str] = set()
    uris: list[str] = []
    retries = [r["retry"].get("params") or {} for r in exchange.rounds if isinstance(r.get("retry"), dict)]
    for params in (exchange.params, *retries):
        values.update(value for _path, value in leaves(params.get("arguments") or {}) if isinstance(value, str))
        if isinstance(params.get("uri"), str):
            uris.append(params["uri"])
    return values, uris


def made_up(cassette: Cassette) -> set[str]:
    """Values the server made up and the recorded client sent back: in a result first, in a later request after.

    A value the client sent before the server returned it (a title it chose) is not one: the
    server only echoed it. The replay carries these values (see `Carried`); so does the verdict.
    """
    found: set[str] = set()
    sent_before: set[str] = set()
    returned: set[str] = set()
    for exchange in (e for e in cassette.exchanges if e.origin == "client"):
        values, uris = _sent(exchange)
        found |= values & returned
        found |= {value for value in returned if len(value) >= 4 and any(value in uri for uri in uris)}
        sent_before |= values | set(uris)
        document = result_document(exchange.response)
        returned |= {v for _p, v in leaves(document) if isinstance(v, str) and len(v) >= 2} - sent_before
    return found


def _restored(value: Any, carried: dict[Any, Any], sent: set[str]) -> Any:
    """A run's value with each id the server made up in that run (and the recorded client sent back) as recorded.

    A created id the client returned in a later request is the recording's own evidence that the
    server makes it up (a server that keeps its state between sessions gives `n-2` where the
    recording has `n-1`); any other value keeps what the run gave.
    """
    back = {
        new: old
        for old, new in carried.items()
        if isinstance(old, str) and isinstance(new, str) and new != old and old in sent
    }
    if not back:
        return value

    def restore(item: Any) -> Any:
        if isinstance(item, dict):
            return {key: restore(child) for key, child in item.items()}
        if isinstance(item, list):
            return [restore(child) for child in item]
        if isinstance(item, str):
            if item in back:
                return back[item]
            for new, old in sorted(back.items(), key=lambda pair: -len(pair[0])):
                if len(new) >= 3:
                    item = item.replace(new, old)
        return item

    return restore(value)


def judge(
    exchange: Exchange,
    runs: Sequence[Replayed | None],
    redactor: Redactor | None = None,
    sent: set[str] | None = None,
) -> Verdict:
    """Compare the first run's answer with the recording; the other runs show what became volatile.

    `sent` (the ids the server made up and the recorded client sent back, `made_up`) may come back as others.
    """
    redactor = redactor or Redactor()
    sent = sent or set()
    masks = tuple(dict.fromkeys((MASK, redactor.mask)))
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
    others = [r for r in runs[1:] if r is not None]

    def seen(run: Replayed, value: Any) -> Any:
        return _redacted(_restored(value, run.carried, sent), redactor)

    verdict.paths = _question_drift(
        _redacted(_questions(exchange.rounds), redactor),
        seen(first, _questions(first.rounds)),
        [seen(r, _questions(r.rounds)) for r in others],
        masks,
    )
    recorded = _redacted(observable(exchange.response), redactor)
    now = seen(first, observable(first.response))
    verdict.paths += _compare(recorded, now, [seen(r, observable(r.response)) for r in others], masks)
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
    expected: list[Any], actual: list[Any], others: Sequence[list[Any]], masks: Sequence[str]
) -> list[tuple[str, str]]:
    """Differences in the questions asked on the way (`$.rounds[0].confirm.message: ...`), judged alike."""
    if len(expected) != len(actual):
        asked = f"the server asked {len(actual)} round(s) of questions; the recording has {len(expected)}"
        return [("$.rounds", asked)]
    comparable = [other for other in others if len(other) == len(actual)]
    found = _compare(expected, actual, comparable, masks)
    return [(path.replace("$", "$.rounds", 1), reason) for path, reason in found]


def verify_cassette(
    cassette: Cassette, *, replays: int = 2, redactor: Redactor | None = None, **target: Unpack[ReplayTarget]
) -> Report:
    """Replay `cassette` against the server `target` names (`replays` fresh runs, at least one); judge each exchange.

    `redactor` holds the run's secrets: masked on both sides before comparing (see the module docstring).
    """
    runs = replay_runs(cassette, max(1, replays), target)
    exchanges = [e for e in cassette.exchanges if e.origin == "client"]
    sent = made_up(cassette)
    verdicts = []
    for index, exchange in enumerate(exchanges):
        per_run = [run[index] if index < len(run) else None for run in runs]
        verdicts.append(judge(exchange, per_run, redactor, sent))
    return Report(verdicts)


def junit_xml(report: Report, suite: str) -> str:
    """One JUnit test case per exchange (`mcpbdd.reporting.junit`); a drifted one fails with its paths as the text.

    A recorded name or value with a line break or a control character is written escaped (`\\u001b`): XML 1.0
    cannot hold most of them, and the console must not receive one from a cassette (`render`).
    """
    cases = []
    for verdict in report.verdicts:
        case = JUnitCase("mcpbdd.verify", visible(verdict.name))
        if not verdict.ok:
            found = [visible(line) for line in verdict.lines()]
            case = replace(case, outcome="failed", message=found[0], details="\n".join(found))
        cases.append(case)
    return junit_suite_xml(visible(suite), cases)


__all__ = ["Report", "Verdict", "judge", "junit_xml", "made_up", "verify_cassette"]
