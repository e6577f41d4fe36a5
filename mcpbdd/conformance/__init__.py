"""Conformance: the rules every MCP server must keep, checked from its own surface, on either era.

A pack of generic features (`features/*.feature`, bundled with the package) runs one check per
scenario against any target (`mcpbdd conformance TARGET`), or from a project's own feature
(`Then the server passes the conformance checks`). Each check derives its calls from the server's
tools, resources, templates and prompts, and names the spec section it checks (`registry`). Python
code runs them too:

    from mcpbdd.conformance import run_check
    await run_check(Probe(client_harness, caller=None), "unknown-tool")

`check_in_world` is the steps' synchronous entry point.
"""

from __future__ import annotations

from pathlib import Path

from mcpbdd.conformance.probe import Probe
from mcpbdd.conformance.registry import CHECKS, Check, ConformanceFailure, NotApplicable, check_named
from mcpbdd.conformance.run import check_all_in_world, check_in_world, run_check

__all__ = [
    "CHECKS",
    "PACK",
    "Check",
    "ConformanceFailure",
    "NotApplicable",
    "Probe",
    "all_checks",
    "check_all_in_world",
    "check_in_world",
    "check_named",
    "run_check",
]

PACK = Path(__file__).parent / "features"
"""The bundled pack: one scenario per check, each tagged `@check.<id>` and `@spec.<section>`."""


def all_checks() -> list[Check]:
    """Every check, in the pack's order."""
    check_named("unknown-tool")  # loads the modules that define them
    return list(CHECKS.values())
