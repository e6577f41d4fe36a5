"""Short text for reports: the one clipping helper every module of the checks package shares.

Reports quote answers, error messages and values that can be megabytes long; each quote is
flattened to one line and cut at a width so a failure message stays readable.
"""

from __future__ import annotations

__all__ = ["clip"]


def clip(text: str, limit: int = 300) -> str:
    """`text` on one line (runs of white space folded) and at most `limit` characters, "…" marking a cut."""
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"
