"""The World: everything one scenario knows, created fresh for it and closed after it.

Principals and tenants, the harness and its sessions (owned by the scenario's owner task),
the trace of every exchange and the outcome of the last call, the scenario's doubles
(storage, clock, upstream routes) and the values it remembered. All of that is the World's
and goes with it, so one scenario's state cannot leak into the next, and parallel jobs
(processes of their own) share nothing but read-only settings. Which harness the World
opens for its target, over which connector, is `mcpbdd.scenario.servers`.

What does outlive a scenario, and why, is what keeps servers cheap to start and never
what a scenario set up:

- the run's event loop (`runtime.RunLoop`, one per behave process), on which each
  scenario's owner task runs: an `mcp.Client` must be entered and exited in one task;
- `SharedServers` (`mcpbdd.scenario.shared`), with `reuse_server = "feature"`: server processes (and their
  sessions) kept for the whole feature by the feature's owner task, because a start can take a second;
  keeping their state apart between the feature's scenarios is the server's business (its tools, or the
  storage adapter);
- module state in `mcpbdd.harness.processes.spawn` (a warm fork server per entry point,
  directory and interpreter settings, kept for the run so each scenario's process is a fork
  of it; the line saying how servers start, printed once per process) and in
  `mcpbdd.harness.processes.spare` (stdio processes started ahead for the next scenarios,
  and the reasons a spare was not used, said once): both stopped when the run ends (`stop_all`,
  from behave's `after_all` and at exit);
- the doubles files `mcpbdd.harness.handover` reserves for those spares: each is new and empty, and handed to
  the next scenario that places its doubles in a file, which then owns it (a spare was started with its path).

The World's methods are synchronous (a step calls them and they drive the run's loop for
just that call); for async code use the harnesses (`ContextHarness`, `ClientHarness`).

The World is made of parts by concern, each a class in a module of its own, stacked in this order
(each may use the ones before it): `world_state` (the attributes, declared), `world_callers`,
`world_doubles` (storage, clock, upstream), `world_server` (configuration, the harness, the run's loop),
`world_calls`, `world_questions` (contracts, completions, caching hints), `world_rounds` (calls that ask
for input). This module puts them together, sets the state and closes it.
"""

from __future__ import annotations

from typing import Any

from mcpbdd.authorization.scenario import ScenarioAuthorization
from mcpbdd.harness.base import Harness
from mcpbdd.harness.handover import Placement
from mcpbdd.kit.principals import Directory
from mcpbdd.model.cancellation import CancelPlan
from mcpbdd.model.completions import Completions
from mcpbdd.model.config import Settings
from mcpbdd.model.errors import ServerCannotStart
from mcpbdd.model.kinds import check_capabilities, client_mode, harness_kind
from mcpbdd.model.outcome import Outcome
from mcpbdd.model.trace import EventBus, Trace
from mcpbdd.scenario.conversation import InputRounds
from mcpbdd.scenario.journal import Journal
from mcpbdd.scenario.listens import Listens
from mcpbdd.scenario.remembered import Remembered
from mcpbdd.scenario.runtime import ScenarioOwner
from mcpbdd.scenario.shared import SharedServers
from mcpbdd.scenario.world_rounds import WorldRounds
from mcpbdd.storage import StorageAdapter
from mcpbdd.upstream import Upstream


class World(WorldRounds):
    """One scenario's state. Configure it (server, harness, callers), then call and inspect."""

    def __init__(self, settings: Settings, owner: ScenarioOwner, *, shared: SharedServers | None = None) -> None:
        self.settings = settings
        self.owner = owner
        self.shared = shared
        self.directory = Directory()
        self.bus = self.events = EventBus()
        """Where the scenario tells what happens: `ExchangeRecorded`, `RoundAnswered` (`events`: its old name)."""
        self.trace = Trace(events=self.bus)
        self.outcomes: list[Outcome] = []
        self.server_target: str | None = settings.server
        self.harness_kind = harness_kind(settings.harness)
        self.client_mode = client_mode(settings.client_mode)
        self.capabilities: frozenset[str] = frozenset(check_capabilities(settings.capabilities))
        self._harness: Harness | None = None
        self._tool_names: list[str] | None = None
        self.completions: Completions | None = None
        """The last `completion/complete` answer (`complete`)."""
        self.upstream = Upstream()
        """The route table answering the server's outbound HTTP (`Given the upstream ... answers ...`)."""
        self._placement: Placement | None = None
        self._adapter: StorageAdapter | None = None
        self._place_doubles()
        self.baseline: dict[str, dict[str, Any]] | None = None
        """Every tenant's storage just before the first When step (what "is unchanged" compares with)."""
        self.input_rounds = InputRounds(self._resume, self._record, self.bus, max_rounds=settings.max_rounds)
        """Drives the rounds of calls that ask for input (the plan, the open conversation, replays)."""
        self.remembered = Remembered()
        """Values taken from results by JSON path; a later call's `${name}` sends them (`remember`)."""
        self.authorization = ScenarioAuthorization(lambda: self.clock, settings.tenant_claim)
        """Whether the server requires a token, and the JWT each caller sends (`mcpbdd.authorization`)."""
        self.listens = Listens(self)  # the scenario's listens, what each received, the announcement checks
        self.log_level: str | None = None
        """The level from which the client asks for log messages (`ask_for_log_messages`; None: it asks for none)."""
        self.cancel_plan: CancelPlan | None = None  # the next call's planned cancel (`cancel_next_call`)
        self.journal = Journal()
        """What the server sent on its own, in order, taken step by step by the reports (`hear`)."""
        self.start_failure: ServerCannotStart | None = None
        """Why the server could not be loaded or started in this scenario (the behave hooks stop a run on it)."""

    def close(self) -> list[BaseException]:
        """Exit everything the scenario opened (in its owner task); returns what failed while closing."""
        errors = self.owner.close()
        self.placement.close()  # after the owner stopped the server processes that had the doubles file open
        return errors


__all__ = ["World"]
