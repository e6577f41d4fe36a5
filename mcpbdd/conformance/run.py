"""Running checks: on a Probe (async, for Python code), or in a scenario's World (the steps)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from mcpbdd.conformance.eras import LEGACY_SESSION
from mcpbdd.conformance.probe import Probe
from mcpbdd.conformance.registry import ConformanceFailure, NotApplicable, check_named
from mcpbdd.harness.client import ClientHarness

if TYPE_CHECKING:
    from mcpbdd.scenario.world import World

__all__ = ["check_all_in_world", "check_in_world", "probe_for", "run_check"]


async def run_check(probe: Probe, name: str) -> None:
    """Run the check `name`: returns when the server keeps the rule; raises ConformanceFailure or NotApplicable."""
    found = check_named(name)
    if found.modern_only and not await probe.modern():
        raise NotApplicable(f"{found.id} is a 2026-07-28 rule and {LEGACY_SESSION}")
    await found.run(probe)


def probe_for(world: World) -> Probe:
    """The scenario's Probe: its harness (which must be the client harness: the checks read the wire) and caller."""
    harness = world.harness
    if not isinstance(harness, ClientHarness):
        raise NotApplicable(
            f"the conformance checks read the wire and this scenario runs on the {world.harness_name} harness: "
            "run it on the client harness (-D mcpbdd.harness=client, or mcpbdd conformance)"
        )
    return Probe(harness, world.caller, tuple(world.settings.secrets))


def check_in_world(world: World, name: str) -> None:
    """Run the check `name` in the scenario's World (its harness, caller and configured secrets)."""
    check_named(name)  # a typo fails before the server starts
    world.run(run_check(probe_for(world), name))


def check_all_in_world(world: World, names: Iterable[str] | None = None) -> list[str]:
    """Run every check (or `names`); raise one ConformanceFailure listing each failed check. Returns what was skipped.

    A check that does not apply is skipped, never passed: the list returned says which and why, and when no
    check applied at all this fails, because nothing was checked.
    """
    from mcpbdd.conformance import all_checks

    chosen = list(names) if names is not None else [c.id for c in all_checks()]
    probe = probe_for(world)
    failures: list[str] = []
    skipped: list[str] = []
    for name in chosen:
        try:
            world.run(run_check(probe, name))
        except NotApplicable as reason:
            skipped.append(f"{name}: {reason}")
        except ConformanceFailure as failure:
            failures.append(f"{name}: {failure}")
    if failures:
        raise ConformanceFailure(f"{len(failures)} of {len(chosen)} conformance checks failed:\n" + "\n".join(failures))
    if len(skipped) == len(chosen):
        raise ConformanceFailure("no conformance check applied to this server:\n" + "\n".join(skipped))
    return skipped
