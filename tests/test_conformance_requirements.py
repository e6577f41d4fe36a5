"""The traced requirements: the specification's server-side MUST and SHOULD sentences, and what checks each.

The data file is the extractor's output over the specification's pages (its commits recorded); here the
extractor is held to what it promises on a page of our own, and the table to having a reason for every
requirement nothing checks and a live sentence behind every rule that says a pack check covers one.
"""

from __future__ import annotations

import argparse
import re

import pytest

from mcpbdd.cli.conformance import main
from mcpbdd.conformance import all_checks
from mcpbdd.conformance.requirements import PACK, REASONS, render, requirements
from mcpbdd.conformance.requirements_extract import extract_page, slug

PAGE = """---
title: Things
---

## Listing Things

Servers that declare the `things` capability **MUST** respond to `things/list`.
Clients **SHOULD** cache the list. Thing names **SHOULD** be short.

### Error Handling

Servers **MUST**:

- Refuse an unknown thing
- Say which thing was unknown

```json
{"note": "a server MUST NOT be read from code"}
```

The authorization server **MUST** sign its tokens.
"""


def test_the_extractor_keeps_what_binds_a_server_with_its_anchor() -> None:
    found = extract_page("2026-07-28", "server/things", PAGE)
    assert [(item["id"], item["level"]) for item in found] == [
        ("server/things#listing-things/1", "MUST"),
        ("server/things#listing-things/2", "SHOULD"),  # names nobody: a server page's party, the server
        ("server/things#error-handling/1", "MUST"),  # the lead-in's keyword and party, per list item
        ("server/things#error-handling/2", "MUST"),
    ]
    assert found[2]["text"] == "Refuse an unknown thing"
    assert slug("Error `Handling` (SEP-1)") == "error-handling-sep-1"


def test_both_eras_are_traced_and_every_requirement_nothing_checks_has_a_reason() -> None:
    rows = requirements()
    assert {row.era for row in rows} == {"2025-11-25", "2026-07-28"}
    assert sum(row.level.startswith("MUST") for row in rows) > 300
    for row in rows:  # requirements() raises LookupError for a page with no reason in REASONS
        assert row.pack or row.official or row.reason, row.id
    assert any(row.reason == REASONS["basic/authorization"] for row in rows)


def test_every_rule_of_the_pack_names_a_real_check_and_a_live_sentence() -> None:
    """A rule whose sentence moved or changed covers nothing: it fails here instead of tracing silently less."""
    ids = {check.id for check in all_checks()}
    rows = requirements()
    for where, words, check in PACK:
        assert check in ids, check
        assert any(re.match(where, r.id) and re.search(words, r.text) for r in rows), (where, words, check)


def test_the_command_prints_the_table(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(argparse.Namespace(requirements=True)) == 0
    printed = capsys.readouterr().out
    assert printed.startswith("Server-side requirements of the MCP specification (MUST: ")
    assert "github.com/modelcontextprotocol/modelcontextprotocol@" in printed
    assert "2026-07-28  MUST       server/resources#error-handling/1" in printed
    assert "covered by pack: unknown-resource" in printed
    assert "| era | requirement | level | covered by | sentence (cut) |" in render(markdown=True)


def test_the_specs_own_markup_is_written_literally_on_the_page() -> None:
    """A sentence holds the spec's Markdown (a reference link, code spans): remote text, never markup on our page
    (the strict docs build once failed on `[...][subscriptions-listen]` read as a cross-reference)."""
    from mcpbdd.conformance.requirements import render

    page = render(markdown=True)
    assert "[`subscriptions/listen`][subscriptions-listen]" not in page
    assert "\\[\\`subscriptions/listen\\`\\]\\[subscriptions-listen\\]" in page


def test_the_message_rules_a_client_can_observe_are_traced_to_the_pack() -> None:
    """The JSON-RPC message rules, version negotiation and server/discover were "nothing" with a reason that did not
    hold (a raw client sees them): each is now a pack check's, and a section's own reason beats its page's."""
    rows = {(row.era, row.id): row for row in requirements()}
    for era in ("2025-11-25", "2026-07-28"):
        for anchor in ("result-responses/1", "error-responses/1", "error-responses/3", "notifications/1"):
            assert "jsonrpc-messages" in rows[era, f"basic/index#{anchor}"].pack, (era, anchor)
        assert rows[era, "basic/index#icons/6"].reason == REASONS["basic/index#icons"]
    assert rows["2025-11-25", "basic/lifecycle#version-negotiation/3"].pack == ("version-negotiation",)
    assert rows["2026-07-28", "server/discover#/1"].pack == ("server-discover",)
    assert rows["2026-07-28", "basic/versioning#protocol-version-negotiation/1"].pack == ("server-discover",)
    assert rows["2026-07-28", "basic/index#meta/6"].pack == ("jsonrpc-messages",)
