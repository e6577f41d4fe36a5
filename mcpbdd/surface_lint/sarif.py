"""The lint report as SARIF 2.1.0, the format GitHub code scanning reads (`mcpbdd lint --sarif FILE`).

One run of the driver `mcpbdd lint`, every rule as a reportingDescriptor (its title, why and fix, its
default level), a result per finding with its tool as a logical location (the tool's name and the JSON
path in its listing) and, when the server's source file is known, that file as the physical location
code scanning needs to show it. A finding the baseline accepts is kept with an external suppression,
so code scanning shows it dismissed rather than losing it. tests/test_lint_sarif.py validates the
output against the SARIF 2.1.0 schema.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from mcpbdd._version import __version__
from mcpbdd.surface_lint.report import LintReport
from mcpbdd.surface_lint.rules import RULES
from mcpbdd.surface_lint.visible import reveal

__all__ = ["SARIF_SCHEMA", "sarif_document", "sarif_text"]

SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
_INDEX = {rule.id: index for index, rule in enumerate(RULES)}


def _rules() -> list[dict[str, Any]]:
    return [
        {
            "id": rule.id,
            "name": "".join(part.capitalize() for part in rule.id.split("-")),
            "shortDescription": {"text": rule.title},
            "fullDescription": {"text": rule.why},
            "help": {"text": rule.fix},
            "defaultConfiguration": {"level": rule.severity},
            "properties": {"tags": ["mcp", "tool-surface", rule.family]},
        }
        for rule in RULES
    ]


def sarif_document(report: LintReport, *, artifact: str | None = None) -> dict[str, Any]:
    """The SARIF log; `artifact` (a path relative to the repository) is where the server's tools are defined."""
    results: list[dict[str, Any]] = []
    for found in report.findings:
        tool = "(surface)" if found.tool is None else reveal(found.tool, 200)
        quote = f": {found.quoted}" if found.quoted else ""
        location: dict[str, Any] = {
            "logicalLocations": [
                {"name": tool, "fullyQualifiedName": f"{tool}{reveal(found.path, 200)}", "kind": "member"}
            ]
        }
        if artifact is not None:
            location["physicalLocation"] = {"artifactLocation": {"uri": artifact}, "region": {"startLine": 1}}
        identity = f"{found.rule.id}\0{tool}\0{found.path}\0{found.message}"
        result: dict[str, Any] = {
            "ruleId": found.rule.id,
            "ruleIndex": _INDEX[found.rule.id],
            "level": found.severity,
            "message": {"text": f"Tool {tool} ({found.path}): {found.message}{quote}"},
            "locations": [location],
            "partialFingerprints": {"mcpbddFinding/v1": hashlib.sha256(identity.encode()).hexdigest()},
        }
        if found.accepted:
            result["suppressions"] = [{"kind": "external", "justification": "accepted by the lint baseline file"}]
        results.append(result)
    return {
        "$schema": SARIF_SCHEMA,
        "version": "2.1.0",
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": "mcpbdd lint",
                        "version": __version__,
                        "rules": _rules(),
                    }
                },
                "results": results,
            }
        ],
    }


def sarif_text(report: LintReport, *, artifact: str | None = None) -> str:
    """The SARIF log as JSON text (ASCII only)."""
    return json.dumps(sarif_document(report, artifact=artifact), indent=2, ensure_ascii=True) + "\n"
