"""The checks that read the server's listings: capabilities, pagination, caching hints, names and schemas."""

from __future__ import annotations

from typing import Any

from mcp.shared.exceptions import MCPError
from mcp_types import INVALID_PARAMS

from mcpbdd.checks.schema import schema_problems
from mcpbdd.conformance.probe import LISTS, TOOL_NAME, Probe
from mcpbdd.conformance.registry import SPEC, NotApplicable, check
from mcpbdd.conformance.verdict import fail_unless

__all__ = ["declared_lists", "item_key", "lists_to_check"]

_PAGINATION = f"{SPEC}/server/utilities/pagination"


async def declared_lists(probe: Probe) -> list[str]:
    """The lists the server's declared capabilities say it serves."""
    return [name for name in LISTS if await probe.declares(name)]


async def lists_to_check(probe: Probe, *, none_declared: str) -> list[str]:
    """The declared lists, or the check does not apply (`none_declared` says why): a check of no list checks
    nothing, so it is skipped, never passed."""
    names = await declared_lists(probe)
    if not names:
        raise NotApplicable(none_declared)
    return names


def item_key(item: Any) -> str:
    """What names an item of a list uniquely: a tool's or prompt's name, a resource's URI, a template's."""
    return str(getattr(item, "uri", None) or getattr(item, "uri_template", None) or getattr(item, "name", ""))


@check(
    "capabilities-served",
    sends="The list requests of each declared capability (`tools/list`, `resources/list`, "
    "`resources/templates/list`, `prompts/list`), every page.",
    blind="Capabilities other than the lists (logging, completions, subscriptions); whether the lists hold what"
    " the server really offers.",
    title="Every declared capability is served",
    section="lifecycle",
    url=f"{SPEC}/basic/lifecycle#capability-negotiation",
    rule="A server that declares `tools`, `resources` or `prompts` answers the list requests of that capability "
    "(`tools/list`; `resources/list` and `resources/templates/list`; `prompts/list`) with a result, not an "
    "error: a client trusts the declaration and lists what it was told exists.",
    fix="Declare only what the server implements (the SDKs declare a capability when a handler is registered), "
    "and register a list handler for each declared capability, even one that returns an empty list.",
)
async def capabilities_served(probe: Probe) -> None:
    names = await lists_to_check(probe, none_declared="the server declares no tools, resources or prompts")
    problems = []
    for name in names:
        try:
            await probe.pages(name)
        except MCPError as exc:
            problems.append(f"{name} is declared but its list request failed: {exc.error.code} {exc.error.message}")
    fail_unless(problems, "a declared capability is not served")


@check(
    "pagination",
    sends="Every page of each declared list, following `nextCursor` (at most 100 pages), then its first page again.",
    blind="Lists that change between pages because of another client; cursors past 100 pages.",
    title="List pagination is consistent",
    section="pagination",
    url=_PAGINATION,
    rule="Following `nextCursor` page by page reaches the end (a page without a cursor) and no item appears "
    "twice; listing again from the start gives the same items. The cursor is opaque and stable enough to "
    "be followed.",
    fix="Derive the cursor from a stable position (an id, an offset into a sorted list), end with no "
    "`nextCursor`, and never repeat an item across pages.",
)
async def pagination(probe: Probe) -> None:
    names = await lists_to_check(probe, none_declared="the server declares no list to page through")
    problems = []
    for name in names:
        pages = await probe.pages(name)
        if pages[-1].next_cursor:
            problems.append(f"{name}: still a nextCursor after {len(pages)} pages")
        keys = [item_key(item) for page in pages for item in page.items]
        twice = sorted({key for key in keys if keys.count(key) > 1})
        if twice:
            problems.append(f"{name}: listed more than once: {', '.join(twice)}")
        again = await probe.page(name, None)
        first = [item_key(item) for item in pages[0].items]
        if [item_key(item) for item in again.items] != first:
            problems.append(f"{name}: the first page changed between two listings")
    fail_unless(problems, "pagination is inconsistent")


@check(
    "bad-cursor",
    sends="One list request per declared list with the cursor `mcpbdd-not-a-cursor`.",
    blind="A cursor the server issued and then expired, or one of another list or caller (only a made-up one is sent).",
    title="A cursor the server never issued is refused with -32602",
    section="pagination",
    url=f"{_PAGINATION}#error-handling",
    rule="A list request with a cursor the server did not issue should be refused with the protocol error "
    "-32602 (invalid params). A server may instead ignore it and list from the start, but it must answer: "
    "no other error code, no crash, no hang.",
    fix="Decode the cursor defensively and answer `MCPError(INVALID_PARAMS, 'Invalid cursor')` when it does "
    "not decode.",
)
async def bad_cursor(probe: Probe) -> None:
    names = await lists_to_check(probe, none_declared="the server declares no list a cursor could page")
    problems = []
    for name in names:
        try:
            await probe.page(name, "mcpbdd-not-a-cursor")
        except MCPError as exc:
            if exc.error.code != INVALID_PARAMS:
                problems.append(f"{name}: the error {exc.error.code} {exc.error.message!r}, not -32602")
    fail_unless(problems, "a bad cursor was not refused properly")


@check(
    "caching-hints",
    sends="Every page of each declared list (2026-07-28 only), reading which result fields came on the wire.",
    blind="Whether the hints are right (a TTL that is too long); other results than lists.",
    title="List results carry caching hints",
    section="caching",
    url=f"{SPEC}/server/utilities/pagination",
    rule="On 2026-07-28 every list result says how long a client may cache it and for whom: `ttlMs` and "
    "`cacheScope` (`public` or `private`), so a client need not list again before each call.",
    fix="Use an SDK version that speaks 2026-07-28 (it fills them in), or set them on a hand-built result.",
    modern_only=True,
)
async def caching_hints(probe: Probe) -> None:
    names = await lists_to_check(probe, none_declared="the server declares no list")
    problems = []
    for name in names:
        for number, page in enumerate(await probe.pages(name), start=1):
            missing = [field for field in ("ttl_ms", "cache_scope") if field not in page.sent]
            if missing:
                wire = ", ".join({"ttl_ms": "ttlMs", "cache_scope": "cacheScope"}[m] for m in missing)
                problems.append(f"{page.method} page {number}: no {wire}")
    fail_unless(problems, "a list result carries no caching hints")


@check(
    "result-type",
    sends="Every page of each declared list (2026-07-28 only), reading whether `resultType` came on the wire.",
    blind="Results of calls (tools, prompts, resources): only lists are read.",
    title="Every result says its resultType",
    section="multi-round-trip",
    url=f"{SPEC}/server/tools",
    rule="On 2026-07-28 every result names its `resultType` (`complete`, or `input_required` when the server "
    "needs answers first), so a client knows whether the request is done.",
    fix="Use an SDK version that speaks 2026-07-28; a hand-built result must set `resultType`.",
    modern_only=True,
)
async def result_type(probe: Probe) -> None:
    names = await lists_to_check(probe, none_declared="the server declares no list")
    problems = [
        f"{page.method} page {number}: no resultType"
        for name in names
        for number, page in enumerate(await probe.pages(name), start=1)
        if "result_type" not in page.sent
    ]
    fail_unless(problems, "a result does not say its resultType")


@check(
    "tool-names",
    sends="Every page of `tools/list`.",
    blind="Names that collide only with other servers' tools in a client; names that are valid but misleading.",
    title="Tool names are well formed and unique",
    section="tools",
    url=f"{SPEC}/server/tools#tool-names",
    rule="A tool name is 1 to 128 characters of ASCII letters, digits, `_`, `-` and `.` (SEP-986), and no two "
    "tools share one: clients and models address tools by name.",
    fix="Rename the tool (spaces, slashes and non-ASCII letters are the usual culprits); keep a display name in "
    "`title`.",
)
async def tool_names(probe: Probe) -> None:
    tools = await probe.tools()
    if not tools:
        raise NotApplicable("the server offers no tools")
    names = [tool.name for tool in tools]
    problems = [f"{name!r} is not 1-128 of A-Z a-z 0-9 _ - ." for name in names if not TOOL_NAME.fullmatch(name)]
    problems += [f"{name!r} is offered twice" for name in sorted({n for n in names if names.count(n) > 1})]
    fail_unless(problems, "a tool name is malformed")


@check(
    "tool-schemas",
    sends="Every page of `tools/list`; each schema is checked against its JSON Schema dialect's metaschema.",
    blind="Whether the schema says what the code needs (see invalid-arguments and form-payloads for what calls show).",
    title="Input and output schemas are valid JSON Schema 2020-12 objects",
    section="tools",
    url=f"{SPEC}/server/tools#tool",
    rule="A tool's `inputSchema` (and its `outputSchema`, when it has one) is a valid JSON Schema, 2020-12 unless "
    "it names another dialect in `$schema`, describing an object (`type: object`): clients validate "
    "arguments and results with it.",
    fix="Let the SDK derive the schemas from the function's signature and return type, or check a hand-written "
    "one against the metaschema.",
)
async def tool_schemas(probe: Probe) -> None:
    tools = await probe.tools()
    if not tools:
        raise NotApplicable("the server offers no tools")
    problems = []
    for tool in tools:
        for which, schema in (("inputSchema", tool.input_schema), ("outputSchema", tool.output_schema)):
            if schema is None:
                continue
            found = schema_problems(schema)
            if found:
                problems.append(f"{tool.name} {which}: " + "; ".join(str(p) for p in found[:3]))
            elif not isinstance(schema, dict) or schema.get("type") != "object":
                problems.append(f"{tool.name} {which}: not `type: object`")
    fail_unless(problems, "a tool schema is invalid")
