"""Small things several modules need alike: cutting text for a message, naming why bytes are not UTF-8, quoting
text in Markdown, and a 'no value at all' sentinel.

Failure messages and reports quote what a server answered, and an answer can be a
megabyte; every quote goes through `clip`, so they are all cut the same way (one
ellipsis character, whitespace folded to single spaces unless told otherwise). `not_utf8`
names the first bad byte of a file that is not UTF-8 (behave's own error names no file). `MISSING`
stands for an absent key or item wherever a value could legitimately be None (a stored
JSON null, a `null` in an answer). Every Markdown writer (`mcpbdd coverage`, `mcpbdd catalog`,
parity.md) quotes names through `markdown_text` and `markdown_code`, so a scenario named
`Notes <draft> *as such* | v2` reads literally on GitHub: no tag dropped, no italics, no new
table column. `clip` and `MISSING` live in the kit's distribution (`mcpbdd_kit._text`: the kit and storage
use them) and are re-exported here, one object each.
"""

from __future__ import annotations

import re

from mcpbdd_kit._text import ELLIPSIS, MISSING, Missing, clip

__all__ = ["ELLIPSIS", "MISSING", "Missing", "clip", "markdown_code", "markdown_text", "not_utf8"]

_MARKDOWN_SPECIAL = re.compile(r"([\\`*_\[\]<>|~&$])")
"""What GitHub's Markdown may read as markup inside a line (emphasis, code, links, HTML, entities, tables, strike,
math): ASCII punctuation all, which a backslash makes literal. What matters only at a line's start (`#`, `-`, `1.`)
is left: these writers quote names inside a line."""


def markdown_text(text: str) -> str:
    """`text` as literal Markdown on one line (a table cell, a list item): markup characters escaped, line breaks
    folded to spaces. `<note>` stays text rather than an HTML tag GitHub drops, `*as such*` stays unstressed, `|`
    opens no table column."""
    return _MARKDOWN_SPECIAL.sub(r"\\\1", " ".join(text.split()))


def markdown_code(text: str, *, cell: bool = True) -> str:
    """`text` as an inline code span on one line: a fence longer than any run of backticks in it, and, in a table
    `cell`, `|` escaped (a table splits its row at `|` before it reads code spans; elsewhere the backslash shows)."""
    flat = " ".join(text.split())
    flat = flat.replace("|", "\\|") if cell else flat
    fence = "`" * (max((len(run) for run in re.findall(r"`+", flat)), default=0) + 1)
    padded = f" {flat} " if flat.startswith("`") or flat.endswith("`") else flat
    return f"{fence}{padded}{fence}"


def not_utf8(data: bytes) -> str | None:
    """Why `data` is not UTF-8, as a message naming the first bad byte, its offset and line; None when it is UTF-8.

    behave reads feature files as UTF-8 and, when one is not, fails with a bare
    UnicodeDecodeError naming no file; callers put this after the file's name.
    """
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        return f"not UTF-8 (byte 0x{data[exc.start]:02x} at offset {exc.start}, line {line}); save the file as UTF-8"
    return None
