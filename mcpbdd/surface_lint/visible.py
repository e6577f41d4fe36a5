"""Text from a server made visible and inert before anyone reads it: the console, Markdown, JSON and SARIF.

What a server wrote is hostile data. `reveal` turns every character a reader would not see (zero-width,
bidirectional controls, C0/C1 controls such as ESC, fillers) into a visible `<U+200B ZERO WIDTH SPACE>`,
and a run of Unicode tag characters into what it spells (`<tags: "read ~/.ssh/id_rsa">`), so a finding
quotes what was hidden and no terminal control sequence, bidi reordering or invisible payload reaches
the reader. Each writer escapes the revealed text once more for its own format (Markdown through
`mcpbdd._text.markdown_text`, JSON and SARIF through the JSON encoder).
"""

from __future__ import annotations

import unicodedata

from mcpbdd._text import clip

__all__ = ["INVISIBLE_EXTRA", "TAG_BASE", "has_invisible", "is_invisible", "is_tag", "reveal", "tag_text"]

TAG_BASE = 0xE0000
"""Unicode tag characters (U+E0000..U+E007F) mirror ASCII: U+E0041 is an invisible "A"."""

INVISIBLE_EXTRA = frozenset(
    [
        *(0x034F, 0x115F, 0x1160, 0x17B4, 0x17B5, 0x180E, 0x2800, 0x3164, 0xFFA0),
        *range(0xFE00, 0xFE10),  # variation selectors: invisible, and a known carrier of smuggled bytes
        *range(0xE0100, 0xE01F0),
    ]
)
"""Characters Python calls printable that render as nothing (fillers, blank braille, variation selectors)."""


def is_tag(char: str) -> bool:
    return TAG_BASE <= ord(char) <= TAG_BASE + 0x7F


def is_invisible(char: str) -> bool:
    """Whether a reader would not see `char` (or see it move text around): format, control, filler characters."""
    if char in "\n\t":
        return False
    return not char.isprintable() or ord(char) in INVISIBLE_EXTRA or is_tag(char)


def has_invisible(text: str) -> bool:
    """Whether `text` holds a character `is_invisible` names (at C speed for the usual, printable text)."""
    if text.replace("\n", "").replace("\t", "").isprintable():
        return not INVISIBLE_EXTRA.isdisjoint(map(ord, text))
    return True


def tag_text(run: str) -> str:
    """What a run of tag characters spells (the ASCII each one mirrors; the cancel tag U+E007F ends it)."""
    return "".join(chr(ord(c) - TAG_BASE) for c in run if TAG_BASE <= ord(c) < TAG_BASE + 0x7F)


def _name(char: str) -> str:
    name = "CONTROL" if unicodedata.category(char) == "Cc" else unicodedata.name(char, "UNNAMED")
    return f"<U+{ord(char):04X} {name}>"


def reveal(text: str, limit: int = 400) -> str:
    """`text` with every invisible character shown by its code point and name, tag runs decoded, line breaks as
    `\\n`, cut to `limit` characters: safe to print, and telling what was hidden. Work stops at the limit, so a
    megabyte of hostile text costs no more than its first few hundred characters."""
    if text.isprintable() and INVISIBLE_EXTRA.isdisjoint(map(ord, text[: limit + 1])):
        return clip(text, limit, flat=False)  # the usual case, at C speed
    out: list[str] = []
    size, index = 0, 0
    while index < len(text) and size <= limit:
        char = text[index]
        if is_tag(char):
            end = index
            while end < len(text) and is_tag(text[end]) and end - index <= limit:
                end += 1
            shown = f'<tags: "{reveal(tag_text(text[index:end]), limit)}">'  # what tags spell is hostile too
            index = end
        else:
            shown = "\\n" if char == "\n" else "\\t" if char == "\t" else _name(char) if is_invisible(char) else char
            index += 1
        out.append(shown)
        size += len(shown)
    if index < len(text):
        out.append(" ")  # more followed: clip adds its ellipsis
    return clip("".join(out), limit, flat=False)
