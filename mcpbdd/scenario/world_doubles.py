"""The World's doubles: the storage, clock and upstream routes the server reads, placed where it can reach them.

In memory for an in-process server, in a doubles file for a process mcpbdd starts (`mcpbdd.harness.handover`).
The storage steps seed and inspect the scenario's storage through its adapter; the first When step takes
the baseline that "is unchanged" compares with; the clock moves only when a step moves it. Each read of
the doubles first asks whether the server took them (`relies_on_doubles`), so a server blind to them is
named as the reason.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from mcpbdd.harness.handover import Placement
from mcpbdd.harness.targets import load_adapter
from mcpbdd.kit.clock import FrozenClock
from mcpbdd.kit.doubles import Doubles
from mcpbdd.scenario.world_callers import WorldCallers
from mcpbdd.storage import ServiceAdapter, StorageAdapter, StorageDiff, StorageService, diff

__all__ = ["WorldDoubles"]


class WorldDoubles(WorldCallers):
    """The World's doubles (a part of `World`)."""

    def _place_doubles(self) -> None:
        """In memory for an in-process server; in a doubles file for a process mcpbdd starts (see `handover`)."""
        shared = self.shared
        placement = Placement.for_target(
            self.server_target,
            self.upstream,
            excused=self.settings.storage_adapter is not None,
            previous=self._placement,
            shared_file=shared.doubles_file if shared is not None else None,
        )
        if placement is not self._placement:
            spec = self.settings.storage_adapter
            self._placement = placement
            self._adapter = load_adapter(spec, placement.doubles) if spec else ServiceAdapter(placement.doubles.storage)

    @property
    def placement(self) -> Placement:
        assert self._placement is not None
        return self._placement

    @property
    def doubles(self) -> Doubles:
        """What the server's lifespan gets from `scenario_doubles()`."""
        return self.placement.doubles

    @property
    def clock(self) -> FrozenClock:
        """The scenario's clock: frozen, moved only by steps; storage TTLs and the server read it."""
        return self.placement.clock

    @property
    def storage_service(self) -> StorageService:
        return self.placement.doubles.storage

    @property
    def storage(self) -> StorageAdapter:
        """What the storage steps seed and inspect (a project with foreign storage plugs its adapter here)."""
        assert self._adapter is not None
        return self._adapter

    # storage and clock ------------------------------------------------------------------------------

    def tenants_in_play(self) -> list[str]:
        """Tenants the scenario named, the storage holds, or held at the baseline (an emptied tenant is in play)."""
        return sorted(set(self.storage.tenants()) | set(self.directory.tenants) | set(self.baseline or {}))

    def seed_storage(self, tenant: str, groups: dict[float | None, dict[str, Any]]) -> None:
        """Seed `tenant` with entries grouped by TTL in seconds (None: no TTL)."""
        self.placement.relied(f'seeding the storage of tenant "{tenant}"')
        self.directory.tenants.setdefault(tenant, f"{tenant}-user")
        for ttl, mapping in groups.items():
            if ttl is None:
                self.storage.seed(tenant, mapping)
            elif isinstance(self.storage, ServiceAdapter):
                self.storage.seed(tenant, mapping, ttl)
            else:
                raise ValueError(f"{type(self.storage).__name__} cannot seed entries with a ttl")

    def other_tenants(self) -> list[str]:
        """Every tenant in play except the one that made the last call (or the current caller's)."""
        last_caller = self.trace.exchanges[-1].caller if len(self.trace) else None
        principal = self.directory.users.get(last_caller) if last_caller else self.caller
        own = principal.tenant if principal is not None else None
        return [tenant for tenant in self.tenants_in_play() if tenant != own]

    def take_baseline(self) -> None:
        """Snapshot every tenant's storage (done just before the first When step)."""
        self.baseline = {tenant: self.storage.snapshot(tenant) for tenant in self.tenants_in_play()}

    def before_step(self, step_type: str) -> None:
        """The behave hook's call: the first When takes the storage baseline."""
        if step_type == "when" and self.baseline is None:
            self.take_baseline()

    def relies_on_doubles(self, what: str) -> None:
        """A check about to read the scenario's doubles: fails now when the server is known not to have taken them.

        Asked first by a step, so that a server blind to the doubles is named as the reason, before
        any other reason the same step could give (an unknown tenant, no other tenant).
        """
        self.placement.relied(what)

    def read_storage(self, tenant: str, key: str) -> Any:
        """The value the server stored under `key` in `tenant` (`MISSING` when there is none)."""
        self.placement.relied(f'reading the storage of tenant "{tenant}"')
        return self.storage.read(tenant, key)

    def storage_keys(self, tenant: str) -> list[str]:
        """Every key `tenant`'s storage holds now, sorted (what a "has no key" failure lists)."""
        return sorted(self.storage.snapshot(tenant))

    def set_clock(self, moment: datetime) -> None:
        """Set the clock the server reads (`Given the clock reads ...`)."""
        self.placement.relied(f"setting the clock to {moment.isoformat()}")
        self.clock.set(moment)

    def advance_clock(self, delta: timedelta | str) -> None:
        """Move the clock the server reads forward (`When 2 hours pass`): a timedelta or a duration like "2 hours"."""
        self.placement.relied(f"moving the clock forward by {delta}")
        self.clock.advance(delta)

    def storage_changes(self, tenant: str, *, except_under: str | None = None) -> StorageDiff:
        """What changed in `tenant`'s storage since the baseline (empty before the first When).

        `except_under`: a key prefix (`consent/`) whose keys may change; a ValueError when it is
        empty, since every key starts with the empty prefix and nothing would be compared.
        """
        self.placement.relied(f'comparing the storage of tenant "{tenant}" with before')
        before = (self.baseline or {}).get(tenant, {}) if self.baseline is not None else self.storage.snapshot(tenant)
        changes = diff(before, self.storage.snapshot(tenant))
        return changes if except_under is None else changes.outside(except_under)
