"""How a server describes itself (its `initialize` or `server/discover` answer), through either harness, and the check
of it (`mcpbdd/steps/discovery.py`).

A product owner specifies what a client learns before it makes any call: the server's name and
version, the capabilities it declares and the instructions it gives the model. The client harness
reads what its connection negotiated (2025-11-25: the `initialize` result; 2026-07-28: the
`server/discover` result and the `serverInfo` stamp); the context harness asks the in-process
server for the same answer its runner would send on the harness's era.

The description is plain JSON (`name`, `version`, `capabilities`, `instructions`). The expected document is a
subset with the JSON markers of `mcpbdd.model.matching`, so a scenario names only the parts its
readers care about and a server may declare more. Naming nothing, or a part no description has,
is a broken specification, not a pass.
"""

from __future__ import annotations

import json
from typing import Any

from mcp_types import ServerCapabilities
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from mcpbdd._sdk import lowlevel_server
from mcpbdd.harness.base import Harness
from mcpbdd.harness.client import ClientHarness
from mcpbdd.harness.context import ContextHarness
from mcpbdd.kit.principals import Principal
from mcpbdd.model import matching
from mcpbdd.model.errors import VacuousCheck

__all__ = ["DESCRIPTION_PARTS", "describe", "describes_itself"]


def _description(
    name: str | None, version: str | None, capabilities: ServerCapabilities, instructions: str | None
) -> dict[str, Any]:
    """The description as plain JSON in the wire's spelling (`listChanged`), absent parts left out."""
    described: dict[str, Any] = {"capabilities": capabilities.model_dump(mode="json", by_alias=True, exclude_none=True)}
    if name is not None:
        described["name"] = name
    if version is not None:
        described["version"] = version
    if instructions is not None:
        described["instructions"] = instructions
    return described


async def describe(harness: Harness, caller: Principal | None) -> dict[str, Any]:
    """What `harness`'s server tells `caller` about itself: name, version, capabilities, instructions."""
    if isinstance(harness, ClientHarness):
        client = await harness.session(caller)
        info = client.server_info
        return _description(
            info.name if info else None, info.version if info else None, client.server_capabilities, client.instructions
        )
    if isinstance(harness, ContextHarness):
        lowlevel = lowlevel_server(harness.server)
        era = harness.mock.protocol_version
        if era in MODERN_PROTOCOL_VERSIONS:
            capabilities = lowlevel.get_capabilities(protocol_version=era)
        else:
            capabilities = lowlevel.create_initialization_options().capabilities
        return _description(lowlevel.name, lowlevel.version, capabilities, lowlevel.instructions)
    raise TypeError(f"a {type(harness).__name__} cannot say how its server describes itself")


DESCRIPTION_PARTS = ("name", "version", "capabilities", "instructions")
"""What a server's description holds (its `serverInfo` name and version, `capabilities`, `instructions`)."""


def describes_itself(description: dict[str, Any], expected: Any) -> None:
    """The server's description contains `expected` (subset matching, markers allowed)."""
    if not isinstance(expected, dict) or not expected:
        raise VacuousCheck(
            f"The expected description is {json.dumps(expected)}, but a server describes itself with a JSON object "
            f"of {', '.join(DESCRIPTION_PARTS)}: name the parts that matter, e.g. "
            '{"name": "notes", "capabilities": {"prompts": {}}}'
        )
    unknown = sorted(set(expected) - set(DESCRIPTION_PARTS))
    if unknown:
        raise VacuousCheck(
            f"A server's description has no {', '.join(map(repr, unknown))}: it holds {', '.join(DESCRIPTION_PARTS)}"
        )
    matching.assert_contains(expected, description, what="server's description of itself")
