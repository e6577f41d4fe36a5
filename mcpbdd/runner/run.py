"""`mcpbdd run`: the specifications run by behave processes, watched, finished and summed up.

`run` is a thin wrapper over behave: mcpbdd's Allure formatter (results under `reports/allure-
results`), JUnit XML for CI (`reports/junit`), behave's readable console output (a line per scenario
unless a format is given; every step with `--steps`), the same specifications once per harness,
`--jobs` processes on one machine and `--shard` for CI machines (see `mcpbdd.runner.plan`), balanced by
the timing file (`mcpbdd.runner.timings`), the parity matrix (`--harness all`), Cucumber Messages and
Cucumber JSON, JUnit properties (`mcpbdd.runner.finish`), and a progress line on a terminal. The
configured secrets are redacted from the console output and, once every behave process has ended,
from every file the run wrote: the Allure results, the JUnit XML, any `--outfile` and anything else
under `reports/` (see `mcpbdd.model.redaction`); so are the tokens the behave processes minted (they
name each in a file of the run's scratch folder, `mcpbdd.model.minted`). Each behave run is its own process, because
behave's `main()` leaks step definitions when called twice in one process.

`run` reads a `RunOptions` (`mcpbdd.runner.run_options`: what `mcpbdd run`'s options parse into) and the
arguments left for behave (paths, `-D` settings, tags). A `Run` is one run once planned, in the order it
happens: its workers (`chains`: one chain of behave processes per job, `behave_argv` for each one's
arguments), the output folders emptied (`prepare_outputs`), the processes watched (`watch`, printing through a
`RunConsole`), the derived outputs written (`finish`), and the exit status with the summary (`conclude`,
`mcpbdd.runner.run_summary`).
"""

from __future__ import annotations

import json
import shutil
import signal
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TextIO

from mcpbdd.model.config import JOB_ENV
from mcpbdd.model.minted import MINTED_ENV
from mcpbdd.model.minted import refresh as refresh_minted
from mcpbdd.model.redaction import Redactor, redact_tree
from mcpbdd.reporting.console import without_banner
from mcpbdd.reporting.lost import LostScenario, write_lost_allure, write_lost_junit
from mcpbdd.reporting.messages import lost_case_envelopes
from mcpbdd.reporting.verdicts import read_verdicts
from mcpbdd.runner.behave_argv import ReportFiles, behave_args
from mcpbdd.runner.exits import EXIT_FAILED, EXIT_INTERRUPTED, EXIT_OK, EXIT_USAGE
from mcpbdd.runner.finish import RunOutputs, finish_run, merge_run_coverage
from mcpbdd.runner.formatters import MESSAGES, VERDICTS
from mcpbdd.runner.lost import lost_scenarios
from mcpbdd.runner.passes import ALL, passes_for_all
from mcpbdd.runner.plan import Plan, PlanError, Unit, balance, plan_run, shard_of
from mcpbdd.runner.progress import EventFiles, ProgressLine, ended_normally, wants_progress
from mcpbdd.runner.rerun import Flaky, Rerun, mark_flaky
from mcpbdd.runner.run_lock import FolderBusy, holding_reports
from mcpbdd.runner.run_options import REPORTS, RunOptions
from mcpbdd.runner.run_summary import Breakdown, print_summary, skip_reasons
from mcpbdd.runner.timings import load_timings, merge_units, split_for_shards, unit_weights, written_to
from mcpbdd.runner.workers import Worker, run_workers

__all__ = ["STARTUP_ERRORS", "Run", "RunConsole", "RunSettings", "plan_processes", "run", "run_outputs"]

STARTUP_ERRORS = ("ConfigError:", "ParserError:", "HOOK-ERROR in before_all", "InvalidFilenameError:")
"""Lines behave prints (and then exits 1) when a run could not start: that is a usage error, not a failure."""

MINTED_FILE = "minted-secrets"
"""In the scratch folder: the secrets the behave processes minted, a line each (`mcpbdd.model.minted`)."""

NO_STEPS = "ConfigError: No steps directory in"
NO_STEPS_HINT = (
    "behave found no steps/ folder beside the features: add steps/mcpbdd_steps.py holding "
    "`from mcpbdd.steps import *` and environment.py holding `from mcpbdd.behave import *` (both in features/, "
    "or both at the project root), or let `mcpbdd init` write them"
)
"""What a newcomer who skipped the README's second step reads, instead of behave's bare ConfigError alone."""


def run(options: RunOptions, passthrough: Sequence[str], out: TextIO | None = None) -> int:
    """`mcpbdd run`: plan, check the server can load, run in a scratch folder, redact what the run wrote."""
    out = out if out is not None else sys.stdout
    started, wall_started = time.monotonic(), time.time()
    try:
        plan = plan_run(passthrough)
    except PlanError as exc:
        print(f"mcpbdd run: {exc}", file=sys.stderr)
        return EXIT_USAGE
    settings = RunSettings.read(plan.userdata)
    from mcpbdd.runner.preflight import check_server

    cannot_start = check_server(plan.userdata)  # a server that can never load: one message, not one per scenario
    if cannot_start is not None:
        print(settings.redactor.redact(f"mcpbdd run: {cannot_start}"), file=sys.stderr)
        return EXIT_USAGE
    try:
        with holding_reports(options.results):  # one run at a time writes a reports folder (`mcpbdd.runner.run_lock`)
            scratch = Path(tempfile.mkdtemp(prefix="mcpbdd-run-"))
            try:  # the scratch folder goes whatever happens, a Ctrl-C before the workers start included
                return Run(options, plan, settings, scratch=scratch, out=out, started=started).execute()
            finally:
                refresh_minted(scratch / MINTED_FILE)  # every token the processes minted, masked below too
                shutil.rmtree(scratch, ignore_errors=True)
                redact_tree(run_outputs(options, plan), settings.redactor, since=wall_started)  # also when interrupted
    except FolderBusy as busy:
        print(f"mcpbdd run: {busy}", file=sys.stderr)
        return EXIT_USAGE


@dataclass(frozen=True)
class RunSettings:
    """The settings the run itself reads, as its behave processes will read them (`[tool.mcpbdd]`, then `-D`).

    Settings are validated by each behave process's before_all (a bad one is a usage error, see
    `STARTUP_ERRORS`, and stops it before it writes any report); here a bad one reads as none.
    """

    redactor: Redactor = field(default_factory=Redactor)
    """The secrets, for the console and the files at the end."""
    coverage_file: Path | None = None
    """Where the merged coverage goes (the `coverage_file` setting; '' for none)."""
    parity_stdio: str | None = None
    """The stdio command of the parity matrix's stdio column, if the settings name one."""
    require: tuple[str, ...] = ()
    optional: tuple[str, ...] = ()
    """What the project requires of the machine and what it may lack (`mcpbdd.model.requirements`)."""

    @classmethod
    def read(cls, userdata: dict[str, str]) -> RunSettings:
        from mcpbdd.model.config import ConfigError, load_settings

        try:
            settings = load_settings(userdata)
        except ConfigError:
            return cls()
        coverage = Path(settings.coverage_file) if settings.coverage_file else None
        return cls(Redactor(settings.secrets), coverage, settings.parity_stdio, settings.require, settings.optional)


def plan_processes(
    plan: Plan,
    harnesses: list[str | None],
    jobs: int,
    shard: tuple[int, int] | None,
    timings: Path | None = None,
) -> list[list[Unit]]:
    """The buckets of work, one per job: every (harness, feature) unit of this shard, balanced (by the timing
    file's durations when it has them)."""
    units = [Unit(u.filename, u.locations, u.scenarios, harness, u.lines) for harness in harnesses for u in plan.units]
    known = load_timings(timings)
    if shard is not None:
        units = split_for_shards(units, known, shard[1])
        units = merge_units(shard_of(units, *shard, unit_weights(units, known)))
    return [bucket for bucket in balance(units, jobs, unit_weights(units, known)) if bucket]


def run_outputs(options: RunOptions, plan: Plan) -> list[Path]:
    """Where the run writes, to redact at the end: results, JUnit, `--outfile`s and `reports/` (any other format)."""
    outputs = [options.results, *(Path(name) for name in plan.outfiles)]
    if not options.no_junit:
        outputs.append(options.junit)
    outputs += [
        path for path in (options.messages, options.cucumber_json, written_to(options.timings, options.shard)) if path
    ]
    if options.messages is not None:  # a run of several passes writes a stream per pass beside it (runner.finish)
        outputs += sorted(options.messages.parent.glob(f"{options.messages.stem}.*{options.messages.suffix}"))
    if options.harness == [ALL]:
        outputs.append(options.parity)
    if REPORTS.is_dir():
        outputs.append(REPORTS)
    return list(dict.fromkeys(path.resolve() for path in outputs))


def _prepare(folder: Path, keep: bool) -> None:
    if folder.exists() and not keep:
        shutil.rmtree(folder)
    folder.mkdir(parents=True, exist_ok=True)


def _exit_code(worker: Worker) -> int:
    code = worker.returncode
    if code == 0:
        return EXIT_OK
    if code == EXIT_USAGE or (code == 1 and any(line.startswith(STARTUP_ERRORS) for line in _lines(worker))):
        return EXIT_USAGE
    return EXIT_FAILED  # 1: a scenario failed; anything else (a crash, a signal): the run did not pass either


def _required(options: RunOptions, settings: RunSettings) -> list[str]:
    """The `-D` options that add `--require`'s capabilities to the configured ones (none without it): set last,
    so they win over a `-D` given to the run; what is required is no longer optional."""
    given = list(options.require)
    if not given:
        return []
    require = list(dict.fromkeys([*settings.require, *given]))
    optional = [name for name in settings.optional if name not in require]
    return ["-D", f"mcpbdd.require={','.join(require)}", "-D", f"mcpbdd.optional={','.join(optional)}"]


def _lines(worker: Worker) -> list[str]:
    return "".join(worker.output).splitlines()


class Run:
    """One `mcpbdd run` once planned: its behave processes, their progress and output, what they leave, the summary."""

    def __init__(
        self, options: RunOptions, plan: Plan, settings: RunSettings, *, scratch: Path, out: TextIO, started: float
    ) -> None:
        self.options, self.plan, self.scratch, self.out, self.started = options, plan, scratch, out, started
        self.wall_started = time.time() - (time.monotonic() - started)  # the run's start, as file times read
        self.redactor = settings.redactor
        self.coverage: Path | None = None if options.no_coverage else (options.coverage or settings.coverage_file)
        self.color = bool(getattr(out, "isatty", lambda: False)())
        self.stdio_command = settings.parity_stdio
        self.required = _required(options, settings)
        harnesses: list[str | None] = list(options.harness) if options.harness else [None]
        self.matrix = harnesses == [ALL]  # --harness all: the parity matrix's columns, stdio when configured
        if self.matrix:
            harnesses = [column.name for column in passes_for_all(self.stdio_command)]
        self.harnesses = harnesses
        self.verdict_files: list[tuple[Path, str | None]] = []
        self.message_parts: list[Path] = []
        self.per_harness: dict[str, EventFiles] = {}  # the summary's totals per harness
        self.verdicts_of: dict[int, tuple[Path, str | None]] = {}  # each worker's verdict file and pass
        self.lost: list[LostScenario] = []
        """The planned scenarios no verdict came for (`mcpbdd.runner.lost`): broken in every report."""
        self.flaky: list[Flaky] = []
        """The scenarios that failed, then passed on a rerun (`--rerun-failures`, `mcpbdd.runner.rerun`)."""

    def execute(self) -> int:
        """Start the processes, watch them to the end, write what derives from them; the run's exit status."""
        chains, total = self.chains()
        self.prepare_outputs()
        if not any(chains):
            where = f"shard {self.options.shard[0]}/{self.options.shard[1]}" if self.options.shard else "this run"
            print(
                f"mcpbdd: {where} has no feature to run ({len(self.plan.units)} feature file(s) in all)", file=self.out
            )
            return EXIT_OK
        progress = ProgressLine(total, enabled=wants_progress())
        events = EventFiles(w.events for chain in chains for w in chain)
        try:
            stopped_by = self.watch(chains, RunConsole(self, progress, events, live=len(chains) == 1))
            events.poll()  # the last scenarios, before the files go
            if stopped_by is None:  # an interrupted run says so: what it did not reach is not lost
                self.report_lost(chains)
                if self.options.rerun_failures > 0:
                    self.rerun()
            self.finish()
            mark_flaky(self.flaky, junit=None if self.options.no_junit else self.options.junit)
        finally:
            progress.close()
        return self.conclude(chains, events, stopped_by)

    # the behave processes ------------------------------------------------------------------------------

    def chains(self) -> tuple[list[list[Worker]], int]:
        """One chain of behave processes per job (one per harness, run one after the other), and the scenarios."""
        # Serial or not, behave gets the planned feature files, never the original paths: the same
        # arguments give the same JUnit class names (behave derives them from the paths it was given).
        buckets = plan_processes(self.plan, self.harnesses, self.options.jobs, self.options.shard, self.options.timings)
        chains: list[list[Worker]] = []
        for number, bucket in enumerate(buckets, start=1):
            job = number if len(buckets) > 1 else None
            chain = []
            for harness in self.harnesses:
                mine = [location for unit in bucket if unit.harness == harness for location in unit.locations]
                if mine:
                    chain.append(self.worker(harness, mine, job, len(buckets)))
            chains.append(chain)
        return chains, sum(unit.scenarios for bucket in buckets for unit in bucket)

    def worker(self, harness: str | None, locations: list[str], job: int | None, jobs: int) -> Worker:
        """The behave process that runs `locations` on `harness` (in job `job` of `jobs`, when there are several)."""
        name = f"{job or 0}-{harness}"
        events = self.scratch / f"events-{name}"
        self.per_harness.setdefault(str(harness), EventFiles()).add(events)
        options = [*self.plan.options, *locations]
        if self.options.update_snapshots:
            options = ["-D", "mcpbdd.update_snapshots=true", *options]
        if self.options.update_screenshots:
            options = ["-D", "mcpbdd.update_screenshots=true", *options]
        junit = None if self.options.no_junit else (self.options.junit / harness if harness else self.options.junit)
        behave = behave_args(
            ReportFiles(self.options.results, events=events, junit=junit, formats=self._formats(name, harness)),
            harness,
            options,
            color=self.color,
            pinned_elsewhere=len(self.harnesses) > 1,
            stdio_command=self.stdio_command,
            steps=self.options.steps,
        )
        # Each process writes its own coverage file (set last: it wins over a -D given to the run); merged in finish.
        part = self.scratch / f"coverage-{name}.json" if self.coverage else ""
        behave += ["-D", f"mcpbdd.coverage_file={part}", *self.required]
        where = f"job {job}/{jobs} · " if job is not None else ""
        label = f"{where}{harness + ' harness' if harness else 'configured harness'} · {len(locations)} feature file(s)"
        env = {MINTED_ENV: str(self.scratch / MINTED_FILE), **({JOB_ENV: str(job)} if job is not None else {})}
        worker = Worker(behave, env, label, events)
        self.verdicts_of[id(worker)] = self.verdict_files[-1]
        return worker

    def _formats(self, name: str, harness: str | None) -> list[tuple[str, Path]]:
        """The process's verdicts file (always) and Cucumber Messages stream (when asked for), remembered."""
        verdicts = self.scratch / f"verdicts-{name}.jsonl"
        self.verdict_files.append((verdicts, harness))
        formats = [(VERDICTS, verdicts)]
        if self.options.messages is not None or self.options.cucumber_json is not None:
            self.message_parts.append(self.scratch / f"messages-{name}.ndjson")
            formats.append((MESSAGES, self.message_parts[-1]))
        return formats

    def prepare_outputs(self) -> None:
        """Empty the results and JUnit folders (unless `--keep-results`), and the last run's coverage."""
        _prepare(self.options.results, self.options.keep_results)
        if self.coverage and not self.options.keep_results:
            self.coverage.unlink(missing_ok=True)  # a run that calls nothing must not leave the last run's coverage
        if not self.options.no_junit:
            _prepare(self.options.junit, self.options.keep_results)

    def watch(self, chains: list[list[Worker]], console: RunConsole) -> int | None:
        """Run the chains to the end; the signal that stopped them, if one did."""
        return run_workers(
            chains,
            on_output=console.on_output,
            on_done=console.on_done,
            on_tick=console.on_tick,
            on_notice=console.on_notice,
        )

    # once the processes have ended -----------------------------------------------------------------------

    def report_lost(self, chains: list[list[Worker]]) -> None:
        """Compare each process's planned scenarios with its verdicts; write a broken result for each lost one."""
        for chain in chains:
            for worker in chain:
                path, harness = self.verdicts_of[id(worker)]
                if _exit_code(worker) == EXIT_USAGE and not read_verdicts(path):
                    continue  # it could not start (its reason is on the console): nothing ran, so nothing was lost
                self.lost += lost_scenarios(
                    worker.args,
                    read_verdicts(path),
                    column=harness or "",
                    ended_normally=ended_normally(worker.events),
                    returncode=worker.returncode,
                    output=self.redactor.redact("".join(worker.output)),
                )
        if not self.lost:
            return
        write_lost_allure(self.lost, self.options.results, since=self.wall_started)
        if not self.options.no_junit:
            for harness in dict.fromkeys(lost.column for lost in self.lost):
                folder = self.options.junit / harness if harness else self.options.junit
                write_lost_junit([lost for lost in self.lost if lost.column == harness], folder)
        for column in dict.fromkeys(lost.column for lost in self.lost):
            # Added to a stream of the same pass, so each pass's merged stream names its own lost scenarios.
            part = next((p for p in self.message_parts if p.name.endswith(f"-{column or None}.ndjson")), None)
            if part is None:
                continue
            envelopes = [
                item
                for lost in self.lost
                if lost.column == column
                for item in lost_case_envelopes(lost.feature, lost.line, lost.shown, lost.details())
            ]
            with part.open("a", encoding="utf-8") as stream:
                stream.write("".join(json.dumps(item, ensure_ascii=False) + "\n" for item in envelopes))

    def rerun(self) -> None:
        """Run the failed and broken scenarios again (`--rerun-failures N`); name those that then passed as flaky."""
        verdicts = [v for path, column in self.verdict_files for v in read_verdicts(path, column or "")]
        rerun = Rerun(
            self.scratch,
            self.options.results,
            self.plan.options,
            self.rerun_args,
            self.message_parts,
            messages=self.options.messages is not None or self.options.cucumber_json is not None,
            redact=self.redactor.redact,
        )
        parts = len(self.message_parts)
        self.flaky = rerun.run(verdicts, self.options.rerun_failures, self.out)
        mark_flaky(self.flaky, results=self.options.results, streams=self.message_parts[:parts])
        for flaky in self.flaky:
            print(self.redactor.redact(flaky.line()), file=self.out)

    def rerun_args(self, files: ReportFiles, harness: str | None, options: list[str]) -> list[str]:
        """behave's arguments for a rerun process of `harness` (as the run's own, but for the paths)."""
        return behave_args(
            files,
            harness,
            options,
            color=self.color,
            pinned_elsewhere=len(self.harnesses) > 1,
            stdio_command=self.stdio_command,
            steps=self.options.steps,
        )

    def finish(self) -> None:
        """The merged coverage, then the outputs derived from every process's verdicts (`mcpbdd.runner.finish`)."""
        options = self.options
        if self.coverage:
            parts = sorted(self.scratch.glob("coverage-*.json"))
            merge_run_coverage(parts, self.coverage, keep=options.keep_results, results=options.results)
        finish_run(
            RunOutputs(
                self.verdict_files,
                timings=options.timings,
                timings_output=written_to(options.timings, options.shard),
                junit=None if options.no_junit else options.junit,
                parity=options.parity if self.matrix else None,
                columns=[h for h in self.harnesses if h] if self.matrix else (),
                results=options.results,
                stdio_command=self.stdio_command,
                message_parts=self.message_parts,
                messages=options.messages,
                cucumber_json=options.cucumber_json,
                scratch=self.scratch,
                lost=len(self.lost),
            )
        )

    def skip_reasons(self) -> list[tuple[str, int]]:
        """Why the scenarios of every process were skipped, a count per reason (for the summary)."""
        verdicts = [verdict for path, _harness in self.verdict_files for verdict in read_verdicts(path)]
        return [(self.redactor.redact(reason), count) for reason, count in skip_reasons(verdicts)]

    def conclude(self, chains: list[list[Worker]], events: EventFiles, stopped_by: int | None) -> int:
        """Print the summary; the exit status: 128 + the signal that stopped the run, else the worst process's."""
        elapsed = time.monotonic() - self.started
        if stopped_by is not None:
            name = signal.Signals(stopped_by).name
            breakdown = Breakdown(self.per_harness, skipped=self.skip_reasons())
            print_summary(self.options, events, EXIT_INTERRUPTED, elapsed, self.out, name, breakdown)
            return 128 + stopped_by
        worst = max(_exit_code(w) for chain in chains for w in chain)
        if worst == EXIT_USAGE and any(NO_STEPS in "".join(w.output) for chain in chains for w in chain):
            print(f"mcpbdd run: {NO_STEPS_HINT}", file=sys.stderr)
        if self.lost:
            worst = max(worst, EXIT_FAILED)  # a process that ended before its scenarios never passes the run
        breakdown = Breakdown(self.per_harness, self.lost, self.skip_reasons())
        print_summary(self.options, events, worst, elapsed, self.out, breakdown=breakdown)
        if self.coverage and self.coverage.is_file():
            print(f"mcpbdd: coverage in {self.coverage.resolve()} (summarise it: mcpbdd coverage)", file=self.out)
        return worst


class RunConsole:
    """What the run prints while its processes run: their output (redacted), live or per process, and progress."""

    def __init__(self, run: Run, progress: ProgressLine, events: EventFiles, *, live: bool) -> None:
        self.out, self.redactor, self.progress, self.events = run.out, run.redactor, progress, events
        self.minted = run.scratch / MINTED_FILE
        self.live = live
        """One job: each process's output as it comes; several: each process's whole output once it ends."""
        self.headed = len(run.harnesses) > 1
        """Live over several harnesses: a heading before each harness's output."""
        self._announced: set[int] = set()

    def on_output(self, worker: Worker, text: str) -> None:
        refresh_minted(self.minted)  # a token a process minted is registered there before anything can echo it
        if self.live:
            if self.headed and id(worker) not in self._announced:
                self._announced.add(id(worker))
                self.progress.write(f"\n== mcpbdd: the {worker.label.split(' harness')[0]} harness ==\n", self.out)
            self.progress.write(self.redactor.redact(without_banner(text)), self.out)

    def on_done(self, worker: Worker) -> None:
        refresh_minted(self.minted)
        if not self.live:
            output = self.redactor.redact(without_banner("".join(worker.output)))
            self.progress.write(f"\n── mcpbdd: {worker.label} ──\n{output}", self.out)

    def on_tick(self) -> None:
        self.events.poll()
        events = self.events
        self.progress.update(events.passed + events.failed + events.broken, events.failed + events.broken)

    def on_notice(self, text: str) -> None:
        self.progress.write(f"\n{text}\n", self.out)
