"""Splitting a run over processes (`--jobs N`) and over CI machines (`--shard I/N`), by feature file.

Why our own split and not BehaveX (measured in `bench/bench_parallel.py`, recorded in
`BENCHMARKS.md`): BehaveX is maintained and splits by feature too, but it
cannot run a behave formatter during the run (its `--formatter` post-processes its JSON
report), so every Allure attachment a step makes is lost; it was slower than our split on
both benchmark suites, has no shards (a deterministic subset per CI machine), empties its
output folder on every run and pulls in jinja2/pillow/minify-html. Here each job is ONE
behave process that runs a whole bucket of features (see `mcpbdd.runner.workers`), so start-up is
paid once per job, not once per feature.

The unit of work is a feature file (with any `file:line` locations the command line
gave for it): a feature's scenarios always run in the same process, in file order, so
`before_feature`/`after_feature` hooks and Backgrounds behave exactly as in a serial
run, and the union of the buckets is exactly the serial run: nothing is lost or
duplicated. Buckets are balanced by each feature's duration in the previous run (the timing
file, `mcpbdd.runner.timings`) or, without one, by the number of scenarios it will run (longest
first, to the lightest bucket; ties by path), which is deterministic: the same suite, timing
file and N give the same split on every machine.
"""

from __future__ import annotations

import contextlib
import io
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from behave.configuration import Configuration, setup_parser
from behave.parser import parse_file
from behave.runner_util import collect_feature_locations

from mcpbdd._text import not_utf8
from mcpbdd.model.kinds import check_harness_tags

__all__ = ["Plan", "PlanError", "Unit", "balance", "plan_run", "shard_of", "split_passthrough"]


class PlanError(ValueError):
    """The behave options or paths are unusable (an unknown option, a missing file, a feature that does not parse)."""


@dataclass(frozen=True)
class Unit:
    """One feature file and the locations in it to run (the file itself, or `file:line` entries)."""

    filename: str
    locations: tuple[str, ...]
    scenarios: int
    """How many scenarios it will run (tags and names applied): the balancing weight."""
    harness: str | None = None
    """The harness it runs on (`--harness both` makes two units of each feature); None: the configured one."""
    lines: tuple[int, ...] = ()
    """The lines of the scenarios it runs (an outline's examples: their rows), when it runs the whole file:
    what a heavy feature is split by across CI shards (`mcpbdd.runner.timings.split_for_shards`)."""


@dataclass
class Plan:
    """What a run will execute: the behave options (without paths), the features, and how many scenarios."""

    options: list[str]
    units: list[Unit]
    userdata: dict[str, str] = field(default_factory=dict)
    outfiles: list[str] = field(default_factory=list)
    """The files behave's own formats write (`--outfile`), besides mcpbdd's: outputs to redact at the end."""

    @property
    def scenarios(self) -> int:
        return sum(unit.scenarios for unit in self.units)


def split_passthrough(passthrough: Sequence[str]) -> tuple[list[str], list[str]]:
    """behave's command line -> (options, paths), using behave's own parser to know which options take a value."""
    actions = {option: action for action in setup_parser()._actions for option in action.option_strings}
    options: list[str] = []
    paths: list[str] = []
    pending: Any = None  # the option whose value the next token may be
    pending_choices: tuple[Any, ...] = ()
    for token in passthrough:
        if pending is not None:
            optional = pending.nargs in ("?", "*")
            pending = None
            if not optional or (pending_choices and token in pending_choices):
                options.append(token)
                continue
        if token.startswith("-") and token != "-":
            options.append(token)
            action = actions.get(token.split("=", 1)[0])
            if action is not None and action.nargs != 0 and "=" not in token:
                pending = action
                pending_choices = tuple(action.choices or ())
        else:
            paths.append(token)
    return options, paths


def plan_run(passthrough: Sequence[str]) -> Plan:
    """Read behave's configuration as behave will (config files, then the command line) and list the features.

    Raises PlanError for what behave would refuse, so `mcpbdd run` can exit 2 (a usage
    error) instead of letting a child behave report it as a failed run (exit 1).
    """
    options, _paths = split_passthrough(passthrough)
    stderr = io.StringIO()
    try:
        with contextlib.redirect_stderr(stderr):
            config = Configuration(list(passthrough))
    except SystemExit as exc:  # argparse: an unknown option or a bad value
        complaint = stderr.getvalue().strip().splitlines()[-1:] or [f"behave refused: {' '.join(passthrough)}"]
        raise PlanError(complaint[0].replace(": error:", ": behave option error:", 1)) from exc
    except Exception as exc:  # behave's ConfigError, TagExpressionError, ...
        raise PlanError(f"{type(exc).__name__}: {exc}") from exc
    paths = list(config.paths) or ["features"]
    try:
        locations = collect_feature_locations(paths)
    except Exception as exc:  # FileNotFoundError, InvalidFilenameError
        raise PlanError(f"{type(exc).__name__}: {exc}") from exc
    grouped: dict[str, list[Any]] = {}
    for location in locations:
        grouped.setdefault(location.filename, []).append(location)
    units: list[Unit] = []
    for filename, found in grouped.items():
        if config.exclude(filename):
            continue
        feature = _parse(filename, config.lang)
        if feature is None:
            continue
        lines = [location.line for location in found if location.line]
        wanted = [str(location) if location.line else filename for location in found]
        chosen = () if lines else _selected_lines(feature, config)
        units.append(Unit(filename, tuple(dict.fromkeys(wanted)), _count(feature, config, lines), lines=chosen))
    outfiles = [name for name in config.outfiles or () if name and name != "-"]
    return Plan(options=options, units=units, userdata=dict(config.userdata), outfiles=outfiles)


def _parse(filename: str, language: str | None) -> Any:
    """The parsed feature; a PlanError naming the file for bytes not UTF-8, bad Gherkin or a misspelt harness tag.

    behave itself would report a file that is not UTF-8 as a bare UnicodeDecodeError naming no file.
    """
    try:
        with open(filename, "rb") as file:
            problem = not_utf8(file.read())
    except OSError as exc:
        raise PlanError(f"{filename}: cannot read: {exc.strerror or exc}") from exc
    if problem is not None:
        raise PlanError(f"{filename}: {problem}")
    try:
        feature = parse_file(filename, language=language)
    except Exception as exc:  # behave's ParserError names the file and line
        raise PlanError(f"{type(exc).__name__}: {exc}") from exc
    if feature is not None:
        try:
            check_harness_tags(feature)
        except ValueError as exc:
            raise PlanError(str(exc)) from None
    return feature


def _selected_lines(feature: Any, config: Any) -> tuple[int, ...]:
    """The lines of the scenarios the tags and names select (each example row of an outline is one)."""
    chosen = []
    for scenario in feature.walk_scenarios():
        if not scenario.should_run_with_tags(config.tag_expression):
            continue
        if config.name and not scenario.should_run_with_name_select(config):
            continue
        chosen.append(int(scenario.line))
    return tuple(chosen)


def _count(feature: Any, config: Any, lines: list[int]) -> int:
    if lines:
        return len(lines)  # one scenario (or one outline) per location: close enough to balance on
    chosen = 0
    for scenario in feature.walk_scenarios():
        if not scenario.should_run_with_tags(config.tag_expression):
            continue
        if config.name and not scenario.should_run_with_name_select(config):
            continue
        chosen += 1
    return chosen


def balance(units: Sequence[Unit], buckets: int, weights: Mapping[Unit, float] | None = None) -> list[list[Unit]]:
    """Deterministic split into `buckets` groups of similar weight: heaviest unit first, to the lightest bucket.

    The weight is a unit's expected seconds when `weights` has them (from the timing file,
    `mcpbdd.runner.timings`), its scenario count otherwise. A feature with no selected scenario
    still costs a little (behave parses it, and the report lists its skipped scenarios), so
    every unit weighs at least 1 scenario.
    """

    def weight(unit: Unit) -> float:
        if weights is not None and unit in weights:
            return weights[unit]
        return float(max(unit.scenarios, 1))

    bins: list[list[Unit]] = [[] for _ in range(max(1, buckets))]
    loads = [0.0] * len(bins)
    for unit in sorted(units, key=lambda u: (-weight(u), u.filename, u.harness or "")):
        lightest = min(range(len(bins)), key=lambda i: (loads[i], i))
        bins[lightest].append(unit)
        loads[lightest] += weight(unit)
    for chosen in bins:
        chosen.sort(key=lambda u: (u.harness or "", u.filename))
    return bins


SHARD = re.compile(r"^\s*(\d+)\s*/\s*(\d+)\s*$")


def parse_shard(text: str) -> tuple[int, int]:
    """`2/3` -> (2, 3): the second of three shards (1-based, as CI matrices count)."""
    match = SHARD.match(text)
    if not match:
        raise ValueError(f"--shard {text!r}: use I/N, e.g. 1/2 and 2/2 on two CI machines")
    index, count = int(match.group(1)), int(match.group(2))
    if count < 1 or not 1 <= index <= count:
        raise ValueError(f"--shard {text!r}: I must be between 1 and N (and N at least 1)")
    return index, count


def shard_of(units: Sequence[Unit], index: int, count: int, weights: Mapping[Unit, float] | None = None) -> list[Unit]:
    """The units shard `index` of `count` runs. Every machine computes the same split from the same files
    (the same feature files and the same timing file)."""
    return balance(units, count, weights)[index - 1]
