"""The caching hints (SEP-2549) of a server's listings, through either harness.

The client harness lists over its connection and keeps what the wire carried (a field the
result left out reads as absent, not as the SDK's default; an answer the SDK's client refuses,
as it refuses a 2026-07-28 list result without hints, is reported as refused). The context harness has no wire:
it reports what the SDK's runner would send for the in-process server on the harness's era,
the server's `cache_hints` for the method or, where it declares none, the defaults every SDK
result carries (`ttlMs` 0, `cacheScope` "private").
"""

from __future__ import annotations

from typing import Any

from mcp_types import CacheableResult
from pydantic import ValidationError

from mcpbdd._sdk import lowlevel_server
from mcpbdd.harness.base import Harness, bounded
from mcpbdd.harness.client import ClientHarness
from mcpbdd.harness.context import ContextHarness
from mcpbdd.kit.principals import Principal, acting_as
from mcpbdd.model.caching import CacheHints

__all__ = ["cache_hints"]

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
            fields = ", ".join(sorted({".".join(str(p) for p in error["loc"]) or "$" for error in exc.errors()}))
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
