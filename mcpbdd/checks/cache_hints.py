"""The caching hints (SEP-2549) of a server's listings and of a read: how either harness gets them, and the checks
of them (`mcpbdd/steps/discovery.py`); what a hint is (`CacheHints`) is data, in `mcpbdd.model.caching`.

On 2026-07-28 every list result and every read result carries `ttlMs` (how long it stays fresh) and `cacheScope`
(`public`: any client may share it; `private`: only the authorization context that got it). A
server that leaves them out makes every client guess, so an absent hint fails naming the
method. 2025-11-25 has no caching hints: the steps skip there, saying so.

The client harness lists over its connection and keeps what the wire carried (a field the
result left out reads as absent, not as the SDK's default; an answer the SDK's client refuses,
as it refuses a 2026-07-28 list result without hints, is reported as refused). The context harness has no wire:
it reports what the SDK's runner would send for the in-process server on the harness's era,
the server's `cache_hints` for the method or, where it declares none, the defaults every SDK
result carries (`ttlMs` 0, `cacheScope` "private"). A read's hints are those of the read the
scenario made (its Outcome): what the wire carried on the client harness; on the context harness
what the handler set, else the server's `cache_hints` for `resources/read`, else the defaults.
"""

from __future__ import annotations

import re
from typing import Any

from mcp_types import CacheableResult, ReadResourceResult
from mcp_types.version import MODERN_PROTOCOL_VERSIONS
from pydantic import ValidationError

from mcpbdd._sdk import lowlevel_server
from mcpbdd.harness.base import CLIENT_REFUSED, Harness, bounded
from mcpbdd.harness.client import ClientHarness
from mcpbdd.harness.context import ContextHarness
from mcpbdd.kit.principals import Principal, acting_as
from mcpbdd.model.caching import READ, CacheHints
from mcpbdd.model.errors import VacuousCheck
from mcpbdd.model.outcome import RESOURCES_READ, Outcome

__all__ = [
    "cache_hints",
    "may_be_cached_for",
    "may_be_cached_privately",
    "may_be_cached_publicly",
    "read_cache_hints",
]

_SDK_DEFAULTS = CacheableResult()
"""What an SDK server sends for a result whose handler set no hint and whose server declares none."""


async def cache_hints(harness: Harness, caller: Principal | None, method: str) -> CacheHints:
    """The hints on `method`'s first page as `caller` gets it (`tools/list`, `resources/list`, ...)."""
    if isinstance(harness, ClientHarness):
        client = await harness.session(caller)
        listings: dict[str, Any] = {
            "tools/list": client.list_tools,
            "resources/list": client.list_resources,
            "prompts/list": client.list_prompts,
            "resources/templates/list": client.list_resource_templates,
        }
        try:
            with acting_as(caller, harness.tenant_claim):
                page = await bounded(method, harness.timeout, listings[method]())
        except ValidationError as exc:  # the SDK client cannot accept the answer (a hint left out): what a client sees
            fields = _fields(".".join(str(p) for p in error["loc"]) or "$" for error in exc.errors())
            return CacheHints(method, client.protocol_version, None, None, refused=fields)
        sent = page.model_fields_set
        return CacheHints(
            method,
            client.protocol_version,
            page.ttl_ms if "ttl_ms" in sent else None,
            page.cache_scope if "cache_scope" in sent else None,
        )
    if isinstance(harness, ContextHarness):
        declared = lowlevel_server(harness.server).cache_hints.get(method)
        era = harness.mock.protocol_version
        if declared is None:
            return CacheHints(method, era, _SDK_DEFAULTS.ttl_ms, _SDK_DEFAULTS.cache_scope)
        return CacheHints(method, era, declared.ttl_ms, declared.scope)
    raise TypeError(f"a {type(harness).__name__} cannot list what its server offers")


def _fields(locations: Any) -> str:
    """The fields a refused answer lacked or got wrong, as a failure names them (`cacheScope, ttlMs`)."""
    return ", ".join(sorted(set(locations)))


_LOCATION = re.compile(r"^(?P<loc>[A-Za-z_$][\w.$]*)$", re.MULTILINE)
"""A field's line in pydantic's text of a ValidationError (its messages are indented below it)."""


def _refused(outcome: Outcome) -> str | None:
    """The fields of the answer the SDK's client refused for this read (its text is all the Outcome keeps), or None."""
    failure = outcome.failure or ""
    if not failure.startswith(CLIENT_REFUSED + "ValidationError"):
        return None
    located = [found["loc"] for found in _LOCATION.finditer(failure.split("\n", 1)[-1])]
    return _fields(_field(location) for location in located if not location.startswith("InputRequiredResult.")) or "$"


def _field(location: str) -> str:
    """A location without the union member it was checked against (`ReadResourceResult.ttlMs` -> `ttlMs`)."""
    model, _, rest = location.partition(".")
    return rest if rest and model[:1].isupper() else location


async def read_cache_hints(harness: Harness, caller: Principal | None, outcome: Outcome) -> CacheHints:
    """The hints on the result of the read `outcome` answered, made as `caller` (a call of another kind is a broken
    specification: only a read's hints are asked for)."""
    if outcome.method != RESOURCES_READ:
        raise VacuousCheck(
            f"The last call was {outcome.request_line}, not a read, so there is no read whose caching hints to check: "
            "put 'When the client reads the resource \"...\"' just before this step"
        )
    if isinstance(harness, ClientHarness):
        era = (await harness.session(caller)).protocol_version
    elif isinstance(harness, ContextHarness):
        era = harness.mock.protocol_version
    else:
        raise TypeError(f"a {type(harness).__name__} cannot tell the caching hints of a read")
    if era not in MODERN_PROTOCOL_VERSIONS:
        return CacheHints(READ, era, None, None, target=outcome.target)  # no hints on this era: the steps skip
    refused = _refused(outcome)
    if refused is not None:
        return CacheHints(READ, era, None, None, refused=refused, target=outcome.target)
    result = outcome.result
    if not isinstance(result, ReadResourceResult):
        raise AssertionError(
            f"Expected the read to say how long it may be cached, but {outcome.describe()}: only a read that was "
            "answered carries caching hints"
        )
    sent = result.model_fields_set
    ttl, scope = (result.ttl_ms if "ttl_ms" in sent else None), (result.cache_scope if "cache_scope" in sent else None)
    if isinstance(harness, ContextHarness):  # no wire: what the SDK's runner would fill in (`cache_hints` or defaults)
        declared = lowlevel_server(harness.server).cache_hints.get(READ)
        ttl = ttl if ttl is not None else (declared.ttl_ms if declared is not None else _SDK_DEFAULTS.ttl_ms)
        scope = scope if scope is not None else (declared.scope if declared is not None else _SDK_DEFAULTS.cache_scope)
    return CacheHints(READ, era, ttl, scope, target=outcome.target)


def _present(hints: CacheHints, field: str, value: object) -> None:
    """A 2026-07-28 result without the hint fails naming the method: a client cannot tell how long to keep it."""
    if value is None or hints.refused is not None:
        raise AssertionError(
            f"Expected a {field} caching hint, but {hints}: on {hints.era} every {hints.method} result must say "
            "how long a client may keep it and who may share it (SEP-2549)"
        )


def may_be_cached_for(hints: CacheHints, seconds: int) -> None:
    """The result stays fresh for exactly `seconds` (`ttlMs` = seconds x 1000)."""
    if seconds < 0:
        raise VacuousCheck(f"No result can be cached for {seconds} seconds: write a number of seconds from 0 up")
    _present(hints, "ttlMs", hints.ttl_ms)
    if hints.ttl_ms != seconds * 1000:
        raise AssertionError(f"Expected ttlMs {seconds * 1000} ({seconds} seconds), but {hints}")


def may_be_cached_privately(hints: CacheHints) -> None:
    """Only the authorization context that got the result may reuse it (`cacheScope: private`)."""
    _present(hints, "cacheScope", hints.scope)
    if hints.scope != "private":
        raise AssertionError(f"Expected cacheScope 'private', but {hints}")


def may_be_cached_publicly(hints: CacheHints) -> None:
    """Any client may share the result (`cacheScope: public`): only for what is the same for every caller."""
    _present(hints, "cacheScope", hints.scope)
    if hints.scope != "public":
        raise AssertionError(
            f"Expected cacheScope 'public', but {hints}: a client may keep it only for the caller who got it"
        )
