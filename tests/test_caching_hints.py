"""Caching hints (SEP-2549): what each harness reads of a listing's or a read's `ttlMs`/`cacheScope`, and the checks.

The harness tests list the bundled notes server's tools on the context harness and the client
harness in both eras (2025-11-25 has no hints). The SDK's server cannot leave a hint out on
2026-07-28 (it refuses such a result), so the absent-hint failures are shown with the hints as
a harness hands them over from a server written without the SDK.
"""

from __future__ import annotations

from typing import Any

import pytest

from mcpbdd.checks import cache_hints as caching
from mcpbdd.checks.cache_hints import _refused, cache_hints, read_cache_hints
from mcpbdd.harness.base import CLIENT_REFUSED
from mcpbdd.kit.principals import Principal
from mcpbdd.model.caching import CacheHints
from mcpbdd.model.errors import VacuousCheck
from mcpbdd.model.outcome import Call, Channel, Outcome

ALICE = Principal("alice", "acme")
MODERN = "2026-07-28"


@pytest.mark.anyio
async def test_each_harness_reads_the_tools_lists_hints_on_the_era_that_has_them(notes_harness: Any) -> None:
    hints = await cache_hints(notes_harness, ALICE, "tools/list")
    if getattr(notes_harness, "mode", None) == "legacy":
        assert not hints.has_hints and hints.era == "2025-11-25"
        return
    assert hints == CacheHints("tools/list", MODERN, 300_000, "private")
    caching.may_be_cached_for(hints, 300)
    caching.may_be_cached_privately(hints)
    resources = await cache_hints(notes_harness, ALICE, "resources/list")
    caching.may_be_cached_for(resources, 0)


def test_an_absent_ttl_fails_naming_the_method() -> None:
    with pytest.raises(AssertionError) as failure:
        caching.may_be_cached_for(CacheHints("prompts/list", MODERN, None, "private"), 60)
    message = str(failure.value)
    assert "Expected a ttlMs caching hint, but the prompts/list result (on 2026-07-28) carried no ttlMs" in message
    assert "every prompts/list result must say how long a client may keep it" in message


def test_an_absent_scope_fails_naming_the_method() -> None:
    with pytest.raises(
        AssertionError, match=r"the resources/templates/list result .* carried ttlMs 0 and no cacheScope"
    ):
        caching.may_be_cached_privately(CacheHints("resources/templates/list", MODERN, 0, None))


def test_another_time_or_scope_fails_saying_what_arrived() -> None:
    public = CacheHints("tools/list", MODERN, 1_500, "public")
    with pytest.raises(AssertionError, match=r"Expected ttlMs 2000 \(2 seconds\), but .* carried ttlMs 1500"):
        caching.may_be_cached_for(public, 2)
    with pytest.raises(AssertionError, match=r"Expected cacheScope 'private', but .*cacheScope 'public'"):
        caching.may_be_cached_privately(public)
    with pytest.raises(VacuousCheck):
        caching.may_be_cached_for(public, -1)


@pytest.mark.anyio
async def test_each_harness_reads_a_reads_hints_on_the_era_that_has_them(notes_harness: Any) -> None:
    created = await notes_harness.send(ALICE, Call.tool("create_note", {"title": "Milk", "body": "2 l"}))
    assert created.ok, created.describe()
    read = await notes_harness.send(ALICE, Call.resource("notes://n-1"))
    hints = await read_cache_hints(notes_harness, ALICE, read)
    if getattr(notes_harness, "mode", None) == "legacy":
        assert not hints.has_hints and hints.era == "2025-11-25"
        return
    assert hints == CacheHints("resources/read", MODERN, 60_000, "private", target="notes://n-1")
    caching.may_be_cached_for(hints, 60)
    with pytest.raises(AssertionError, match=r"Expected ttlMs 30000 .* resources/read result for 'notes://n-1'"):
        caching.may_be_cached_for(hints, 30)


@pytest.mark.anyio
async def test_a_reads_hints_need_a_read_that_was_answered(notes_harness: Any) -> None:
    listed = await notes_harness.send(ALICE, Call.tool("list_notes"))
    with pytest.raises(VacuousCheck, match=r"The last call was tools/call 'list_notes', not a read"):
        await read_cache_hints(notes_harness, ALICE, listed)
    missing = await notes_harness.send(ALICE, Call.resource("notes://n-404"))
    if getattr(notes_harness, "mode", None) == "legacy":
        return  # no hints on 2025-11-25: nothing is asked of the read
    with pytest.raises(AssertionError, match=r"failed with the protocol error -32602 .*only a read that was answered"):
        await read_cache_hints(notes_harness, ALICE, missing)


def test_a_read_the_client_refused_for_want_of_hints_names_the_fields() -> None:
    refused = Outcome(
        Channel.TRANSPORT_FAILURE,
        Call.resource("clean://milk"),
        failure=f"{CLIENT_REFUSED}ValidationError: 3 validation errors for union\nReadResourceResult.ttlMs\n  Field "
        "required [type=missing]\nReadResourceResult.cacheScope\n  Field required\nInputRequiredResult.resultType\n"
        "  Field required",
    )
    assert _refused(refused) == "cacheScope, ttlMs"
