"""What a World holds, named once for its parts (`world_callers`, `world_doubles`, `world_server`, ...).

`World` is one object made of parts by concern, each a class in its own module stacked on the one
below (callers, doubles, server, calls, questions, rounds). Each part reads state another part or
`World.__init__` sets; this class declares that state, with its types, so every part is type-checked
against the same names. It sets nothing: `World.__init__` does (and says what each attribute is).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from mcpbdd.authorization.scenario import ScenarioAuthorization
    from mcpbdd.harness.base import Harness
    from mcpbdd.harness.handover import Placement
    from mcpbdd.kit.principals import Directory
    from mcpbdd.model.cancellation import CancelPlan
    from mcpbdd.model.completions import Completions
    from mcpbdd.model.config import Settings
    from mcpbdd.model.errors import ServerCannotStart
    from mcpbdd.model.kinds import ClientMode, HarnessKind
    from mcpbdd.model.outcome import Outcome
    from mcpbdd.model.trace import EventBus, Trace
    from mcpbdd.scenario.conversation import InputRounds
    from mcpbdd.scenario.journal import Journal
    from mcpbdd.scenario.listens import Listens
    from mcpbdd.scenario.remembered import Remembered
    from mcpbdd.scenario.runtime import ScenarioOwner
    from mcpbdd.scenario.shared import SharedServers
    from mcpbdd.storage import StorageAdapter
    from mcpbdd.upstream import Upstream

__all__ = ["WorldState"]


class WorldState:
    """The attributes of a World, declared (not set) for the parts that read them."""

    settings: Settings
    owner: ScenarioOwner
    shared: SharedServers | None
    directory: Directory
    bus: EventBus
    events: EventBus
    trace: Trace
    outcomes: list[Outcome]
    server_target: str | None
    harness_kind: HarnessKind
    client_mode: ClientMode
    capabilities: frozenset[str]
    completions: Completions | None
    upstream: Upstream
    baseline: dict[str, dict[str, Any]] | None
    input_rounds: InputRounds
    remembered: Remembered
    authorization: ScenarioAuthorization
    listens: Listens
    log_level: str | None
    cancel_plan: CancelPlan | None
    journal: Journal
    start_failure: ServerCannotStart | None
    _harness: Harness | None
    _tool_names: list[str] | None
    _placement: Placement | None
    _adapter: StorageAdapter | None
