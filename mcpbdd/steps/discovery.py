"""Discovery and caching hints: what a server tells a client about itself and about how long to keep its answers.

How it describes itself (name, version, capabilities, instructions) comes from the `initialize` answer on
2025-11-25 and `server/discover` on 2026-07-28; caching hints (`ttlMs`, `cacheScope`, SEP-2549) only exist on
2026-07-28, so those steps skip on 2025-11-25, saying so.
"""

from __future__ import annotations

from typing import Any

from behave import then

from mcpbdd.model import caching, discovery
from mcpbdd.steps._world import world
from mcpbdd.steps.arguments import json_doc_string, spec_errors


@then("the server describes itself with:")
def server_describes_itself(context: Any) -> None:
    """Then the server describes itself with: (JSON of name, version, capabilities, instructions; markers allowed)"""
    expected = json_doc_string(context)
    with spec_errors(context):  # an unknown marker (a typo such as "#strin") is the specification's mistake
        discovery.describes_itself(world(context).server_description(), expected)


def _hints(context: Any, listing: str) -> Any:
    """The listing's caching hints; on an era without them (2025-11-25) the scenario skips, saying so."""
    hints = world(context).cache_hints(caching.LISTINGS[listing])
    if not hints.has_hints:
        context.scenario.skip(
            f"{hints.era} has no caching hints (ttlMs, cacheScope arrived with 2026-07-28): nothing to check on this "
            "pass"
        )
    return hints


@then("the {listing:Listing} may be cached for {seconds:d} seconds")
def listing_may_be_cached_for(context: Any, listing: str, seconds: int) -> None:
    """Then the tools list may be cached for 60 seconds  (also the resources, prompts, resource templates list)"""
    hints = _hints(context, listing)
    if hints.has_hints:
        caching.may_be_cached_for(hints, seconds)


@then("the {listing:Listing} may be cached privately")
def listing_may_be_cached_privately(context: Any, listing: str) -> None:
    """Then the tools list may be cached privately  (only by the caller who got it)"""
    hints = _hints(context, listing)
    if hints.has_hints:
        caching.may_be_cached_privately(hints)


__all__: list[str] = []  # steps register themselves with behave on import; nothing here is imported by name
