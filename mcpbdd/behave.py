"""behave hooks. A project installs them with one line in its `environment.py`:

    from mcpbdd.behave import *  # noqa: F403

A project with hooks of its own calls ours from them instead, e.g.
`mcpbdd.behave.before_scenario(context, scenario)` first thing in its own.

What they do: read the settings once (`[tool.mcpbdd]` + `-D mcpbdd.*`), keep one event
loop for the run, give every scenario a fresh World with its own owner task (created
before the scenario, always closed after it, even when a step failed), attach each
MCP exchange to the step that made it, and mark scenario names with their harness so
a report of both harnesses keeps both results apart.

Interrupts (see `mcpbdd.runtime`): SIGTERM becomes an interrupt for the run (`before_all`),
so behave stops, the scenario under way is closed (servers stopped, temporary folders
removed) and the process then ends as killed by SIGTERM. An interrupt while a scenario
closes is raised once it is closed: behave reports the run as aborted (a non-zero exit).
"""

from __future__ import annotations

import logging
import sys
from typing import Any

from mcpbdd.config import Settings, load_settings
from mcpbdd.reporting import attachments as report
from mcpbdd.runtime import RunLoop, handle_sigterm, restore_sigterm, signal_name
from mcpbdd.world import HARNESSES, SharedServers, World

__all__ = [
    "after_all",
    "after_feature",
    "after_scenario",
    "before_all",
    "before_feature",
    "before_scenario",
    "before_step",
]

HARNESS_TAG = "harness."
MODERN_ERA_TAG = "era.modern"
"""A scenario about what only the 2026-07-28 protocol has (request state, replays): skipped on a legacy pass."""


def _settings(context: Any) -> Settings:
    settings = getattr(context, "mcpbdd_settings", None)
    if settings is None:
        settings = load_settings(dict(context.config.userdata))
        context.mcpbdd_settings = settings
    return settings


def harness_from_tags(tags: Any, settings: Settings) -> tuple[str, str]:
    """`@harness.context`, `@harness.client` or `@harness.client.legacy` override the configured harness."""
    kind, mode = settings.harness, settings.client_mode
    for tag in tags:
        if not tag.startswith(HARNESS_TAG):
            continue
        parts = tag[len(HARNESS_TAG) :].split(".")
        if parts[0] not in HARNESSES or len(parts) > 2 or (len(parts) == 2 and parts[1] not in ("auto", "legacy")):
            raise ValueError(
                f"unknown harness tag @{tag}: use @harness.context, @harness.client or @harness.client.legacy"
            )
        kind = parts[0]
        if len(parts) == 2:
            mode = parts[1]
    return kind, mode


def before_all(context: Any) -> None:
    handle_sigterm()
    report.use_secrets(_settings(context).secrets)
    context.mcpbdd_loop = RunLoop()
    # The SDK logs every tool failure at INFO; scenarios provoke failures on purpose. httpx logs every request.
    logging.getLogger("mcp").setLevel(logging.WARNING)
    logging.getLogger("httpx").setLevel(logging.WARNING)


def before_feature(context: Any, feature: Any) -> None:
    """Suffix each scenario's name with its harness, before any formatter records it."""
    settings = _settings(context)
    for scenario in feature.walk_scenarios():
        kind, mode = harness_from_tags(scenario.effective_tags, settings)
        label = "client harness, legacy" if (kind, mode) == ("client", "legacy") else f"{kind} harness"
        if not scenario.name.endswith(f"[{label}]"):
            scenario.name = f"{scenario.name} [{label}]"
    if settings.reuse_server == "feature":
        loop: RunLoop = context.mcpbdd_loop
        context.mcpbdd_shared = SharedServers(loop.owner())


def after_feature(context: Any, feature: Any) -> None:
    """Stop the servers a feature shared between its scenarios (with `reuse_server = "feature"`)."""
    shared: SharedServers | None = getattr(context, "mcpbdd_shared", None)
    if shared is not None:
        context.mcpbdd_shared = None
        try:
            errors = shared.close()
        except KeyboardInterrupt as interrupt:
            _report_interrupt(interrupt, f"stopping the servers of the feature {feature.name!r}")
            raise
        for error in errors:
            print(f"mcpbdd: stopping the servers of the feature {feature.name!r} failed: {error!r}", file=sys.stderr)


def before_scenario(context: Any, scenario: Any) -> None:
    settings = _settings(context)
    loop: RunLoop = context.mcpbdd_loop
    world = World(settings, loop.owner(), shared=getattr(context, "mcpbdd_shared", None))
    kind, mode = harness_from_tags(scenario.effective_tags, settings)
    if kind == "client" and mode == "legacy" and MODERN_ERA_TAG in scenario.effective_tags:
        world.close()
        scenario.skip("needs the 2026-07-28 protocol (a request state to replay); this pass speaks 2025-11-25")
        return
    world.use_harness(kind, mode)
    scenario_report = report.ScenarioReport(world, settings.secrets)
    scenario_report.start(kind, mode)
    world.on_exchange = scenario_report.on_exchange
    context.mcpbdd_report = scenario_report
    context.mcp = world


def before_step(context: Any, step: Any) -> None:
    """Remember the running step (errors in its data name the file and line); the first When snapshots storage."""
    context.mcpbdd_step = step
    world: World | None = getattr(context, "mcp", None)
    if world is not None:
        world.before_step(step.step_type)


def after_scenario(context: Any, scenario: Any) -> None:
    world: World | None = getattr(context, "mcp", None)
    if world is None:
        return
    scenario_report: report.ScenarioReport | None = getattr(context, "mcpbdd_report", None)
    try:
        if scenario_report is not None:
            scenario_report.finish(scenario)
        if scenario.status == "failed" and world.server_stderr():
            report.attach_stderr(world.server_stderr())
    finally:
        try:
            errors = world.close()
        except KeyboardInterrupt as interrupt:
            _report_interrupt(interrupt, f"closing the scenario {scenario.name!r}")
            raise  # behave aborts the run on it: the run stops, and does not pass
    for error in errors:
        print(f"mcpbdd: closing the scenario {scenario.name!r} failed: {error!r}", file=sys.stderr)


def _report_interrupt(interrupt: KeyboardInterrupt, while_doing: str) -> None:
    said = f"mcpbdd: interrupted ({signal_name(interrupt)}) while {while_doing}"
    print(f"{said}: what it had open is closed; the run stops", file=sys.stderr, flush=True)


def after_all(context: Any) -> None:
    loop: RunLoop | None = getattr(context, "mcpbdd_loop", None)
    try:
        if loop is not None:
            loop.close()
    finally:
        restore_sigterm()
