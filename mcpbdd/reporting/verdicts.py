"""One JSON line per finished scenario: what `mcpbdd run` needs after the run, read from every behave process.

    behave --format mcpbdd.reporting.verdicts:VerdictFormatter --outfile verdicts.jsonl

`mcpbdd run` adds this formatter to each behave process it starts and reads the lines once
they have all ended. Three outputs are built from them, so none of them re-parses another
format's files (Allure's per-test JSON, behave's JUnit XML, whose names depend on paths):

- the parity matrix (`mcpbdd.reporting.parity`): each scenario's verdict per harness and era;
- the timing file (`mcpbdd.runner.timings`): how long each feature file took, for balanced shards;
- the JUnit files completed (`mcpbdd.reporting.junit`): skipped scenarios, harness, era, tools, tenants.

A line carries what the scenario *did* as well as how it ended: the behave hooks leave the
harness, the protocol era, the tools called and the tenants involved on the scenario
(`SCENARIO_FACTS`, set by `ScenarioReport.finish`), and this formatter copies them. behave has
no "scenario finished" callback for formatters; the next scenario, or the end of the file,
says the previous one is over (after its `after_scenario` hook, so the facts are there).
"""

from __future__ import annotations

import json
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from mcpbdd.reporting.broken import scenario_kind
from mcpbdd.reporting.names import display_name, plain_name
from mcpbdd.reporting.per_scenario import PerScenarioFormatter

__all__ = ["NEAREST_PHRASES", "SCENARIO_FACTS", "Verdict", "VerdictFormatter", "read_verdicts", "scenario_name"]

SCENARIO_FACTS = "mcpbdd_facts"
"""The attribute the hooks set on a behave scenario: {"harness", "era", "tools", "tenants"}."""

NEAREST_PHRASES = "mcpbdd_nearest"
"""The attribute the hooks set on an undefined behave step: the vocabulary's phrases nearest to it, best first."""


def scenario_name(name: str) -> str:
    """A scenario's name without the `[client harness, legacy]` suffix the hooks add (the same in every column)."""
    return plain_name(name)


@dataclass
class Verdict:
    """How one scenario ended in one behave process, and what it touched."""

    feature: str
    """The feature file, as behave was given it (`features/notes.feature`)."""
    line: int
    """The scenario's line (an outline's example: the row's line): with `feature`, the scenario's identity."""
    name: str
    """Its one name (`mcpbdd.reporting.names`), without the harness suffix: the parity matrix's."""
    title: str
    """Its name as behave reported it (with the harness suffix): how behave's JUnit test case is found."""
    feature_name: str
    status: str
    """passed | failed | skipped | untested"""
    duration: float
    """The steps' seconds (behave's `scenario.duration`)."""
    kind: str = ""
    """passed | failed | broken | skipped: failed and broken apart, as every report shows them
    (`mcpbdd.reporting.broken`)."""
    tags: list[str] = field(default_factory=list)
    """Every tag in effect (feature, rule and scenario tags)."""
    harness: str = ""
    """The harness as reports name it (`context`, `client`, `client, legacy`); empty when the hooks did not run."""
    era: str = ""
    """The protocol the scenario spoke: `2026-07-28` or `2025-11-25`."""
    tools: list[str] = field(default_factory=list)
    tenants: list[str] = field(default_factory=list)
    message: str = ""
    """The first line of the error, or the reason it was skipped."""
    elapsed: float = 0.0
    """Wall-clock seconds from the scenario's start to the next one's, hooks included (a server process's start
    and stop): what the scenario costs a shard, so the timing file keeps this."""
    column: str = ""
    """The pass of `mcpbdd run` that ran it (`context`, `client`, `client.legacy`, ...): set by the reader."""
    display: str = ""
    """Its one name with the pass (`Who the caller is -- user=alice [client harness]`): what every format shows."""

    @property
    def key(self) -> tuple[str, int]:
        return (self.feature, self.line)

    @property
    def shown(self) -> str:
        """The name every format shows (behave's, for a line an older mcpbdd wrote)."""
        return self.display or self.title

    @property
    def verdict(self) -> str:
        """passed | failed | broken | skipped: the one word every report uses for how it ended."""
        if self.status in ("skipped", "untested"):
            return "skipped"
        return self.kind if self.kind in ("passed", "failed", "broken") and self.status != "passed" else self.status


def _message(scenario: Any) -> str:
    for step in scenario.all_steps:
        if str(getattr(step.status, "name", step.status)) == "undefined":
            return _undefined(step)
        if step.status.has_failed() if hasattr(step.status, "has_failed") else step.status == "failed":
            text = step.error_message or ""
            return (text.strip().splitlines() or [""])[0][:300]
    reason = getattr(scenario, "skip_reason", None) or getattr(scenario, "error_message", None)
    return str(reason or "")[:300]


def _undefined(step: Any) -> str:
    """Which phrase no step definition matched, and the nearest ones of the vocabulary (the hooks found them)."""
    message = f"undefined step: no step definition matches {step.keyword} {step.name!r}"
    phrases = list(getattr(step, NEAREST_PHRASES, None) or [])
    if phrases:
        message += "; did you mean: " + " | ".join(phrases)
    return message[:600]


def _status(scenario: Any) -> str:
    status = scenario.status
    if status.has_failed():
        return "failed"
    if status.is_passed():
        return "passed"
    return status.name if hasattr(status, "name") else str(status)


class VerdictFormatter(PerScenarioFormatter):
    """`--format mcpbdd.reporting.verdicts:VerdictFormatter --outfile FILE`: one JSON line per scenario."""

    name = "mcpbdd.reporting.verdicts"
    description = "one JSON line per finished scenario: verdict, duration, harness, era, tools, tenants"

    def __init__(self, stream_opener: Any, config: Any) -> None:
        super().__init__(stream_opener, config)
        self.started = 0.0

    def follows(self, scenario: Any) -> bool:
        self.started = time.perf_counter()
        return True

    def finished(self, scenario: Any) -> None:
        elapsed = time.perf_counter() - self.started
        if not scenario.should_run_with_tags(self.config.tag_expression):
            return  # left out by tags (another pass's pin): not a verdict of this pass
        facts = getattr(scenario, SCENARIO_FACTS, None) or {}
        display = display_name(scenario)
        verdict = Verdict(
            feature=str(scenario.feature.filename),
            line=int(scenario.line),
            name=plain_name(display),
            title=scenario.name,
            display=display,
            feature_name=scenario.feature.name,
            status=_status(scenario),
            duration=round(float(scenario.duration or 0.0), 6),
            kind=scenario_kind(scenario),
            tags=sorted(str(tag) for tag in scenario.effective_tags),
            harness=str(facts.get("harness", "")),
            era=str(facts.get("era", "")),
            tools=list(facts.get("tools", ())),
            tenants=list(facts.get("tenants", ())),
            message=_message(scenario),
            elapsed=round(elapsed, 6),
        )
        self.stream.write(json.dumps(asdict(verdict), ensure_ascii=False) + "\n")
        self.stream.flush()


def read_verdicts(path: Path, column: str = "") -> list[Verdict]:
    """The verdicts one behave process wrote (none when it wrote no file: it could not start)."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return []
    verdicts = []
    for line in text.splitlines():
        if line.strip():
            verdict = Verdict(**json.loads(line))
            verdict.column = column
            verdicts.append(verdict)
    return verdicts
