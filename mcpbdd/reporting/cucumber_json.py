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


def to_cucumber_json(envelopes: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """The Cucumber JSON report of a Cucumber Messages stream."""
    documents: dict[str, dict[str, Any]] = {}
    pickles: dict[str, dict[str, Any]] = {}
    cases: dict[str, dict[str, Any]] = {}
    definitions: dict[str, dict[str, Any]] = {}
    hook_kinds: dict[str, str] = {}
    started: list[dict[str, Any]] = []
    results: dict[tuple[str, str], dict[str, Any]] = {}
    attachments: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for item in envelopes:
        if "gherkinDocument" in item:
            documents[item["gherkinDocument"]["uri"]] = item["gherkinDocument"]
        elif "pickle" in item:
            pickles[item["pickle"]["id"]] = item["pickle"]
        elif "testCase" in item:
            cases[item["testCase"]["id"]] = item["testCase"]
        elif "hook" in item:
            hook_kinds[item["hook"]["id"]] = str(item["hook"].get("type", ""))
        elif "stepDefinition" in item:
            definitions[item["stepDefinition"]["id"]] = item["stepDefinition"]
        elif "testCaseStarted" in item:
            started.append(item["testCaseStarted"])
        elif "testStepFinished" in item:
            finished = item["testStepFinished"]
            results[(finished["testCaseStartedId"], finished["testStepId"])] = finished["testStepResult"]
        elif "attachment" in item:
            attachment = item["attachment"]
            key = (attachment.get("testCaseStartedId", ""), attachment.get("testStepId", ""))
            attachments.setdefault(key, []).append(attachment)
    nodes = {uri: _nodes(document) for uri, document in documents.items()}
    features: dict[str, dict[str, Any]] = {}
    for start in started:
        case = cases.get(start["testCaseId"])
        pickle = pickles.get(case["pickleId"]) if case else None
        if case is None or pickle is None or pickle["uri"] not in documents:
            continue
        uri = pickle["uri"]
        feature = documents[uri].get("feature") or {}
        report = features.get(uri)
        if report is None:
            report = features[uri] = {
                "uri": uri,
                "id": _slug(feature.get("name", uri)),
                "keyword": feature.get("keyword", "Feature"),
                "name": feature.get("name", ""),
                "description": feature.get("description", ""),
                "line": feature.get("location", {}).get("line", 1),
                "tags": [{"name": t["name"], "line": t["location"]["line"]} for t in feature.get("tags", [])],
                "elements": [],
            }
        scenario = nodes[uri].get(pickle["astNodeIds"][0], {})
        pickle_steps = {step["id"]: step for step in pickle["steps"]}
        steps = []
        for test_step in case["testSteps"]:
            pickle_step = pickle_steps.get(test_step.get("pickleStepId", ""))
            if pickle_step is None:
                continue
            ast = nodes[uri].get(pickle_step["astNodeIds"][0], {})
            result = results.get((start["id"], test_step["id"]), {})
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
            if definition_ids and definition_ids[0] in definitions:
                reference = definitions[definition_ids[0]]["sourceReference"]
                step["match"] = {"location": f"{reference['uri']}:{reference.get('location', {}).get('line', 0)}"}
            argument = pickle_step.get("argument") or {}
            if "docString" in argument:
                step["doc_string"] = {"value": argument["docString"]["content"], "line": step["line"] + 1}
            if "dataTable" in argument:
                step["rows"] = [{"cells": [c["value"] for c in row["cells"]]} for row in argument["dataTable"]["rows"]]
            embedded = attachments.get((start["id"], test_step["id"]), [])
            if embedded:
                step["embeddings"] = [_embedding(a) for a in embedded]
            steps.append(step)
        element: dict[str, Any] = {
            "id": f"{report['id']};{_slug(pickle['name'])}{_row_id(scenario, pickle)}",
            "keyword": scenario.get("keyword", "Scenario"),
            "name": pickle["name"],
            "description": scenario.get("description", ""),
            "line": pickle.get("location", {}).get("line", scenario.get("location", {}).get("line", 0)),
            "type": "scenario",
            "tags": [
                {"name": t["name"], "line": nodes[uri].get(t["astNodeId"], {}).get("location", {}).get("line", 0)}
                for t in pickle.get("tags", [])
            ],
            "steps": steps,
        }
        for when, hooks in _hook_steps(case, hook_kinds).items():
            element[when] = [
                _hook_entry(results.get((start["id"], hook), {}), attachments, start["id"], hook) for hook in hooks
            ]
        report["elements"].append(element)
    return list(features.values())


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
