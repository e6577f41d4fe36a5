"""The Markdown writers quote what they did not write: parity.md, `mcpbdd catalog`, `mcpbdd coverage`.

A scenario's name is its author's text and a tool's name, hint or argument is the server's: quoted raw,
`<note>` became an HTML tag GitHub drops, `*as such*` turned italic and `|` split a table row. Each
writer's output is rendered here by markdown-it-py with GitHub's table extension (CommonMark, as GitHub
renders), and the text a reader sees must be the name, literally.
"""

from __future__ import annotations

import html
import re

import pytest

from mcpbdd._text import markdown_code, markdown_text
from mcpbdd.checks.coverage_summary import markdown as coverage_markdown
from mcpbdd.checks.error_catalog import Specified, render
from mcpbdd.kit.errors import CONTRACTS, ErrorContract, Failure
from mcpbdd.reporting.parity import Column, build_matrix
from mcpbdd.reporting.verdicts import Verdict

HOSTILE = "Notes <note> kept *as such* | v2_draft [x](y) `tick` $5 & co"


def _rendered(markdown: str) -> tuple[str, str]:
    """The HTML GitHub-flavoured Markdown makes of `markdown`, and the text a reader sees in it."""
    markdown_it = pytest.importorskip("markdown_it", reason="needs markdown-it-py: pip install -e '.[dev]'")
    page = markdown_it.MarkdownIt("commonmark").enable("table").enable("strikethrough").render(markdown)
    return page, html.unescape(re.sub(r"<[^>]+>", "", page))


def _cells(page: str) -> list[list[str]]:
    rows = re.findall(r"<tr>(.*?)</tr>", page, flags=re.S)
    return [
        [html.unescape(re.sub(r"<[^>]+>", "", c)) for c in re.findall(r"<t[dh][^>]*>(.*?)</t[dh]>", r, re.S)]
        for r in rows
    ]


def test_the_helpers_quote_every_markup_character_literally() -> None:
    for quoted in (markdown_text(HOSTILE), markdown_code(HOSTILE)):
        page, _text = _rendered(f"| a |\n|---|\n| {quoted} |\n")
        assert _cells(page)[1] == [HOSTILE], page
        assert "<em>" not in page and "<a " not in page and "<note>" not in page
    assert markdown_text("two\nlines") == "two lines" and markdown_code("``x``") == "``` ``x`` ```"
    page, text = _rendered(f"## {markdown_code(HOSTILE, cell=False)}\n")
    assert text.strip() == HOSTILE, page


def test_parity_md_quotes_a_scenario_name_literally() -> None:
    columns = [Column("context", "context"), Column("client.auto", "client 2026-07-28")]
    verdicts = [
        Verdict("features/x.feature", 3, HOSTILE, f"{HOSTILE} [{c.name}]", "X", s, 0.1, column=c.name, message=m)
        for c, s, m in ((columns[0], "passed", ""), (columns[1], "failed", "expected *this* <b>"))
    ]
    page, text = _rendered(build_matrix(columns, verdicts).markdown())
    assert any(row[1] == HOSTILE for row in _cells(page)), page
    assert f"{HOSTILE} (features/x.feature:3)" in text and "expected *this* <b>" in text
    assert "<em>" not in page and "<note>" not in page


def test_the_catalog_quotes_the_servers_hint_and_the_scenario_names_literally() -> None:
    contract = ErrorContract("notes|<x>", Failure("not_found", "gone", hint="List the *notes* <first> | then"))
    try:
        where = f"features/x.feature:4 {HOSTILE}"
        page, _text = _rendered(render([contract], Specified({("notes|<x>", "not_found"): [where]}), ["a*b*"]))
    finally:
        CONTRACTS.pop("notes|<x>", None)
    (row,) = [cells for cells in _cells(page) if cells and cells[0] == "not_found"]
    assert row[3] == "List the *notes* <first> | then" and row[5] == where, row
    assert "<h2><code>notes|&lt;x&gt;</code></h2>" in page and "<code>a*b*</code>" in page


def test_the_coverage_summary_quotes_the_servers_names_literally() -> None:
    tool = "export|<all>*now*"
    section = {
        "scenarios": 1,
        "tools": {tool: {"offered": True, "calls": {}, "scenarios": [], "arguments": {}}},
        "resources": {},
        "templates": {},
        "prompts": {},
        "failures": {},
    }
    page, _text = _rendered(coverage_markdown({"harnesses": {"context": section}}))
    cells = _cells(page)
    assert ["tools", "0", "1", "0%", tool] in cells, cells
    assert [tool, "**none**".strip("*"), "0/0", "0"] in cells, cells
    assert "<em>" not in page
