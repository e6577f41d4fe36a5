"""The scenarios a run planned that never reported a verdict: a behave process that ended before them.

A tool that calls `os._exit(0)` in-process, a worker killed by the kernel, a `sys.exit` that escaped
everything: the behave process ends, and the scenarios it was running or had still to run leave no
verdict, no Allure result and no JUnit test case. Its exit status may well be 0. The run knows what
it planned, so it compares: each behave process's planned scenarios (read from its own command line,
as behave reads it: locations, tags, names; `planned_scenarios`) against the verdicts it recorded
(`mcpbdd.reporting.verdicts`). One that is missing is *lost*; the run names it as broken in the
console and in every report (`mcpbdd.reporting.lost`) and does not exit 0.

A behave process that ended normally (behave closed its formatters: the progress file's end mark,
`mcpbdd.runner.progress.END`) and failed may have left scenarios out on purpose (`--stop`, a run the
hooks stopped because the server cannot load, a failed `before_feature` hook that allure already
reports): those are not lost, the run fails anyway. One that ended normally and passed, or ended
any other way, lost every planned scenario it did not report.
"""

from __future__ import annotations

import contextlib
import io
import os
from collections.abc import Sequence
from dataclasses import dataclass

from mcpbdd.reporting.lost import LostScenario
from mcpbdd.reporting.verdicts import Verdict

__all__ = ["STDERR_LINES", "PlannedScenario", "lost_scenarios", "planned_scenarios"]

STDERR_LINES = 10
"""How many of a lost process's last output lines the reports quote."""


@dataclass(frozen=True)
class PlannedScenario:
    """A scenario a behave process was going to run, named as its verdict would name it."""

    feature: str
    line: int
    title: str
    """Its name as behave reports it (with the harness suffix the hooks add)."""
    feature_name: str
    harness: str = ""
    """The harness as reports name it (`context`, `client, legacy`): its Allure parameter."""
    display: str = ""
    """Its one name, as every report writes it (`mcpbdd.reporting.names`: an Outline row by its values)."""

    @property
    def key(self) -> tuple[str, int]:
        return (os.path.abspath(self.feature), self.line)


def planned_scenarios(args: Sequence[str]) -> list[PlannedScenario]:
    """What behave, given `args`, runs: the features and locations, minus what tags and names leave out.

    Read exactly as behave's own runner reads it (`Configuration`, `parse_features`, `should_run`), so
    a scenario is planned here if and only if behave hands it to the formatters.
    """
    from behave.configuration import Configuration
    from behave.runner_util import collect_feature_locations, parse_features

    from mcpbdd.behave import harness_from_tags
    from mcpbdd.model.config import ConfigError, load_settings
    from mcpbdd.model.kinds import harness_label
    from mcpbdd.reporting.names import outline_row_name

    with contextlib.redirect_stderr(io.StringIO()):
        config = Configuration(list(args))
    try:
        settings = load_settings(dict(config.userdata))
    except ConfigError:
        settings = None
    locations = collect_feature_locations(list(config.paths) or ["features"])
    features = parse_features([loc for loc in locations if not config.exclude(loc.filename)], language=config.lang)
    planned = []
    for feature in features:
        for scenario in feature.walk_scenarios():
            if not scenario.should_run(config):
                continue
            title, harness = scenario.name, ""
            if settings is not None:
                kind, mode = harness_from_tags(scenario.effective_tags, settings)
                title, harness = f"{title} [{harness_label(kind, mode, noun='harness')}]", harness_label(kind, mode)
            shown = outline_row_name(scenario, title)
            planned.append(
                PlannedScenario(str(feature.filename), int(scenario.line), title, feature.name, harness, shown)
            )
    return planned


def lost_scenarios(
    args: Sequence[str],
    verdicts: Sequence[Verdict],
    *,
    column: str,
    ended_normally: bool,
    returncode: int | None,
    output: str,
) -> list[LostScenario]:
    """The scenarios one behave process (`args`, its exit status and output) planned and never reported."""
    if ended_normally and returncode != 0:
        return []  # behave itself left them out, and the run fails anyway (see the module's doc)
    try:
        planned = planned_scenarios(args)
    except Exception:  # behave could not read its own command line: it reported that, and the run failed
        return []
    reported = {(os.path.abspath(v.feature), v.line) for v in verdicts}
    tail = "\n".join(output.splitlines()[-STDERR_LINES:])
    message = (
        "the behave process ended before this scenario reported a verdict: something ended the process "
        "(sys.exit or os._exit in a tool, step or hook, a crash, a kill)"
    )
    lost = []
    for scenario in planned:
        if scenario.key in reported:
            continue
        lost.append(
            LostScenario(
                feature=scenario.feature,
                line=scenario.line,
                title=scenario.title,
                feature_name=scenario.feature_name,
                harness=scenario.harness,
                column=column,
                message=message,
                returncode=returncode,
                output_tail=tail,
                display=scenario.display,
            )
        )
    return lost
