"""mcpbdd: Gherkin specifications for MCP servers, on the official MCP Python SDK.

The public front: everything a pytest user or a project's own steps need, importable from here:

    from mcpbdd import ClientHarness, ContextHarness, Principal, expect, answers

Names load on first use (PEP 562), so `import mcpbdd.kit.consent` in a production server loads
the kit alone, never the harnesses, behave, hypothesis or allure behind the names below.

Where the rest lives: `mcpbdd.kit` (what a production server imports), `mcpbdd.storage`
(tenant-scoped storage), `mcpbdd.harness` (the two harnesses and their connectors),
`mcpbdd.upstream` (outbound HTTP doubles), `mcpbdd.checks` (contracts, generated calls, the
error catalog), `mcpbdd.reporting`, `mcpbdd.cli`, `mcpbdd.steps` and `mcpbdd.behave` (the behave
vocabulary and hooks).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

# name -> the module that defines it (a module itself when the name is the module's).
_WHERE: dict[str, str] = {
    "World": "mcpbdd.world",
    "NoCallYet": "mcpbdd.world",
    "Call": "mcpbdd.outcome",
    "Outcome": "mcpbdd.outcome",
    "Channel": "mcpbdd.outcome",
    "ProtocolError": "mcpbdd.outcome",
    "Question": "mcpbdd.outcome",
    "Harness": "mcpbdd.harness",
    "ContextHarness": "mcpbdd.harness",
    "ClientHarness": "mcpbdd.harness",
    "MockContext": "mcpbdd.harness",
    "RequestTimeout": "mcpbdd.harness",
    "InProcess": "mcpbdd.harness.connectors",
    "Stdio": "mcpbdd.harness.connectors",
    "Http": "mcpbdd.harness.connectors",
    "Principal": "mcpbdd.principals",
    "acting_as": "mcpbdd.principals",
    "Doubles": "mcpbdd.kit.doubles",
    "scenario_doubles": "mcpbdd.kit.doubles",
    "FrozenClock": "mcpbdd.kit.clock",
    "SystemClock": "mcpbdd.kit.clock",
    "Settings": "mcpbdd.config",
    "RunLoop": "mcpbdd.runtime",
    "Upstream": "mcpbdd.upstream",
    "StorageService": "mcpbdd.storage",
    "expect": "mcpbdd.expect",
    "answers": "mcpbdd.answers",
    "matching": "mcpbdd.matching",
}

__all__ = [
    "__version__",
    "Call",
    "Channel",
    "ClientHarness",
    "ContextHarness",
    "Doubles",
    "FrozenClock",
    "Harness",
    "Http",
    "InProcess",
    "MockContext",
    "NoCallYet",
    "Outcome",
    "Principal",
    "ProtocolError",
    "Question",
    "RequestTimeout",
    "RunLoop",
    "Settings",
    "Stdio",
    "StorageService",
    "SystemClock",
    "Upstream",
    "World",
    "acting_as",
    "answers",
    "expect",
    "matching",
    "scenario_doubles",
]

if TYPE_CHECKING:  # what type checkers and editors see; at run time `__getattr__` loads on first use
    from mcpbdd import answers, expect, matching
    from mcpbdd.config import Settings
    from mcpbdd.harness import ClientHarness, ContextHarness, Harness, MockContext, RequestTimeout
    from mcpbdd.harness.connectors import Http, InProcess, Stdio
    from mcpbdd.kit.clock import FrozenClock, SystemClock
    from mcpbdd.kit.doubles import Doubles, scenario_doubles
    from mcpbdd.outcome import Call, Channel, Outcome, ProtocolError, Question
    from mcpbdd.principals import Principal, acting_as
    from mcpbdd.runtime import RunLoop
    from mcpbdd.storage import StorageService
    from mcpbdd.upstream import Upstream
    from mcpbdd.world import NoCallYet, World


def __getattr__(name: str) -> Any:
    """Load a public name from its module on first use, and keep it (later lookups skip this)."""
    where = _WHERE.get(name)
    if where is None:
        raise AttributeError(f"module 'mcpbdd' has no attribute {name!r}")
    module = importlib.import_module(where)
    value = module if where == f"mcpbdd.{name}" else getattr(module, name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(__all__)
