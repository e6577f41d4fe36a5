"""Coverage measured from what the scenarios did: what the server offers vs. what was called, and how.

Text can lie (a step that never runs, an outline row skipped by a tag); the run cannot. So
coverage is collected from each scenario's exchanges (the `ExchangeRecorded` events of its
World) and from the steps that passed, per harness:

- tools, resources, resource templates and prompts offered vs. called, with each call's
  channel (ok, tool-error, protocol-error, input-required, transport-failure);
- per tool, the input properties some call used vs. those its schema declares, and the enum
  values and boolean branches exercised (per prompt, its arguments likewise);
- per tool, each declared failure (its error contract, `mcpbdd.kit.errors`) observed in an
  answer, and asserted: a step naming its reason passed after it was observed;
- the scenarios behind every covered item.

Collecting is a reference kept per exchange; the work is done once per scenario when it ends.
Each behave process writes one file (`coverage.json`); files from `--jobs` workers, harness
passes and CI shards merge by adding counts and joining sets, so the merge of a split run
equals the serial run's file.
"""

from __future__ import annotations

import json
import os
import re
import tempfile
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mcpbdd.checks.json_files import load_json_file
from mcpbdd.model.redaction import redactor_for

if TYPE_CHECKING:
    from mcpbdd.checks.offered import Offered
    from mcpbdd.model.trace import Exchange, ExchangeRecorded

__all__ = [
    "COVERAGE_FORMAT",
    "CoverageCollector",
    "ScenarioCoverage",
    "load_coverage",
    "merge",
    "scenario_label",
    "write_coverage",
]

COVERAGE_FORMAT = "mcpbdd coverage 1"
KINDS = ("tools", "resources", "templates", "prompts")
_QUOTED = re.compile(r'"([^"]+)"')


def scenario_label(filename: str, line: int, name: str) -> str:
    """`features/notes.feature:12 Create a note`: the scenario's place and name, without the harness suffix."""
    if name.endswith(" harness]") and " [" in name:
        name = name.rsplit(" [", 1)[0]
    return f"{filename}:{line} {name}"


def _empty() -> dict[str, Any]:
    return {"scenarios": 0, **{kind: {} for kind in KINDS}, "failures": {}}


def _item(section: dict[str, Any], name: str, offered: bool) -> dict[str, Any]:
    item = section.get(name)
    if item is None:
        item = section[name] = {"offered": offered, "calls": {}, "scenarios": []}
    item["offered"] = item["offered"] or offered
    return item


def _value_key(value: Any) -> str:
    return json.dumps(value, sort_keys=True, ensure_ascii=False)


def _declared_values(schema: Mapping[str, Any]) -> list[str] | None:
    """The values worth exercising one by one: an enum's (or a const's), or true and false for a boolean."""
    branches = [schema, *(b for key in ("anyOf", "oneOf") for b in schema.get(key) or () if isinstance(b, dict))]
    for branch in branches:
        if "enum" in branch:
            return [_value_key(v) for v in branch["enum"]]
        if "const" in branch:
            return [_value_key(branch["const"])]
    kinds = [b.get("type") for b in branches]
    if "boolean" in kinds or any(isinstance(k, list) and "boolean" in k for k in kinds):
        return ["false", "true"]
    return None


def _resolve(schema: Any, defs: Mapping[str, Any]) -> Any:
    if isinstance(schema, dict) and isinstance(schema.get("$ref"), str) and schema["$ref"].startswith("#/$defs/"):
        return defs.get(schema["$ref"].removeprefix("#/$defs/"), {})
    return schema


@dataclass
class _ToolShape:
    """What coverage needs of one tool's input schema, worked out once per run."""

    properties: list[str]
    values: dict[str, list[str]]


def _tool_shape(schema: Mapping[str, Any]) -> _ToolShape:
    defs = schema.get("$defs") or {}
    properties = schema.get("properties") or {}
    values: dict[str, list[str]] = {}
    for name, prop in properties.items():
        declared = _declared_values(_resolve(prop, defs)) if isinstance(prop, dict) else None
        if declared:
            values[name] = declared
    return _ToolShape(sorted(properties), values)


@dataclass
class _Surface:
    """One server's offer, as coverage reads it."""

    offered: Offered
    shapes: dict[str, _ToolShape]
    patterns: list[tuple[str, re.Pattern[str]]]


@dataclass
class ScenarioCoverage:
    """One scenario's part: its exchanges (by reference) and the failures it observed and asserted."""

    label: str
    exchanges: list[Exchange] = field(default_factory=list)
    observed: set[tuple[str, str]] = field(default_factory=set)
    asserted: set[tuple[str, str]] = field(default_factory=set)

    def on_exchange(self, event: ExchangeRecorded) -> None:
        from mcpbdd.kit.errors import reason_and_hint
        from mcpbdd.model.outcome import TOOLS_CALL, Channel

        self.exchanges.append(event.exchange)
        outcome = event.exchange.outcome
        if outcome.channel in (Channel.TOOL_ERROR, Channel.PROTOCOL_ERROR) and outcome.call.method == TOOLS_CALL:
            structured = outcome.structured if outcome.result is not None else None
            reason, _hint = reason_and_hint(structured, outcome.error.data if outcome.error else None)
            if reason is not None:
                self.observed.add((outcome.call.target, reason))

    def step_passed(self, text: str) -> None:
        """A passing step that names an observed failure's reason (in quotes) asserted it."""
        if self.observed and '"' in text:
            named = set(_QUOTED.findall(text))
            self.asserted |= {pair for pair in self.observed if pair[1] in named}


class CoverageCollector:
    """The coverage of one behave process, per harness; `document()` is what `coverage.json` holds."""

    def __init__(self) -> None:
        self.harnesses: dict[str, dict[str, Any]] = {}
        self._surfaces: dict[tuple[str, str | None], _Surface] = {}

    def start(self, events: Any, label: str) -> ScenarioCoverage:
        """Follow a scenario's World (its `events`) from now on."""
        from mcpbdd.model.trace import ExchangeRecorded

        scenario = ScenarioCoverage(label)
        events.subscribe(ExchangeRecorded, scenario.on_exchange)
        return scenario

    def finish(self, world: Any, scenario: ScenarioCoverage) -> None:
        """Count the scenario's exchanges (before its World closes: the first time, the server's offer is listed)."""
        section = self.harnesses.setdefault(world.harness_name, _empty())
        section["scenarios"] += 1
        if not scenario.exchanges:
            return
        surface = self._surface(world)
        for exchange in scenario.exchanges:
            self._count(section, surface, exchange, scenario.label)
        for tool, reason in scenario.observed:
            entry = self._failure(section, tool, reason)
            entry["observed"] += 1
            if (tool, reason) in scenario.asserted:
                entry["asserted"] += 1
                _add_scenario(entry, scenario.label)

    def _surface(self, world: Any) -> _Surface | None:
        from mcpbdd.checks.offered import list_offered, template_pattern

        key = (world.harness_name, world.server_target)
        surface = self._surfaces.get(key)
        if surface is None:
            try:
                offered = world.run(list_offered(world.harness, world.caller))
            except Exception:  # the server died in this scenario: list it after a later one
                return None
            surface = _Surface(
                offered,
                {name: _tool_shape(schema) for name, schema in offered.tools.items()},
                [(template, template_pattern(template)) for template in offered.templates],
            )
            self._surfaces[key] = surface
            self._declare(self.harnesses[world.harness_name], surface)
        return surface

    def _declare(self, section: dict[str, Any], surface: _Surface) -> None:
        """Everything offered appears in the file, called or not: an uncovered item is one with no calls."""
        from mcpbdd.kit.errors import CONTRACTS

        offered = surface.offered
        for name, shape in surface.shapes.items():
            tool = _item(section["tools"], name, True)
            arguments = tool.setdefault("arguments", {})
            for prop in shape.properties:
                arguments.setdefault(prop, {"declared": True, "used": 0})["declared"] = True
            values = tool.setdefault("values", {})
            for prop, declared in shape.values.items():
                counts = values.setdefault(prop, {})
                for value in declared:
                    counts.setdefault(value, 0)
            contract = CONTRACTS.get(name)
            for reason in contract.failures if contract is not None else ():
                self._failure(section, name, reason)["declared"] = True
        for uri in offered.resources:
            _item(section["resources"], uri, True)
        for template in offered.templates:
            _item(section["templates"], template, True)
        for prompt, names in offered.prompts.items():
            arguments = _item(section["prompts"], prompt, True).setdefault("arguments", {})
            for argument in names:
                arguments.setdefault(argument, {"declared": True, "used": 0})["declared"] = True

    @staticmethod
    def _failure(section: dict[str, Any], tool: str, reason: str) -> dict[str, Any]:
        failures: dict[str, dict[str, Any]] = section["failures"].setdefault(tool, {})
        return failures.setdefault(reason, {"declared": False, "observed": 0, "asserted": 0, "scenarios": []})

    def _count(self, section: dict[str, Any], surface: _Surface | None, exchange: Exchange, label: str) -> None:
        from mcpbdd.model.outcome import PROMPTS_GET, RESOURCES_READ, TOOLS_CALL

        call = exchange.outcome.call
        channel = exchange.outcome.channel.value
        if call.method == TOOLS_CALL:
            offered = surface is not None and call.target in surface.shapes
            item = _item(section["tools"], call.target, offered)
            if offered and call.arguments:
                assert surface is not None
                shape = surface.shapes[call.target]
                arguments, values = item["arguments"], item["values"]
                for name, value in call.arguments.items():
                    if name in arguments:
                        arguments[name]["used"] += 1
                    else:
                        arguments[name] = {"declared": False, "used": 1}
                    if name in shape.values:
                        key = _value_key(value)
                        values[name][key] = values[name].get(key, 0) + 1
        elif call.method == RESOURCES_READ:
            item = self._resource(section, surface, call.target)
        elif call.method == PROMPTS_GET:
            offered = surface is not None and call.target in surface.offered.prompts
            item = _item(section["prompts"], call.target, offered)
            arguments = item.setdefault("arguments", {})
            for name in call.arguments or ():
                usage = arguments.setdefault(name, {"declared": False, "used": 0})
                usage["used"] += 1
        else:
            return
        item["calls"][channel] = item["calls"].get(channel, 0) + 1
        _add_scenario(item, label)

    @staticmethod
    def _resource(section: dict[str, Any], surface: _Surface | None, uri: str) -> dict[str, Any]:
        if surface is not None:
            if uri in surface.offered.resources:
                return _item(section["resources"], uri, True)
            for template, pattern in surface.patterns:
                if pattern.match(uri):
                    return _item(section["templates"], template, True)
        return _item(section["resources"], uri, False)

    def document(self) -> dict[str, Any]:
        return {"format": COVERAGE_FORMAT, "harnesses": _normalised(self.harnesses)}


def _add_scenario(item: dict[str, Any], label: str) -> None:
    scenarios = item["scenarios"]
    # A scenario's calls come together: the last entry answers most lookups.
    if (not scenarios or scenarios[-1] != label) and label not in scenarios:
        scenarios.append(label)


def _normalised(value: Any) -> Any:
    """Sorted keys and sorted scenario lists: the same coverage is the same file, however the run was split."""
    if isinstance(value, dict):
        return {key: _normalised(value[key]) for key in sorted(value)}
    if isinstance(value, list):
        return sorted(value)
    return value


# files ------------------------------------------------------------------------------------------------


def load_coverage(path: Path | str) -> dict[str, Any]:
    """Read a coverage file; one that is not raises ValueError naming the file."""
    return load_json_file(path, COVERAGE_FORMAT, f"not an mcpbdd coverage file (format {COVERAGE_FORMAT!r})")


def write_coverage(path: Path | str, document: Mapping[str, Any], *, secrets: Iterable[str] = ()) -> Path:
    """Write atomically (a reader never sees half a file), every one of `secrets` redacted.

    Coverage keeps the argument values the scenarios sent, a secret among them: it is redacted
    here, where the file is written, so it is clean wherever `--coverage` puts it (not only under
    `reports/`, which a run redacts as a whole).
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    text = json.dumps(document, indent=1, sort_keys=True, ensure_ascii=False)
    redactor = redactor_for(secrets)
    if redactor:
        text = redactor.redact_json(text)
    handle, scratch = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    with os.fdopen(handle, "w", encoding="utf-8") as out:
        out.write(text + "\n")
    os.replace(scratch, path)
    return path


def _merge_into(target: dict[str, Any], source: Mapping[str, Any]) -> None:
    for key, value in source.items():
        if key not in target:
            target[key] = json.loads(json.dumps(value))
        elif isinstance(value, bool):
            target[key] = target[key] or value
        elif isinstance(value, int | float):
            target[key] += value
        elif isinstance(value, list):
            target[key] = sorted(set(target[key]) | set(value))
        elif isinstance(value, dict):
            _merge_into(target[key], value)


def merge(documents: Iterable[Mapping[str, Any]]) -> dict[str, Any]:
    """One coverage document from several (jobs, harness passes, shards): counts add up, sets join."""
    harnesses: dict[str, Any] = {}
    for document in documents:
        _merge_into(harnesses, document.get("harnesses", {}))
    return {"format": COVERAGE_FORMAT, "harnesses": _normalised(harnesses)}
