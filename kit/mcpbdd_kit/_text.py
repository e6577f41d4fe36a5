"""Cutting text for a message and a 'no value at all' sentinel: what the kit and its storage need of mcpbdd's text
helpers (`mcpbdd._text` re-exports both, so `MISSING` is one object everywhere). Standard library only.

Failure messages quote what a party sent, and that can be a megabyte: every quote goes through `clip`, cut the
same way (one ellipsis character, whitespace folded to single spaces unless told otherwise). `MISSING` stands
for an absent key or item wherever a value could legitimately be None (a stored JSON null).
"""

from __future__ import annotations

from typing import Final

__all__ = ["ELLIPSIS", "MISSING", "Missing", "clip"]

ELLIPSIS: Final = "…"


def clip(text: str, limit: int = 300, *, flat: bool = True) -> str:
    """`text` cut to at most `limit` characters (the last one an ellipsis when cut); `flat` folds whitespace first."""
    if flat:
        text = " ".join(text.split())
    return text if len(text) <= limit else text[: max(limit - 1, 0)] + ELLIPSIS


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
