"""mcpbdd: Gherkin specifications for MCP servers, on the official MCP Python SDK.

The public front: everything a pytest user or a project's own steps need, importable from here:

    from mcpbdd import ClientHarness, ContextHarness, Principal, expect, answers

Names load on first use (PEP 562), so `import mcpbdd.kit.consent` in a production server loads
the kit alone, never the harnesses, behave, hypothesis or allure behind the names below; and behave
starts without them.

Where the rest lives, top layer first (pyproject.toml's layers contract holds the order):
`mcpbdd.cli` (the command line), `mcpbdd.runner` (the run's machinery), `mcpbdd.behave` (the hooks),
`mcpbdd.phrases` (the vocabulary's listing), `mcpbdd.steps` (the vocabulary), `mcpbdd.record` and
`mcpbdd.conformance`, `mcpbdd.reporting`, `mcpbdd.scenario`
(the World and the run's loop), `mcpbdd.checks` (what each phrase asserts, contracts, generated calls,
the error catalog),
`mcpbdd.harness` (the two harnesses, connectors, targets and server processes), `mcpbdd.upstream`
(outbound HTTP doubles), `mcpbdd.model` (outcomes, trace, matching, settings, errors),
then `mcpbdd.kit` and `mcpbdd.storage` (what a production server imports).
"""

from __future__ import annotations

import importlib
import warnings
from typing import TYPE_CHECKING, Any, Final

from mcpbdd._version import __version__ as __version__

# The public names, stated once at run time in the two literal maps below; `__getattr__` loads each on first use,
# so a production server importing `mcpbdd.kit` pays nothing for the rest. The imports in the TYPE_CHECKING block
# never run: they tell type checkers and editors the same names (`X as X` marks a re-export), and
# tests/test_layout.py fails when the block and the maps say different things.
if TYPE_CHECKING:
    from mcpbdd.checks import expect as expect
    from mcpbdd.checks import progress as progress
    from mcpbdd.checks.cancellation import was_cancelled as was_cancelled
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
    from mcpbdd.load import run_load as run_load
    from mcpbdd.locust.runner import LocustOptions as LocustOptions
    from mcpbdd.locust.runner import run_locust as run_locust
    from mcpbdd.locust.scenario import run_on_locust as run_on_locust
    from mcpbdd.model import answers as answers
    from mcpbdd.model import matching as matching
    from mcpbdd.model.cancellation import CancelPlan as CancelPlan
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
    from mcpbdd.model.trace import ExchangeRecorded as ExchangeRecorded
    from mcpbdd.scenario.conversation import RoundAnswered as RoundAnswered
    from mcpbdd.scenario.runtime import RunLoop as RunLoop
    from mcpbdd.scenario.world import World as World
    from mcpbdd.storage import StorageService as StorageService
    from mcpbdd.upstream import Upstream as Upstream

_MODULES: Final = {
    "answers": "mcpbdd.model.answers",
    "expect": "mcpbdd.checks.expect",
    "matching": "mcpbdd.model.matching",
    "progress": "mcpbdd.checks.progress",
}
"""The modules the front names: the answers a scenario gives, the checks the steps make on outcomes and on
progress reports, the JSON matcher. Name -> the module itself."""

_NAMES: Final = {
    "CancelPlan": "mcpbdd.model.cancellation",
    "Call": "mcpbdd.model.outcome",
    "Channel": "mcpbdd.model.outcome",
    "ClientHarness": "mcpbdd.harness",
    "ContextHarness": "mcpbdd.harness",
    "Doubles": "mcpbdd.kit.doubles",
    "ExchangeRecorded": "mcpbdd.model.trace",
    "FrozenClock": "mcpbdd.kit.clock",
    "Harness": "mcpbdd.harness",
    "Http": "mcpbdd.harness.connectors",
    "InProcess": "mcpbdd.harness.connectors",
    "LocustOptions": "mcpbdd.locust.runner",
    "MockContext": "mcpbdd.harness",
    "NoCallYet": "mcpbdd.model.errors",
    "Outcome": "mcpbdd.model.outcome",
    "Principal": "mcpbdd.kit.principals",
    "Progress": "mcpbdd.model.outcome",
    "ProtocolError": "mcpbdd.model.outcome",
    "Question": "mcpbdd.model.outcome",
    "RequestTimeout": "mcpbdd.harness",
    "RoundAnswered": "mcpbdd.scenario.conversation",
    "RunLoop": "mcpbdd.scenario.runtime",
    "Settings": "mcpbdd.model.config",
    "Stdio": "mcpbdd.harness.connectors",
    "StorageService": "mcpbdd.storage",
    "SystemClock": "mcpbdd.kit.clock",
    "Upstream": "mcpbdd.upstream",
    "World": "mcpbdd.scenario.world",
    "acting_as": "mcpbdd.kit.principals",
    "run_load": "mcpbdd.load",
    "run_locust": "mcpbdd.locust.runner",
    "run_on_locust": "mcpbdd.locust.scenario",
    "scenario_doubles": "mcpbdd.kit.doubles",
    "was_cancelled": "mcpbdd.checks.cancellation",
}
"""Every other public name -> the module it is imported from."""

_OLD_NAMES: Final = {"events": "progress"}
"""Names the front used to offer -> the name that now holds the same thing. `mcpbdd.events` was the progress checks;
"events" means what a server sends on its own (progress, log messages, announcements) everywhere else."""

__all__ = ["__version__", *_MODULES, *_NAMES]


def __getattr__(name: str) -> Any:
    """Load a public name from its module on first use, and keep it (later lookups skip this)."""
    if name in _OLD_NAMES:
        new = _OLD_NAMES[name]
        warnings.warn(f"mcpbdd.{name} is now mcpbdd.{new} (same module)", DeprecationWarning, stacklevel=2)
        return __getattr__(new)
    if name in _MODULES:
        value: Any = importlib.import_module(_MODULES[name])
    elif name in _NAMES:
        value = getattr(importlib.import_module(_NAMES[name]), name)
    else:
        raise AttributeError(f"module 'mcpbdd' has no attribute {name!r}")
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(__all__)
