"""behave hooks. A project installs them with one line in its `environment.py`:

    from mcpbdd.behave import *  # noqa: F403

A project with hooks of its own calls ours from them instead, e.g.
`mcpbdd.behave.before_scenario(context, scenario)` first thing in its own.

What they do: read the settings once (`[tool.mcpbdd]` + `-D mcpbdd.*`), keep one event
loop for the run, give every scenario a fresh World with its own owner task (created
before the scenario, always closed after it, even when a step failed), attach each
MCP exchange to the step that made it, mark scenario names with their harness so
a report of both harnesses keeps both results apart, collect coverage from what the
scenarios did (written to `coverage_file`, `reports/coverage.json` by default; see
`mcpbdd.checks.coverage`), and redact the configured secrets from behave's own JUnit XML at
the end (`mcpbdd.model.redaction` says what and how).

Interrupts (see `mcpbdd.scenario.runtime`): SIGTERM becomes an interrupt for the run (`before_all`),
so behave stops, the scenario under way is closed (servers stopped, temporary folders
removed) and the process then ends as killed by SIGTERM. An interrupt while a scenario
closes is raised once it is closed: behave reports the run as aborted (a non-zero exit).
"""

from __future__ import annotations

import logging
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

import behave.model
import behave.parser
import behave.runner

from mcpbdd._text import not_utf8
from mcpbdd.checks.coverage import CoverageCollector, ScenarioCoverage, scenario_label, write_coverage
from mcpbdd.model.config import Settings, load_settings
from mcpbdd.model.kinds import (
    ClientMode,
    HarnessKind,
    check_harness_tags,
    client_mode,
    harness_kind,
    harness_label,
    parse_harness_tag,
)
from mcpbdd.model.redaction import redact_tree, redactor_for
from mcpbdd.reporting import console
from mcpbdd.reporting.verdicts import NEAREST_PHRASES
from mcpbdd.scenario.runtime import RunLoop, handle_sigterm, restore_sigterm, signal_name

if TYPE_CHECKING:
    from mcpbdd.reporting import attachments as report
    from mcpbdd.scenario.shared import SharedServers
    from mcpbdd.scenario.world import World

__all__ = [
    "after_all",
    "after_feature",
    "after_scenario",
    "after_step",
    "before_all",
    "before_feature",
    "before_scenario",
    "before_step",
]

MODERN_ERA_TAG = "era.modern"
"""A scenario about what only the 2026-07-28 protocol has (request state, replays): skipped on a legacy pass."""


def _parse_file_naming_bad_bytes(filename: str, language: str | None = None) -> Any:
    """behave's `parse_file`, except that a file that is not UTF-8 is a ParserError naming the file and line.

    behave reads every feature file before any hook runs and fails on one that is not
    UTF-8 with a bare UnicodeDecodeError traceback naming no file. Importing this module
    (every project's environment.py does) wraps behave's function, which behave looks up
    at each call; nothing else about parsing changes.
    """
    try:
        return _behave_parse_file(filename, language=language)
    except UnicodeDecodeError as exc:
        problem = not_utf8(exc.object if isinstance(exc.object, bytes) else bytes(exc.object))
        raise behave.parser.ParserError(problem or str(exc), None, filename) from None


_behave_parse_file = getattr(behave.parser.parse_file, "__wrapped__", behave.parser.parse_file)
_parse_file_naming_bad_bytes.__wrapped__ = _behave_parse_file  # type: ignore[attr-defined]
behave.parser.parse_file = _parse_file_naming_bad_bytes
console.register()  # behave's `pretty`, printing each feature's header once (see mcpbdd.reporting.console)


def _duration_of_every_scenario(container: Any) -> float:
    """behave 1.3's `Feature.duration` sums `self.scenarios`, which leaves out every scenario under a `Rule:`,
    so the summary of a file of rules said `Took 0min 0.000s`: here each scenario counts, under a rule or not
    (an Outline's rows each once), which is all the summary adds up."""
    return float(sum(scenario.duration for scenario in container.walk_scenarios()))


behave.model.ScenarioContainer.duration = property(_duration_of_every_scenario)


def _settings(context: Any) -> Settings:
    settings = getattr(context, "mcpbdd_settings", None)
    if settings is None:
        settings = load_settings(dict(context.config.userdata))
        context.mcpbdd_settings = settings
    return settings


def harness_from_tags(tags: Any, settings: Settings) -> tuple[HarnessKind, ClientMode]:
    """`@harness.context`, `@harness.client` or `@harness.client.legacy` override the configured harness."""
    kind, mode = harness_kind(settings.harness), client_mode(settings.client_mode)
    for tag in tags:
        pinned = parse_harness_tag(tag)
        if pinned is not None:
            kind, mode = pinned[0], pinned[1] or mode
    return kind, mode


def before_all(context: Any) -> None:
    context.mcpbdd_started = time.time()
    handle_sigterm()
    context.mcpbdd_suggested = set()  # undefined steps already answered with the nearest phrases
    context.mcpbdd_loop = RunLoop()
    context.mcpbdd_coverage = CoverageCollector() if _settings(context).coverage_file else None
    # The SDK logs every tool failure at INFO; scenarios provoke failures on purpose. httpx logs every request.
    logging.getLogger("mcp").setLevel(logging.WARNING)
    logging.getLogger("httpx").setLevel(logging.WARNING)
    server = _settings(context).server or ""
    if server.startswith("stdio:") or (server.startswith("http:") and not server.startswith("http://")):
        from mcpbdd.harness.processes import spawn

        spawn.announce(_settings(context).spawn)  # the run's header says how server processes start


def before_feature(context: Any, feature: Any) -> None:
    """Suffix each scenario's name with its harness, before any formatter records it."""
    settings = _settings(context)
    check_harness_tags(feature)  # a misspelt harness tag fails the feature, naming the file and line of the tag
    for scenario in feature.walk_scenarios():
        kind, mode = harness_from_tags(scenario.effective_tags, settings)
        label = harness_label(kind, mode, noun="harness")
        if not scenario.name.endswith(f"[{label}]"):
            scenario.name = f"{scenario.name} [{label}]"
    if settings.reuse_server == "feature":
        from mcpbdd.scenario.shared import SharedServers

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
    """A fresh World for the scenario; the World, the SDK and the reports load here, at the first scenario, so
    behave starts without them (an empty feature, a `--dry-run`, a shard with nothing to run never loads them)."""
    from mcpbdd.reporting import attachments as report
    from mcpbdd.scenario.world import World

    settings = _settings(context)
    report.use_secrets(settings.secrets)  # cheap after the first scenario (the redactor is built once per run)
    report.use_attachment_limit(settings.attachment_limit)
    loop: RunLoop = context.mcpbdd_loop
    world = World(settings, loop.owner(), shared=getattr(context, "mcpbdd_shared", None))
    kind, mode = harness_from_tags(scenario.effective_tags, settings)
    if kind is HarnessKind.CLIENT and mode is ClientMode.LEGACY and MODERN_ERA_TAG in scenario.effective_tags:
        world.close()
        report.label_pass(kind, mode)
        scenario.skip("needs the 2026-07-28 protocol (a request state to replay); this pass speaks 2025-11-25")
        return
    world.use_harness(kind, mode)
    scenario_report = report.ScenarioReport(world, settings.secrets)
    scenario_report.start(kind, mode)
    scenario_report.subscribe(world.bus)
    context.mcpbdd_report = scenario_report
    collector: CoverageCollector | None = getattr(context, "mcpbdd_coverage", None)
    if collector is not None:
        label = scenario_label(scenario.filename, scenario.line, scenario.name)
        context.mcpbdd_scenario_coverage = collector.start(world.bus, label)
    context.mcp = world


def before_step(context: Any, step: Any) -> None:
    """Remember the running step (errors in its data name the file and line); the first When snapshots storage."""
    context.mcpbdd_step = step
    world: World | None = getattr(context, "mcp", None)
    if world is not None:
        world.before_step(step.step_type)


def after_step(context: Any, step: Any) -> None:
    """What the server sent on its own during the step is attached to it (before the formatters close the step); a
    passing step that names an observed failure's reason asserted it (coverage of declared failures)."""
    scenario_report: report.ScenarioReport | None = getattr(context, "mcpbdd_report", None)
    if scenario_report is not None and getattr(context, "mcp", None) is scenario_report.world:
        scenario_report.end_step()
    scenario_coverage: ScenarioCoverage | None = getattr(context, "mcpbdd_scenario_coverage", None)
    if scenario_coverage is not None and step.status == "passed":
        scenario_coverage.step_passed(step.name)


def suggest_for_undefined(scenario: Any, seen: set[tuple[str, int]], registry: Any = None, stream: Any = None) -> None:
    """For each step of `scenario` no definition matched, print the nearest phrases of the vocabulary.

    behave itself only offers a Python snippet for a new step; a product owner who misspelt
    `Then the call succeeds` needs the phrase that exists. Each step once per run (a
    Background's step is in every scenario), on the process's stderr: behave captures a hook's
    output and shows it only when the hook fails, and this must show when the step is undefined.
    """
    from behave.model_core import Status

    from mcpbdd.phrases.vocabulary import nearest

    for step in scenario.all_steps:
        where = (step.filename, step.line)
        if step.status is not Status.undefined:
            continue
        phrases = nearest(step.name, step.step_type.capitalize(), registry=registry)
        setattr(step, NEAREST_PHRASES, phrases)  # the reports name them too (JUnit, the parity matrix)
        if where in seen:
            continue
        seen.add(where)
        written = f"{step.keyword} {step.name}"
        hint = (
            "did you mean:\n" + "\n".join(f"    {p}" for p in phrases)
            if phrases
            else "no phrase of the vocabulary is close (`mcpbdd steps` lists them all)"
        )
        print(f"\n{step.filename}:{step.line}: no step matches {written!r}; {hint}", file=stream or sys.__stderr__)


def after_scenario(context: Any, scenario: Any) -> None:
    from mcpbdd.reporting import attachments as report

    suggest_for_undefined(scenario, context.mcpbdd_suggested, behave.runner.the_step_registry)
    world: World | None = getattr(context, "mcp", None)
    if world is None:
        return
    scenario_report: report.ScenarioReport | None = getattr(context, "mcpbdd_report", None)
    scenario_coverage: ScenarioCoverage | None = getattr(context, "mcpbdd_scenario_coverage", None)
    context.mcpbdd_scenario_coverage = None
    unused: AssertionError | None = None
    try:
        if scenario_coverage is not None:
            context.mcpbdd_coverage.finish(world, scenario_coverage)
        if scenario.status == "passed":  # a failed scenario may have stopped before the question came
            try:
                world.check_answers_used()
            except AssertionError as error:
                unused = error
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
    for problem in errors:
        print(f"mcpbdd: closing the scenario {scenario.name!r} failed: {problem!r}", file=sys.stderr)
    if unused is not None:
        raise unused  # behave fails the scenario with this message (a hook error)
    _stop_if_the_server_cannot_load(context, world)


def _stop_if_the_server_cannot_load(context: Any, world: World) -> None:
    """The configured server does not import, or its program does not exist: no later scenario can pass.

    The first scenario that met it failed (broken) with the reason; the run stops there, saying
    why once, rather than repeating it for every scenario. (`mcpbdd run` checks this before the
    first scenario and exits 2.) A server a scenario names itself stops nothing but that scenario.
    """
    failure = world.start_failure
    if failure is not None and failure.cannot_load and world.server_target == _settings(context).server:
        # behave's own --stop (a failed scenario ends the run), not context.abort(), which reports "By user".
        context.config.stop = True
        print(f"mcpbdd: stopping the run, no scenario can pass: {failure}", file=sys.stderr)


def _report_interrupt(interrupt: KeyboardInterrupt, while_doing: str) -> None:
    said = f"mcpbdd: interrupted ({signal_name(interrupt)}) while {while_doing}"
    print(f"{said}: what it had open is closed; the run stops", file=sys.stderr, flush=True)


def _loaded(module: str) -> Any:
    """`module` if this run imported it, else None. What the spares, the fork servers and the run's Chromium
    modules start cannot run unless they were imported; importing them only to find nothing to stop would
    cost every run (an empty one too) the SDK's import at its end."""
    return sys.modules.get(module)


def after_all(context: Any) -> None:
    loop: RunLoop | None = getattr(context, "mcpbdd_loop", None)
    spare, spawn = _loaded("mcpbdd.harness.processes.spare"), _loaded("mcpbdd.harness.processes.spawn")
    browser = _loaded("mcpbdd.apps.browser")
    try:
        try:
            if spare is not None:
                spare.stop_all()  # the spares no scenario took: stopped through the SDK while the loop lives
            if loop is not None and browser is not None:
                browser.close_browser_of(loop.loop)  # the run's Chromium (apps), if a scenario opened one
        finally:
            if loop is not None:
                loop.close()
    finally:
        if spare is not None:
            spare.stop_all()  # whatever an interrupt kept the first stop from stopping: by signal
        if spawn is not None:
            spawn.stop_all()  # the fork servers stop their forks, then end (they would at exit anyway)
        restore_sigterm()
        collector: CoverageCollector | None = getattr(context, "mcpbdd_coverage", None)
        if collector is not None and collector.harnesses:
            write_coverage(_settings(context).coverage_file, collector.document(), secrets=_settings(context).secrets)
        _redact_junit(context)


def _redact_junit(context: Any) -> None:
    """behave writes a feature's JUnit XML when the feature ends, unredacted: every one is written by now.

    Only this run's files (`TESTS-*.xml` modified since `before_all`): behave's default JUnit
    folder is `reports/`, which holds other runs' and other formats' files too.
    """
    config = context.config
    redactor = redactor_for(getattr(getattr(context, "mcpbdd_settings", None), "secrets", ()))
    if not getattr(config, "junit", False) or not redactor:  # no secret configured, and none minted
        return
    folder = Path(config.junit_directory)
    started = getattr(context, "mcpbdd_started", None)
    redact_tree(folder.glob("TESTS-*.xml"), redactor, since=started)
