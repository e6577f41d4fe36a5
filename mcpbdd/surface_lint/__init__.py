"""The tool surface as a product: lint rules, hidden instructions and poisoning, and the token budget.

What a server offers (tool names, descriptions, schemas) is read by a model on every request. This
package judges it from the listing alone, with no call made: `lint_surface(listings)` applies every rule
of `RULES` (each with an id, a severity, why and fix), counts what each tool costs in tokens
(`tokens`, imported on first use), and takes a baseline of accepted findings. `mcpbdd lint` and the
"Tool surface" phrases are thin layers over it; `output` and `sarif` write the report.

    from mcpbdd.surface_lint import lint_surface, listings_of
    report = lint_surface(listings_of(await client.list_tools()), max_total=4000)
    assert not report.failed, "\\n".join(map(str, report.open))
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from mcpbdd.surface_lint.accepted import Accepted, load_accepted
    from mcpbdd.surface_lint.findings import Finding
    from mcpbdd.surface_lint.report import LintReport, lint_surface, listings_of
    from mcpbdd.surface_lint.rules import RULES, Rule, Severity, rule_named

__all__ = [
    "RULES",
    "Accepted",
    "Finding",
    "LintReport",
    "Rule",
    "Severity",
    "lint_surface",
    "listings_of",
    "load_accepted",
    "rule_named",
]

_HOME = {
    "Accepted": "accepted",
    "load_accepted": "accepted",
    "Finding": "findings",
    "LintReport": "report",
    "lint_surface": "report",
    "listings_of": "report",
    "RULES": "rules",
    "Rule": "rules",
    "Severity": "rules",
    "rule_named": "rules",
}
"""Where each name lives: imported on first use, so importing a submodule (`visible`, as the surface diff does) or
loading the steps compiles no pattern and reads no rule until a lint runs."""


def __getattr__(name: str) -> Any:
    if name not in _HOME:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"{__name__}.{_HOME[name]}"), name)
