"""Cucumber JSON (the older report format test-management tools import), converted from a Cucumber Messages stream.

    mcpbdd run --cucumber-json reports/cucumber.json

One source of truth: the run's Cucumber Messages (`mcpbdd.reporting.messages`) are converted
here, the way Cucumber's own `json-formatter` does, rather than a second formatter watching
behave. Per feature: `uri`, `id`, `keyword`, `name`, `description`, `line`, `tags` and
`elements`, one per test case (a scenario on one harness; its name carries the harness), each
with its steps, their `result` (`status`, `duration` in nanoseconds, `error_message`), `match`
(the step function's file and line) and `embeddings`: every attachment (MCP exchanges, input
rounds, upstream requests), base64-encoded with its media type and name.
"""

from __future__ import annotations

import base64
import json
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

__all__ = ["to_cucumber_json", "write_cucumber_json"]


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")


def _nodes(document: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """Every AST node with an id (scenarios, backgrounds, steps, example rows) by id."""
    found: dict[str, dict[str, Any]] = {}

    def walk(value: Any) -> None:
        if isinstance(value, dict):
            if "id" in value and isinstance(value["id"], str):
                found[value["id"]] = value
            for child in value.values():
                walk(child)
        elif isinstance(value, list):
            for child in value:
                walk(child)

    walk(document.get("feature") or {})
    return found


def _nanos(duration: dict[str, Any] | None) -> int:
    if not duration:
        return 0
    return int(duration.get("seconds", 0)) * 1_000_000_000 + int(duration.get("nanos", 0))


@dataclass
class _Stream:
    """A Cucumber Messages stream, filed by kind and id: what the report is built from."""

    documents: dict[str, dict[str, Any]] = field(default_factory=dict)
    pickles: dict[str, dict[str, Any]] = field(default_factory=dict)
    cases: dict[str, dict[str, Any]] = field(default_factory=dict)
    definitions: dict[str, dict[str, Any]] = field(default_factory=dict)
    hook_kinds: dict[str, str] = field(default_factory=dict)
    started: list[dict[str, Any]] = field(default_factory=list)
    results: dict[tuple[str, str], dict[str, Any]] = field(default_factory=dict)
    attachments: dict[tuple[str, str], list[dict[str, Any]]] = field(default_factory=dict)
    nodes: dict[str, dict[str, dict[str, Any]]] = field(default_factory=dict)
    """Per document (uri): its AST nodes by id (filled once the stream is read)."""

    def add(self, item: dict[str, Any]) -> None:
        """File one envelope (an envelope of a kind the report does not use is skipped)."""
        if "gherkinDocument" in item:
            self.documents[item["gherkinDocument"]["uri"]] = item["gherkinDocument"]
        elif "pickle" in item:
            self.pickles[item["pickle"]["id"]] = item["pickle"]
        elif "testCase" in item:
            self.cases[item["testCase"]["id"]] = item["testCase"]
        elif "hook" in item:
            self.hook_kinds[item["hook"]["id"]] = str(item["hook"].get("type", ""))
        elif "stepDefinition" in item:
            self.definitions[item["stepDefinition"]["id"]] = item["stepDefinition"]
        elif "testCaseStarted" in item:
            self.started.append(item["testCaseStarted"])
        elif "testStepFinished" in item:
            finished = item["testStepFinished"]
            self.results[(finished["testCaseStartedId"], finished["testStepId"])] = finished["testStepResult"]
        elif "attachment" in item:
            attachment = item["attachment"]
            key = (attachment.get("testCaseStartedId", ""), attachment.get("testStepId", ""))
            self.attachments.setdefault(key, []).append(attachment)


def to_cucumber_json(envelopes: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """The Cucumber JSON report of a Cucumber Messages stream."""
    stream = _Stream()
    for item in envelopes:
        stream.add(item)
    stream.nodes = {uri: _nodes(document) for uri, document in stream.documents.items()}
    features: dict[str, dict[str, Any]] = {}
    for start in stream.started:
        case = stream.cases.get(start["testCaseId"])
        pickle = stream.pickles.get(case["pickleId"]) if case else None
        if case is None or pickle is None or pickle["uri"] not in stream.documents:
            continue
        uri = pickle["uri"]
        report = features.get(uri)
        if report is None:
            report = features[uri] = _feature(uri, stream.documents[uri].get("feature") or {})
        report["elements"].append(_element(stream, start, case, pickle, report["id"]))
    return list(features.values())


def _feature(uri: str, feature: dict[str, Any]) -> dict[str, Any]:
    """A feature's entry, its elements still to come."""
    return {
        "uri": uri,
        "id": _slug(feature.get("name", uri)),
        "keyword": feature.get("keyword", "Feature"),
        "name": feature.get("name", ""),
        "description": feature.get("description", ""),
        "line": feature.get("location", {}).get("line", 1),
        "tags": [{"name": t["name"], "line": t["location"]["line"]} for t in feature.get("tags", [])],
        "elements": [],
    }


def _element(
    stream: _Stream, start: dict[str, Any], case: dict[str, Any], pickle: dict[str, Any], feature_id: str
) -> dict[str, Any]:
    """One test case's run (a scenario on one harness): its steps, then its hooks."""
    nodes = stream.nodes[pickle["uri"]]
    scenario = nodes.get(pickle["astNodeIds"][0], {})
    pickle_steps = {step["id"]: step for step in pickle["steps"]}
    steps = []
    for test_step in case["testSteps"]:
        pickle_step = pickle_steps.get(test_step.get("pickleStepId", ""))
        if pickle_step is not None:
            steps.append(_step(stream, nodes, start["id"], test_step, pickle_step))
    element: dict[str, Any] = {
        "id": f"{feature_id};{_slug(pickle['name'])}{_row_id(scenario, pickle)}",
        "keyword": scenario.get("keyword", "Scenario"),
        "name": pickle["name"],
        "description": scenario.get("description", ""),
        "line": pickle.get("location", {}).get("line", scenario.get("location", {}).get("line", 0)),
        "type": "scenario",
        "tags": [
            {"name": t["name"], "line": nodes.get(t["astNodeId"], {}).get("location", {}).get("line", 0)}
            for t in pickle.get("tags", [])
        ],
        "steps": steps,
    }
    for when, hooks in _hook_steps(case, stream.hook_kinds).items():
        element[when] = [
            _hook_entry(stream.results.get((start["id"], hook), {}), stream.attachments, start["id"], hook)
            for hook in hooks
        ]
    return element


def _step(
    stream: _Stream,
    nodes: dict[str, dict[str, Any]],
    started: str,
    test_step: dict[str, Any],
    pickle_step: dict[str, Any],
) -> dict[str, Any]:
    """One step's run: its result, the step function it matched, its argument and what it attached."""
    ast = nodes.get(pickle_step["astNodeIds"][0], {})
    result = stream.results.get((started, test_step["id"]), {})
    step: dict[str, Any] = {
        "keyword": ast.get("keyword", "* "),
        "name": pickle_step["text"],
        "line": ast.get("location", {}).get("line", 0),
        "result": {
            "status": str(result.get("status", "UNKNOWN")).lower(),
            "duration": _nanos(result.get("duration")),
        },
    }
    if result.get("message"):
        step["result"]["error_message"] = result["message"]
    definition_ids = test_step.get("stepDefinitionIds") or []
    if definition_ids and definition_ids[0] in stream.definitions:
        reference = stream.definitions[definition_ids[0]]["sourceReference"]
        step["match"] = {"location": f"{reference['uri']}:{reference.get('location', {}).get('line', 0)}"}
    argument = pickle_step.get("argument") or {}
    if "docString" in argument:
        step["doc_string"] = {"value": argument["docString"]["content"], "line": step["line"] + 1}
    if "dataTable" in argument:
        step["rows"] = [{"cells": [c["value"] for c in row["cells"]]} for row in argument["dataTable"]["rows"]]
    embedded = stream.attachments.get((started, test_step["id"]), [])
    if embedded:
        step["embeddings"] = [_embedding(a) for a in embedded]
    return step


def _row_id(scenario: dict[str, Any], pickle: dict[str, Any]) -> str:
    """An Outline row's part of the element id, as Cucumber's own JSON formatter writes it: `;examples;2` (the row's
    place in its table, the header being 1), so that rows of an Outline whose name has no placeholder stay apart."""
    rows = pickle.get("astNodeIds", [])[1:]
    for examples in scenario.get("examples", []):
        for position, row in enumerate(examples.get("tableBody", []), start=2):
            if row.get("id") in rows:
                return f";{_slug(examples.get('name', ''))};{position}"
    return ""


def _hook_steps(case: dict[str, Any], kinds: dict[str, str]) -> dict[str, list[str]]:
    """The test case's hook steps, as Cucumber JSON files them: `before` and `after` (a hook of unknown type: after)."""
    found: dict[str, list[str]] = {}
    for step in case["testSteps"]:
        if step.get("hookId"):
            when = "before" if kinds.get(step["hookId"], "").startswith("BEFORE") else "after"
            found.setdefault(when, []).append(step["id"])
    return found


def _hook_entry(
    result: dict[str, Any], attachments: dict[tuple[str, str], list[dict[str, Any]]], started: str, step: str
) -> dict[str, Any]:
    """One hook's run: its status (a failed hook is failed, with its message) and what it attached."""
    entry: dict[str, Any] = {
        "result": {"status": str(result.get("status", "UNKNOWN")).lower(), "duration": _nanos(result.get("duration"))}
    }
    if result.get("message"):
        entry["result"]["error_message"] = result["message"]
    embedded = attachments.get((started, step), [])
    if embedded:
        entry["embeddings"] = [_embedding(a) for a in embedded]
    return entry


def _embedding(attachment: dict[str, Any]) -> dict[str, Any]:
    body = attachment.get("body", "")
    if attachment.get("contentEncoding") != "BASE64":
        body = base64.b64encode(body.encode("utf-8")).decode("ascii")
    embedding = {"mime_type": attachment.get("mediaType", "text/plain"), "data": body}
    if attachment.get("fileName"):
        embedding["name"] = attachment["fileName"]
    return embedding


def write_cucumber_json(envelopes: Iterable[dict[str, Any]], output: Path) -> int:
    """Write the report; returns the number of scenarios (elements) in it."""
    report = to_cucumber_json(envelopes)
    output.parent.mkdir(parents=True, exist_ok=True)
    output.write_text(json.dumps(report, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    return sum(len(feature["elements"]) for feature in report)
