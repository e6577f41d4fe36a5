"""Three small things several modules need alike: cutting text for a message, saying why bytes are not UTF-8,
and a 'no value at all' sentinel.

Failure messages and reports quote what a server answered, and an answer can be a
megabyte; every quote goes through `clip`, so they are all cut the same way (one
ellipsis character, whitespace folded to single spaces unless told otherwise). `not_utf8`
names the first bad byte of a file that is not UTF-8 (behave's own error names no file). `MISSING`
stands for an absent key or item wherever a value could legitimately be None (a stored
JSON null, a `null` in an answer). Standard library only: the kit and storage import it.
"""

from __future__ import annotations

from typing import Final

__all__ = ["ELLIPSIS", "MISSING", "Missing", "clip", "not_utf8"]

ELLIPSIS: Final = "…"


def clip(text: str, limit: int = 300, *, flat: bool = True) -> str:
    """`text` cut to at most `limit` characters (the last one an ellipsis when cut); `flat` folds whitespace first."""
    if flat:
        text = " ".join(text.split())
    return text if len(text) <= limit else text[: max(limit - 1, 0)] + ELLIPSIS


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


class Missing:
    """The type of `MISSING`: one instance, falsy, shown and pickled as `MISSING`."""

    _instance: Missing | None = None

    def __new__(cls) -> Missing:
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __bool__(self) -> bool:
        return False

    def __repr__(self) -> str:
        return "MISSING"

    def __reduce__(self) -> str:
        return "MISSING"


MISSING: Final = Missing()
"""No value at all: an absent key or item, which JSON `null` (a value) cannot stand for."""
