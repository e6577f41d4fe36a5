"""What a server offers a client: its tools, resources, resource templates and prompts, through either harness.

The coverage of a run is measured against this (what was offered vs. what the scenarios
did). The context harness asks the in-process server's own listing; the client harness asks
over its connection, as a client would (every page).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from mcp_types import METHOD_NOT_FOUND

from mcpbdd.harness.base import Harness, ServerError, bounded
from mcpbdd.harness.client import ClientHarness
from mcpbdd.harness.context import ContextHarness
from mcpbdd.kit.principals import Principal

__all__ = ["Offered", "list_offered", "list_templates", "template_pattern"]

TEMPLATES = "resources/templates/list"


@dataclass
class Offered:
    """The server's listing, as plain JSON where coverage needs it."""

    tools: dict[str, dict[str, Any]] = field(default_factory=dict)
    """Tool name -> its input schema."""
    resources: list[str] = field(default_factory=list)
    templates: list[str] = field(default_factory=list)
    prompts: dict[str, list[str]] = field(default_factory=dict)
    """Prompt name -> its argument names."""


async def _pages(list_page: Any, method: str, timeout: float) -> list[Any]:
    """Every page of a listing; a server that does not serve the kind (MethodNotFound) offers none.

    Any other error is the server's failure, naming the listing (`ServerError`): a listing that breaks
    must not read as an empty one.
    """
    items: list[Any] = []
    cursor: str | None = None
    while True:
        try:
            page = await bounded(method, timeout, list_page(cursor=cursor))
        except ServerError as exc:
            if exc.code == METHOD_NOT_FOUND:
                return items
            raise
        items += getattr(page, "tools", None) or getattr(page, "resources", None) or []
        items += getattr(page, "resource_templates", None) or getattr(page, "prompts", None) or []
        cursor = page.next_cursor
        if not cursor:
            return items


async def list_offered(harness: Harness, caller: Principal | None) -> Offered:
    """List everything `harness`'s server offers `caller` (a harness of another kind offers only its tools)."""
    tools = await harness.list_tools(caller)
    resources: list[Any] = []
    templates: list[Any] = []
    prompts: list[Any] = []
    if isinstance(harness, ContextHarness):
        resources = list(await harness.server.list_resources())
        templates = list(await harness.server.list_resource_templates())
        prompts = list(await harness.server.list_prompts())
    elif isinstance(harness, ClientHarness):
        client = await harness.session(caller)
        capabilities = getattr(client, "server_capabilities", None)
        if capabilities is None or getattr(capabilities, "resources", None) is not None:
            resources = await _pages(client.list_resources, "resources/list", harness.timeout)
            templates = await _pages(client.list_resource_templates, TEMPLATES, harness.timeout)
        if capabilities is None or getattr(capabilities, "prompts", None) is not None:
            prompts = await _pages(client.list_prompts, "prompts/list", harness.timeout)
    return Offered(
        tools={tool.name: dict(tool.input_schema or {}) for tool in tools},
        resources=sorted(str(resource.uri) for resource in resources),
        templates=sorted(template.uri_template for template in templates),
        prompts={prompt.name: [argument.name for argument in prompt.arguments or ()] for prompt in prompts},
    )


async def list_templates(harness: Harness, caller: Principal | None) -> list[str]:
    """The URI templates of the resource templates `harness`'s server offers `caller`, in its order (every page)."""
    if isinstance(harness, ContextHarness):
        return [template.uri_template for template in await harness.server.list_resource_templates()]
    if isinstance(harness, ClientHarness):
        client = await harness.session(caller)
        capabilities = getattr(client, "server_capabilities", None)
        if capabilities is not None and getattr(capabilities, "resources", None) is None:
            return []  # a server without the resources capability offers no templates (a client would not ask)
        return [
            template.uri_template
            for template in await _pages(client.list_resource_templates, TEMPLATES, harness.timeout)
        ]
    raise TypeError(f"a {type(harness).__name__} cannot list what its server offers")


_EXPRESSION = re.compile(r"\{([+#./;?&]?)([^}]*)\}")


def template_pattern(template: str) -> re.Pattern[str]:
    """A regular expression matching the URIs an RFC 6570 template expands to (simple, reserved and query forms)."""
    parts: list[str] = []
    last = 0
    for match in _EXPRESSION.finditer(template):
        parts.append(re.escape(template[last : match.start()]))
        operator = match.group(1)
        if operator in ("+", "#"):
            parts.append(".+")
        elif operator in ("?", "&"):
            parts.append(r"(?:[?&][^#]*)?")
        else:
            parts.append(r"[^/?#]+")
        last = match.end()
    parts.append(re.escape(template[last:]))
    return re.compile("".join(parts) + r"\Z")
