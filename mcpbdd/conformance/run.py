"""Running checks: on a Probe (async, for Python code), or in a scenario's World (the steps)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from mcpbdd.conformance.eras import LEGACY_SESSION
from mcpbdd.conformance.probe import Probe
from mcpbdd.conformance.registry import (
    REFUSED_CALLER,
    CallerRefused,
    ConformanceFailure,
    NotApplicable,
    ShouldNotKept,
    check_named,
)
from mcpbdd.harness.client import ClientHarness

if TYPE_CHECKING:
    from mcpbdd.scenario.world import World

__all__ = ["check_all_in_world", "check_in_world", "probe_for", "run_check"]


async def run_check(probe: Probe, name: str) -> None:
    """Run the check `name`: returns when the server keeps the rule; raises ConformanceFailure or NotApplicable.

    A check that found nothing wrong while the server refused its caller on some calls (`Probe.refusals`) raises
    `CallerRefused`: what was refused was never judged, so it is not a pass.
    """
    found = check_named(name)
    if found.modern_only and not await probe.modern():
        raise NotApplicable(f"{found.id} is a 2026-07-28 rule and {LEGACY_SESSION}")
    start = len(probe.refusals)
    try:
        await found.run(probe)
    except ShouldNotKept as warning:
        if probe.strict:
            raise ConformanceFailure(f"{warning} (a SHOULD, failed under --strict)") from None
        raise
    except NotApplicable as reason:
        refused = probe.refusals[start:]
        if refused and not isinstance(reason, CallerRefused):
            raise _refused(probe, refused) from None
        raise
    refused = probe.refusals[start:]
    if refused:
        raise _refused(probe, refused)


def _refused(probe: Probe, refused: list[str]) -> CallerRefused:
    listed = "; ".join(refused[:5]) + (f"; and {len(refused) - 5} more" if len(refused) > 5 else "")
    return CallerRefused(
        f"{REFUSED_CALLER} ({probe.who}) on {len(refused)} call(s), which were never judged: {listed}. Name a "
        "caller it accepts: mcpbdd conformance --user/--tenant/--scopes/--token, or [tool.mcpbdd.conformance]"
    )


def probe_for(world: World) -> Probe:
    """The scenario's Probe: its harness (which must be the client harness: the checks read the wire) and caller.

    The caller is the scenario's own; when it declared none, the one `[tool.mcpbdd.conformance]` names (`user`,
    `tenant`, `scopes`: what `mcpbdd conformance --user ...` passes on), else anonymous.
    """
    section = world.settings.conformance
    if world.caller is None and not world.directory.chosen and section.user:
        world.add_user(section.user, section.tenant or section.user, section.scopes)
    harness = world.harness
    if not isinstance(harness, ClientHarness):
        raise NotApplicable(
            f"the conformance checks read the wire and this scenario runs on the {world.harness_name} harness: "
            "run it on the client harness (-D mcpbdd.harness=client, or mcpbdd conformance)"
        )
    secrets = (*world.settings.secrets, *([section.token] if section.token else []))
    return Probe(harness, world.caller, secrets, strict=section.strict)


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
