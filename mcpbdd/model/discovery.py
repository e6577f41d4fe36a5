"""Assertions about how a server describes itself: what a client learns before its first call.

The description is plain JSON (`name`, `version`, `capabilities`, `instructions`, as the
harness read it from the `initialize` or `server/discover` answer). The expected document is a
subset with the JSON markers of `mcpbdd.model.matching`, so a scenario names only the parts its
readers care about and a server may declare more. Naming nothing, or a part no description has,
is a broken specification, not a pass.
"""

from __future__ import annotations

import json
from typing import Any

from mcpbdd.model import matching
from mcpbdd.model.errors import VacuousCheck

__all__ = ["DESCRIPTION_PARTS", "describes_itself"]

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
