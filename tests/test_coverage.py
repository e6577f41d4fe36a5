"""Coverage measured from the run: what is left unexercised shows, the gate fails both ways, splits merge exactly.

The tests of this concern that start processes are in tests/spawning/test_coverage.py.
"""

from __future__ import annotations

from typing import Any

from mcpbdd.checks.coverage import merge
from mcpbdd.checks.coverage_summary import below, summarise
from mcpbdd.checks.offered import template_pattern


def test_merging_adds_counts_and_joins_scenarios() -> None:
    def part(calls: int, scenario: str, offered: bool) -> dict[str, Any]:
        tool = {"offered": offered, "calls": {"ok": calls}, "scenarios": [scenario]}
        return {"format": "mcpbdd coverage 1", "harnesses": {"context": {"scenarios": 1, "tools": {"t": tool}}}}

    merged = merge([part(2, "b.feature:1 B", False), part(3, "a.feature:1 A", True)])
    assert merged["harnesses"]["context"] == {
        "scenarios": 2,
        "tools": {"t": {"offered": True, "calls": {"ok": 5}, "scenarios": ["a.feature:1 A", "b.feature:1 B"]}},
    }
    assert below(summarise(merged), {}) == []


def test_a_resource_template_matches_the_uris_it_expands_to() -> None:
    assert template_pattern("notes://{note_id}").match("notes://n-1")
    assert not template_pattern("notes://{note_id}").match("notes://a/b")
    assert template_pattern("files://{+path}").match("files://a/b/c.md")
    assert template_pattern("search://notes{?q,limit}").match("search://notes?q=x&limit=2")
