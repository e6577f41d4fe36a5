"""mcpbdd: Gherkin specifications for MCP servers, on the official MCP Python SDK.

The public front: everything a pytest user or a project's own steps need, importable from here:

    from mcpbdd import ClientHarness, ContextHarness, Principal, expect, answers

Names load on first use (PEP 562), so `import mcpbdd.kit.consent` in a production server loads
the kit alone, never the harnesses, behave, hypothesis or allure behind the names below.

Where the rest lives, top layer first (pyproject.toml's layers contract holds the order):
`mcpbdd.cli` (the command line), `mcpbdd.behave` (the hooks), `mcpbdd.phrases` (the vocabulary's
listing), `mcpbdd.steps` (the vocabulary), `mcpbdd.reporting` and `mcpbdd.record`, `mcpbdd.scenario`
(the World and the run's loop), `mcpbdd.checks` (contracts, generated calls, the error catalog),
`mcpbdd.harness` (the two harnesses, connectors, targets and server processes), `mcpbdd.upstream`
(outbound HTTP doubles), `mcpbdd.model` (outcomes, trace, matching, expectations, settings, errors),
then `mcpbdd.kit` and `mcpbdd.storage` (what a production server imports).
"""

from __future__ import annotations

import functools
import importlib
import importlib.util
from typing import TYPE_CHECKING, Any

from mcpbdd._version import __version__ as __version__

# The public names, stated once: these imports are what type checkers and editors see (`X as X` marks a
# re-export), and at run time `_public_names` reads them from this file on first use (they never run), so
# `__getattr__`, `__all__` and `dir()` cannot drift from them. Reading waits for first use so that a production
# server importing `mcpbdd.kit` pays nothing for it.
if TYPE_CHECKING:
    from mcpbdd.harness import (
        ClientHarness as ClientHarness,
    )
    from mcpbdd.harness import (
        ContextHarness as ContextHarness,
    )
    from mcpbdd.harness import (
        Harness as Harness,
    )
    from mcpbdd.harness import (
        MockContext as MockContext,
    )
    from mcpbdd.harness import (
        RequestTimeout as RequestTimeout,
    )
    from mcpbdd.harness.connectors import Http as Http
    from mcpbdd.harness.connectors import InProcess as InProcess
    from mcpbdd.harness.connectors import Stdio as Stdio
    from mcpbdd.kit.clock import FrozenClock as FrozenClock
    from mcpbdd.kit.clock import SystemClock as SystemClock
    from mcpbdd.kit.doubles import Doubles as Doubles
    from mcpbdd.kit.doubles import scenario_doubles as scenario_doubles
    from mcpbdd.kit.principals import Principal as Principal
    from mcpbdd.kit.principals import acting_as as acting_as
    from mcpbdd.model import answers as answers
    from mcpbdd.model import events as events
    from mcpbdd.model import expect as expect
    from mcpbdd.model import matching as matching
    from mcpbdd.model.config import Settings as Settings
    from mcpbdd.model.errors import NoCallYet as NoCallYet
    from mcpbdd.model.outcome import (
        Call as Call,
    )
    from mcpbdd.model.outcome import (
        Channel as Channel,
    )
    from mcpbdd.model.outcome import (
        Outcome as Outcome,
    )
    from mcpbdd.model.outcome import (
        Progress as Progress,
    )
    from mcpbdd.model.outcome import (
        ProtocolError as ProtocolError,
    )
    from mcpbdd.model.outcome import (
        Question as Question,
    )
    from mcpbdd.scenario.runtime import RunLoop as RunLoop
    from mcpbdd.scenario.world import World as World
    from mcpbdd.storage import StorageService as StorageService
    from mcpbdd.upstream import Upstream as Upstream


def _public_names(source: str) -> dict[str, str]:
    """name -> the module that defines it, read from the `if TYPE_CHECKING:` imports above.

    Checked when first read, as hypothesis checks its `strategies.__all__` at import: the block must hold nothing but
    `from mcpbdd... import name` lines, and no name twice; anything else is a mistake in this file.
    """
    import ast  # here, not at the top: importing the kit alone never pays for it

    where: dict[str, str] = {}
    for node in ast.parse(source).body:
        if isinstance(node, ast.If) and isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING":
            for statement in node.body:
                if not isinstance(statement, ast.ImportFrom) or not (statement.module or "").startswith("mcpbdd"):
                    raise ImportError(f"mcpbdd/__init__.py line {statement.lineno}: only `from mcpbdd... import`")
                for alias in statement.names:
                    if alias.asname != alias.name or alias.name in where:
                        raise ImportError(
                            f"mcpbdd/__init__.py line {statement.lineno}: {alias.name} twice, or not `as` itself"
                        )
                    where[alias.name] = statement.module or ""
    return where


@functools.cache
def _where() -> dict[str, str]:
    source = __loader__.get_source(__name__)  # type: ignore[name-defined]  # every loader of a .py has it
    if source is None:  # only a package stripped of its sources
        raise ImportError("mcpbdd/__init__.py is needed as source: its public names are read from it")
    return _public_names(source)


def __getattr__(name: str) -> Any:
    """Load a public name from its module on first use, and keep it (later lookups skip this).

    `__all__` is computed here too, so `from mcpbdd import *` lists exactly the names above.
    """
    if name == "__all__":
        return ["__version__", *sorted(_where())]
    where = _where().get(name)
    if where is None:
        raise AttributeError(f"module 'mcpbdd' has no attribute {name!r}")
    module = importlib.import_module(where)
    if hasattr(module, "__path__") and importlib.util.find_spec(f"{where}.{name}") is not None:
        value: Any = importlib.import_module(f"{where}.{name}")  # a module of the package (`expect`)
    else:
        value = getattr(module, name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return ["__version__", *sorted(_where())]
