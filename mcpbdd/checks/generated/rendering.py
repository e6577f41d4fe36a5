"""Inputs as a reader can take them in: the failing inputs a report shows are often 10,000 characters long.

Generated and adversarial inputs are built to be awkward: long strings, invisible characters,
200 levels of nesting. A report prints them as compact JSON with the awkward parts summarised
(`"x" * 10000`, `[… 200 more levels of nesting …]`) and invisible characters escaped.
"""

from __future__ import annotations

import json
from typing import Any

from mcpbdd._text import clip
from mcpbdd.checks.generated.adversarial import DEEP

__all__ = ["render_input"]


def render_input(value: Any, limit: int = 400) -> str:
    """An input as compact JSON a reader can take in: long strings and deep nesting summarised."""
    text = _render(value, 0)
    return clip(text, limit, flat=False)


def _render(value: Any, depth: int) -> str:
    if depth > 6 and isinstance(value, list | dict) and value:
        inner = value
        levels = 0
        while isinstance(inner, list | dict) and len(inner) == 1 and levels < DEEP + 10:
            inner = next(iter(inner.values())) if isinstance(inner, dict) else inner[0]
            levels += 1
        opening, closing = ("[", "]") if isinstance(value, list) else ("{", "}")
        return f"{opening}… {levels} more levels of nesting …{closing}"
    if isinstance(value, str):
        if len(value) > 60:
            if value == value[0] * len(value):
                return f"{_quote(value[0])} * {len(value)}"
            return f'{_quote(value[:24])[:-1]}…" ({len(value)} characters)'
        return _quote(value)
    if isinstance(value, dict):
        return "{" + ", ".join(f"{_render(str(k), depth)}: {_render(v, depth + 1)}" for k, v in value.items()) + "}"
    if isinstance(value, list):
        if len(value) > 10 and all(item == value[0] for item in value):
            return f"[{_render(value[0], depth + 1)}] * {len(value)}"
        return "[" + ", ".join(_render(v, depth + 1) for v in value[:10]) + (", …" if len(value) > 10 else "") + "]"
    return json.dumps(value, default=str)


def _quote(text: str) -> str:
    """A JSON string literal that shows printable characters as they are and escapes the rest (\\u0000, \\u202e)."""
    parts: list[str] = []
    for char in text:
        if char in '"\\':
            parts.append("\\" + char)
        elif char.isprintable():
            parts.append(char)
        elif ord(char) > 0xFFFF:
            parts.append(f"\\U{ord(char):08x}")
        else:
            parts.append(f"\\u{ord(char):04x}")
    return '"' + "".join(parts) + '"'
