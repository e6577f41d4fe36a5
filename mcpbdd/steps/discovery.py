"""Discovery, completions and caching hints: what a server tells a client besides the answers to its calls.

How it describes itself (name, version, capabilities, instructions) comes from the `initialize` answer on
2025-11-25 and `server/discover` on 2026-07-28; completions (`completion/complete`) suggest a prompt argument's
or a resource template variable's values as a user types; caching hints (`ttlMs`, `cacheScope`, SEP-2549) on a
listing or a read only exist on 2026-07-28, so those steps skip on 2025-11-25, saying so.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from behave import then, when

from mcpbdd.steps._world import world
from mcpbdd.steps.arguments import SpecError, json_doc_string, location, spec_errors

if TYPE_CHECKING:
    from mcpbdd.model.caching import CacheHints


@then("the server describes itself with:")
def server_describes_itself(context: Any) -> None:
    """Then the server describes itself with: (JSON of name, version, capabilities, instructions; markers allowed)"""
    from mcpbdd.checks import described

    expected = json_doc_string(context)
    with spec_errors(context):  # an unknown marker (a typo such as "#strin") is the specification's mistake
        described.describes_itself(world(context).ask(described.describe), expected)


def one_column(context: Any) -> list[str]:
    """The step's table as a list of values: its heading is the first value (a table of one column has no names)."""
    table = getattr(context, "table", None)
    if table is None or len(table.headings) != 1:
        raise SpecError(f"{location(context)}: this step needs a table of one column below it, a value per row")
    return [table.headings[0], *(row[0] for row in table.rows)]


def _skip_without(context: Any, hints: CacheHints) -> CacheHints:
    """`hints`; on an era without caching hints (2025-11-25) the scenario skips, saying so."""
    if not hints.has_hints:
        context.scenario.skip(
            f"{hints.era} has no caching hints (ttlMs, cacheScope arrived with 2026-07-28): nothing to check on this "
            "pass"
        )
    return hints


def _hints(context: Any, listing: str) -> CacheHints:
    """The listing's caching hints (skipping the scenario on an era without them)."""
    from mcpbdd.checks import cache_hints
    from mcpbdd.model.caching import LISTINGS

    method = LISTINGS[listing]
    return _skip_without(context, world(context).ask(lambda h, caller: cache_hints.cache_hints(h, caller, method)))


@then("the {listing:Listing} may be cached for {seconds:d} seconds")
def listing_may_be_cached_for(context: Any, listing: str, seconds: int) -> None:
    """Then the tools list may be cached for 60 seconds  (also the resources, prompts, resource templates list)"""
    from mcpbdd.checks import cache_hints

    hints = _hints(context, listing)
    if hints.has_hints:
        cache_hints.may_be_cached_for(hints, seconds)


@then("the {listing:Listing} may be cached privately")
def listing_may_be_cached_privately(context: Any, listing: str) -> None:
    """Then the tools list may be cached privately  (only by the caller who got it)"""
    from mcpbdd.checks import cache_hints

    hints = _hints(context, listing)
    if hints.has_hints:
        cache_hints.may_be_cached_privately(hints)


@then("the {listing:Listing} may be cached publicly")
def listing_may_be_cached_publicly(context: Any, listing: str) -> None:
    """Then the resource templates list may be cached publicly  (by any client: the same for every caller)"""
    from mcpbdd.checks import cache_hints

    hints = _hints(context, listing)
    if hints.has_hints:
        cache_hints.may_be_cached_publicly(hints)


def _read_hints(context: Any) -> CacheHints:
    """The last read's caching hints (skipping the scenario on an era without them)."""
    return _skip_without(context, world(context).read_cache_hints())


@then("the read may be cached for {seconds:d} seconds")
def read_may_be_cached_for(context: Any, seconds: int) -> None:
    """Then the read may be cached for 60 seconds  (the last call's result, a resource read)"""
    from mcpbdd.checks import cache_hints

    hints = _read_hints(context)
    if hints.has_hints:
        cache_hints.may_be_cached_for(hints, seconds)


@then("the read may be cached privately")
def read_may_be_cached_privately(context: Any) -> None:
    """Then the read may be cached privately  (only by the caller who read it)"""
    from mcpbdd.checks import cache_hints

    hints = _read_hints(context)
    if hints.has_hints:
        cache_hints.may_be_cached_privately(hints)


@then("the read may be cached publicly")
def read_may_be_cached_publicly(context: Any) -> None:
    """Then the read may be cached publicly  (by any client: the same for every caller)"""
    from mcpbdd.checks import cache_hints

    hints = _read_hints(context)
    if hints.has_hints:
        cache_hints.may_be_cached_publicly(hints)


@when('the client asks to complete the argument "{argument:Text}" of the prompt "{prompt:Text}" from "{prefix:Text}"')
def client_asks_to_complete(context: Any, argument: str, prompt: str, prefix: str) -> None:
    """When the client asks to complete the argument "tag" of the prompt "summarize_notes" from "gro\""""
    world(context).complete_prompt_argument(prompt, argument, prefix)


@when(
    'the client asks to complete the variable "{variable:Text}" of the resource template "{uri_template:Text}" '
    'from "{prefix:Text}"'
)
def client_asks_to_complete_a_template(context: Any, variable: str, uri_template: str, prefix: str) -> None:
    """When the client asks to complete the variable "note_id" of the resource template "notes://{note_id}" from "n\""""
    world(context).complete_template_variable(uri_template, variable, prefix)


@then('the completions include "{value:Text}"')
def completions_include(context: Any, value: str) -> None:
    """Then the completions include "groceries\""""
    from mcpbdd.checks import completions

    completions.completions_include(world(context).completions, value)


@then("the completions are:")
def completions_are(context: Any) -> None:
    """Then the completions are: (a table of one column, a value per row, in the order the server suggests them)"""
    from mcpbdd.checks import completions

    completions.completions_are(world(context).completions, one_column(context))


__all__: list[str] = []  # steps register themselves with behave on import; nothing here is imported by name
