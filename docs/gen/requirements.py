"""Writes reference/conformance-requirements.md at build time: every server-side MUST and SHOULD of the
specification (both eras), with what checks it, from `mcpbdd.conformance.requirements` (what
`mcpbdd conformance --requirements` prints), so the page and the command cannot tell different stories.
"""

from __future__ import annotations

import mkdocs_gen_files

from mcpbdd.conformance.requirements import render

__all__: list[str] = []

PAGE = [
    "# Conformance: every requirement traced",
    "",
    "Each server-side MUST and SHOULD sentence of the specification (2025-11-25 and 2026-07-28), extracted from "
    "its pages with its anchor, and what checks it: a check of mcpbdd's [conformance pack](conformance.md), the "
    "official suite (one of its server scenarios cites the sentence's section: looser than checking the sentence, "
    "and said so), or nothing, with the reason written next to it. `mcpbdd conformance --requirements` prints the "
    "same table. Which party a sentence binds is read from its words, so a few client rules stated without a "
    "subject appear here too; their reason says where they belong.",
    "",
    render(markdown=True),
]

with mkdocs_gen_files.open("reference/conformance-requirements.md", "w") as out:
    out.write("\n".join(PAGE))
