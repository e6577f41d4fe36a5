"""docs/gen/lint_rules.py writes a page per lint rule; mkdocs.yml's nav must list each, in the rules' order."""

from __future__ import annotations

import re
from pathlib import Path

from mcpbdd.surface_lint import RULES


def test_the_site_lists_a_page_per_rule() -> None:
    nav = (Path(__file__).parents[1] / "mkdocs.yml").read_text(encoding="utf-8")
    listed = re.findall(r"- ([\w-]+): reference/lint/([\w-]+)\.md", nav)
    assert [name for name, _ in listed] == [page for _, page in listed] == [rule.id for rule in RULES]


def test_every_rule_says_why_and_how_to_fix() -> None:
    for rule in RULES:
        assert re.fullmatch(r"[a-z]+(-[a-z]+)*", rule.id), rule.id
        assert rule.why.endswith(".") and rule.fix.endswith(".") and rule.title, rule.id
