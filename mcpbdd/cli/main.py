"""The `mcpbdd` command: run specifications, render the report, list the vocabulary, start a project.

    mcpbdd run [--harness context,client|both|all] [--jobs N] [--shard I/N] [--steps] [--results DIR]
               [--junit DIR | --no-junit] [--keep-results] [--coverage FILE | --no-coverage]
               [--update-snapshots] [--timings FILE] [--parity DIR]
               [--messages FILE] [--cucumber-json FILE] [behave options and paths...]
    mcpbdd report [RESULTS...] [--output DIR] [--name NAME] [--coverage FILE...] [--messages FILE]
    mcpbdd surface dump [--server TARGET] [-o FILE] | mcpbdd surface diff OLD.json NEW.json
    mcpbdd coverage [FILES...] [--json] [--fail-under [KIND=]PCT ...] [-o MERGED]
    mcpbdd catalog [--json] [--strict] [FEATURES]
    mcpbdd steps [--markdown]
    mcpbdd init --server package.module:attr [DIRECTORY]
    mcpbdd record --out FILE -- COMMAND | feature CASSETTE | verify CASSETTE  (see mcpbdd.cli.recording)

`run` is a thin wrapper over behave: mcpbdd's Allure formatter (results under `reports/allure-
results`), JUnit XML for CI (`reports/junit`), behave's readable console output (a line per scenario
unless a format is given; every step with `--steps`), the same specifications once per harness,
`--jobs` processes on one machine and `--shard` for CI machines (see `mcpbdd.cli.plan`), balanced by
the timing file (`mcpbdd.cli.timings`), the parity matrix (`--harness all`), Cucumber Messages and
Cucumber JSON, JUnit properties (`mcpbdd.cli.finish`), and a progress line on a terminal. The
configured secrets are redacted from the console output and, once every behave process has ended,
from every file the run wrote: the Allure results, the JUnit XML, any `--outfile` and anything else
under `reports/` (see `mcpbdd.model.redaction`). Each behave run is its own process, because
behave's `main()` leaks step definitions when called twice in one process.

Exit codes CI can trust: 0 every scenario passed; 1 a scenario failed; 2 a usage error
(a bad option, setting or path, a feature file that does not parse, a configured server
that cannot load: the run could not start); 130 interrupted (SIGINT, Ctrl-C) and 143
terminated (SIGTERM): the behave processes got the signal, closed their scenarios and
stopped, and the totals so far are printed. `report` exits 2 when there is nothing to
render or Node.js is missing.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import shutil
import signal
import sys
import tempfile
import threading
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any, TextIO

from mcpbdd.cli import coverage as coverage_cli
from mcpbdd.cli import recording
from mcpbdd.cli import surface as surface_cli
from mcpbdd.cli.finish import finish_run
from mcpbdd.cli.options import DEFAULT_HTML, DEFAULT_JUNIT, DEFAULT_RESULTS, REPORTS, build_parser
from mcpbdd.cli.passes import ALL, pass_options, pass_overrides, passes_for_all
from mcpbdd.cli.plan import Plan, PlanError, Unit, balance, plan_run, shard_of
from mcpbdd.cli.progress import EventFiles, ProgressLine, wants_progress
from mcpbdd.cli.timings import load_timings, merge_units, split_for_shards, unit_weights, written_to
from mcpbdd.cli.workers import Worker, run_workers
from mcpbdd.model.config import JOB_ENV
from mcpbdd.model.kinds import HarnessKind, harness_tags
from mcpbdd.model.redaction import Redactor, redact_tree
from mcpbdd.reporting.console import STEPS_FORMAT, SUMMARY_FORMAT, without_banner
from mcpbdd.reporting.totals import Totals, totals_lines
from mcpbdd.scenario.runtime import Terminated

VERDICTS = "mcpbdd.reporting.verdicts:VerdictFormatter"
MESSAGES = "mcpbdd.reporting.messages:MessagesFormatter"
EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2
EXIT_INTERRUPTED = 128 + signal.SIGINT
"""Stopped by a signal: 128 + its number, as a shell reports a process it killed (130 SIGINT, 143 SIGTERM)."""
FORMATTER = "mcpbdd.reporting.allure_formatter:AllureFormatter"
PROGRESS = "mcpbdd.cli.progress:ProgressFormatter"
STARTUP_ERRORS = ("ConfigError:", "ParserError:", "HOOK-ERROR in before_all", "InvalidFilenameError:")
"""Lines behave prints (and then exits 1) when a run could not start: that is a usage error, not a failure."""


def _has_format(passthrough: Sequence[str]) -> bool:
    return any(arg in ("-f", "--format") or arg.startswith(("--format=", "-f")) for arg in passthrough)


def _has_color(passthrough: Sequence[str]) -> bool:
    return any(arg.split("=", 1)[0] in ("--color", "--no-color", "-C") for arg in passthrough)


def behave_args(
    results: Path,
    harness: str | None,
    passthrough: Sequence[str],
    *,
    events: Path | None = None,
    junit: Path | None = None,
    color: bool = False,
    pinned_elsewhere: bool = False,
    formats: Sequence[tuple[str, Path]] = (),
    stdio_command: str | None = None,
    steps: bool = False,
) -> list[str]:
    """behave's arguments for one process.

    behave pairs `--outfile`s with `--format`s by position, so our formatters come first
    with their files; console formats (the user's, else a line per scenario, or every step with
    `steps`: see `mcpbdd.reporting.console`) follow and write to stdout.
    """
    args = ["--format", FORMATTER, "--outfile", str(results)]
    if events is not None:
        args += ["--format", PROGRESS, "--outfile", str(events)]
    for name, outfile in formats:  # mcpbdd's other formatters: verdicts, Cucumber Messages
        args += ["--format", name, "--outfile", str(outfile)]
    if not _has_format(passthrough):
        args += ["--format", STEPS_FORMAT if steps else SUMMARY_FORMAT]
    if not any(arg in ("--no-skipped", "--show-skipped") for arg in passthrough):
        args += ["--no-skipped"]  # a run filtered by tags reports what ran, not everything it left out
    if junit is not None:
        args += ["--junit", "--junit-directory", str(junit)]
    if color and not _has_color(passthrough):
        args += ["--color", "always"]
    if harness is not None:
        args += pass_options(harness, pinned_elsewhere, stdio_command)
    return [*args, *passthrough, *pass_overrides(harness, stdio_command)]


PINNED_TO_OTHERS = {
    kind: " and ".join(f"not @{tag}" for other in HarnessKind if other is not kind for tag in harness_tags(other))
    for kind in HarnessKind
}
"""In a run over several harnesses, each pass leaves out the scenarios a tag pins to another harness:
that harness's own pass runs them, so no scenario is reported twice."""


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


def _lines(worker: Worker) -> list[str]:
    return "".join(worker.output).splitlines()


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


def _run_redactor(userdata: dict[str, str]) -> Redactor:
    """The run's secrets, read as its behave processes will read them (`[tool.mcpbdd]`, then `-D mcpbdd.secrets`)."""
    from mcpbdd.model.config import ConfigError, load_settings

    try:
        return Redactor(load_settings(userdata).secrets)
    except ConfigError:
        return Redactor()  # each behave process stops with the reason (exit 2), before writing any report


def _coverage_file(userdata: dict[str, str]) -> Path | None:
    """Where the run's merged coverage goes: the `coverage_file` setting ('' for none), as behave would read it."""
    from mcpbdd.model.config import ConfigError, load_settings

    try:
        configured = load_settings(userdata).coverage_file
    except ConfigError:
        return None
    return Path(configured) if configured else None


def _run_outputs(args: argparse.Namespace, plan: Plan) -> list[Path]:
    """Where the run writes, to redact at the end: results, JUnit, `--outfile`s and `reports/` (any other format)."""
    outputs = [args.results, *(Path(name) for name in plan.outfiles)]
    if not args.no_junit:
        outputs.append(args.junit)
    outputs += [path for path in (args.messages, args.cucumber_json, written_to(args.timings, args.shard)) if path]
    if args.messages is not None:  # a run of several passes writes a stream per pass beside it (cli.finish)
        outputs += sorted(args.messages.parent.glob(f"{args.messages.stem}.*{args.messages.suffix}"))
    if args.harness == [ALL]:
        outputs.append(args.parity)
    if REPORTS.is_dir():
        outputs.append(REPORTS)
    return list(dict.fromkeys(path.resolve() for path in outputs))


def _parity_stdio(userdata: dict[str, str]) -> str | None:
    """The stdio command of the parity matrix's stdio column (`parity_stdio`), if the settings name one."""
    from mcpbdd.model.config import ConfigError, load_settings

    try:
        return load_settings(userdata).parity_stdio
    except ConfigError:
        return None


def run(args: argparse.Namespace, passthrough: Sequence[str], out: TextIO | None = None) -> int:
    out = out if out is not None else sys.stdout
    started, wall_started = time.monotonic(), time.time()
    try:
        plan = plan_run(passthrough)
    except PlanError as exc:
        print(f"mcpbdd run: {exc}", file=sys.stderr)
        return EXIT_USAGE
    # Settings are validated by each behave process's before_all (a bad one is a usage error, see
    # STARTUP_ERRORS); here only the secrets are read, for the console and the files at the end.
    harnesses: list[str | None] = list(args.harness) if args.harness else [None]
    redactor = _run_redactor(plan.userdata)
    from mcpbdd.cli.preflight import check_server

    cannot_start = check_server(plan.userdata)  # a server that can never load: one message, not one per scenario
    if cannot_start is not None:
        print(redactor.redact(f"mcpbdd run: {cannot_start}"), file=sys.stderr)
        return EXIT_USAGE
    scratch = Path(tempfile.mkdtemp(prefix="mcpbdd-run-"))
    try:  # the scratch folder goes whatever happens, a Ctrl-C before the workers start included
        return _run_planned(args, plan, harnesses, scratch, out, started, redactor)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
        redact_tree(_run_outputs(args, plan), redactor, since=wall_started)  # also after an interrupted run


def _run_planned(
    args: argparse.Namespace,
    plan: Plan,
    harnesses: list[str | None],
    scratch: Path,
    out: TextIO,
    started: float,
    redactor: Redactor,
) -> int:
    """The run once planned: the behave processes, their progress and output, the summary."""
    coverage = None if args.no_coverage else (args.coverage or _coverage_file(plan.userdata))
    color = bool(getattr(out, "isatty", lambda: False)())
    stdio_command = _parity_stdio(plan.userdata)
    matrix = harnesses == [ALL]  # --harness all: the parity matrix's columns, stdio when configured
    if matrix:
        harnesses = [column.name for column in passes_for_all(stdio_command)]
    verdict_files: list[tuple[Path, str | None]] = []
    message_parts: list[Path] = []
    harness_events: dict[str, EventFiles] = {}  # the summary's totals per harness

    def worker(harness: str | None, locations: list[str], job: int | None, jobs: int) -> Worker:
        events = scratch / f"events-{job or 0}-{harness}"
        harness_events.setdefault(str(harness), EventFiles()).add(events)
        verdicts = scratch / f"verdicts-{job or 0}-{harness}.jsonl"
        verdict_files.append((verdicts, harness))
        formats = [(VERDICTS, verdicts)]
        if args.messages is not None or args.cucumber_json is not None:
            message_parts.append(scratch / f"messages-{job or 0}-{harness}.ndjson")
            formats.append((MESSAGES, message_parts[-1]))
        junit = None if args.no_junit else (args.junit / harness if harness else args.junit)
        options = [*plan.options, *locations]
        if args.update_snapshots:
            options = ["-D", "mcpbdd.update_snapshots=true", *options]
        behave = behave_args(
            args.results,
            harness,
            options,
            events=events,
            junit=junit,
            color=color,
            pinned_elsewhere=len(harnesses) > 1,
            formats=formats,
            stdio_command=stdio_command,
            steps=args.steps,
        )
        # Each process writes its own coverage file (set last: it wins over a -D given to the run); merged below.
        part = scratch / f"coverage-{job or 0}-{harness}.json" if coverage else ""
        behave += ["-D", f"mcpbdd.coverage_file={part}"]
        where = f"job {job}/{jobs} · " if job is not None else ""
        label = f"{where}{harness + ' harness' if harness else 'configured harness'} · {len(locations)} feature file(s)"
        return Worker(behave, {JOB_ENV: str(job)} if job is not None else {}, label, events)

    # Serial or not, behave gets the planned feature files, never the original paths: the same
    # arguments give the same JUnit class names (behave derives them from the paths it was given).
    buckets = plan_processes(plan, harnesses, args.jobs, args.shard, args.timings)
    chains: list[list[Worker]] = []
    for number, bucket in enumerate(buckets, start=1):
        job = number if len(buckets) > 1 else None
        chain = []
        for harness in harnesses:
            mine = [location for unit in bucket if unit.harness == harness for location in unit.locations]
            if mine:
                chain.append(worker(harness, mine, job, len(buckets)))
        chains.append(chain)
    total = sum(unit.scenarios for bucket in buckets for unit in bucket)
    _prepare(args.results, args.keep_results)
    if coverage and not args.keep_results:
        coverage.unlink(missing_ok=True)  # a run that calls nothing must not leave the last run's coverage
    if not args.no_junit:
        _prepare(args.junit, args.keep_results)
    if not any(chains):
        where = f"shard {args.shard[0]}/{args.shard[1]}" if args.shard else "this run"
        print(f"mcpbdd: {where} has no feature to run ({len(plan.units)} feature file(s) in all)", file=out)
        return EXIT_OK

    progress = ProgressLine(total, enabled=wants_progress())
    events = EventFiles(w.events for chain in chains for w in chain)
    live = len(chains) == 1
    announced: set[int] = set()

    def on_output(worker: Worker, text: str) -> None:
        if live:
            if len(harnesses) > 1 and id(worker) not in announced:
                announced.add(id(worker))
                progress.write(f"\n== mcpbdd: the {worker.label.split(' harness')[0]} harness ==\n", out)
            progress.write(redactor.redact(without_banner(text)), out)

    def on_done(worker: Worker) -> None:
        if not live:
            progress.write(
                f"\n── mcpbdd: {worker.label} ──\n{redactor.redact(without_banner(''.join(worker.output)))}", out
            )

    def on_tick() -> None:
        events.poll()
        progress.update(events.passed + events.failed + events.broken, events.failed + events.broken)

    def on_notice(text: str) -> None:
        progress.write(f"\n{text}\n", out)

    try:
        stopped_by = run_workers(chains, on_output=on_output, on_done=on_done, on_tick=on_tick, on_notice=on_notice)
        events.poll()  # the last scenarios, before the files go
        if coverage:
            parts = sorted(scratch.glob("coverage-*.json"))
            coverage_cli.merge_run_coverage(parts, coverage, keep=args.keep_results, results=args.results)
        finish_run(
            verdict_files,
            timings=args.timings,
            timings_output=written_to(args.timings, args.shard),
            junit=None if args.no_junit else args.junit,
            parity=args.parity if matrix else None,
            columns=[h for h in harnesses if h] if matrix else (),
            results=args.results,
            stdio_command=stdio_command,
            message_parts=message_parts,
            messages=args.messages,
            cucumber_json=args.cucumber_json,
            scratch=scratch,
        )
    finally:
        progress.close()
    if stopped_by is not None:
        _summary(
            args,
            events,
            EXIT_INTERRUPTED,
            time.monotonic() - started,
            out,
            signal.Signals(stopped_by).name,
            per_harness=harness_events,
        )
        return 128 + stopped_by
    worst = max(_exit_code(w) for chain in chains for w in chain)
    _summary(args, events, worst, time.monotonic() - started, out, per_harness=harness_events)
    if coverage and coverage.is_file():
        print(f"mcpbdd: coverage in {coverage.resolve()} (summarise it: mcpbdd coverage)", file=out)
    return worst


def _summary(
    args: argparse.Namespace,
    events: EventFiles,
    worst: int,
    elapsed: float,
    out: TextIO,
    signal_name: str = "",
    per_harness: dict[str, EventFiles] | None = None,
) -> None:
    counts = f"{events.passed} passed, {events.failed} failed"
    if events.broken:  # the specification or its set-up is wrong, not the server (mcpbdd.reporting.broken)
        counts += f", {events.broken} broken"
    if events.skipped:
        counts += f", {events.skipped} skipped"
    where = []
    if args.jobs > 1:
        where.append(f"{args.jobs} jobs")
    if args.shard:
        where.append(f"shard {args.shard[0]}/{args.shard[1]}")
    how = f" ({', '.join(where)})" if where else ""
    verdict = {EXIT_OK: "passed", EXIT_FAILED: "FAILED", EXIT_USAGE: "could not run"}.get(
        worst, f"interrupted ({signal_name})"
    )
    print(f"\nmcpbdd: {verdict}: {counts} in {elapsed:.1f} s{how}", file=out)
    if per_harness and len(per_harness) > 1:
        for name, files in per_harness.items():
            files.poll()
            print(
                f"mcpbdd:   {name} harness: {Totals(files.passed, files.failed, files.skipped, files.broken)}", file=out
            )
    print(f"mcpbdd: Allure results in {args.results.resolve()} (render them: mcpbdd report)", file=out)
    if not args.no_junit:
        print(f"mcpbdd: JUnit XML in {args.junit.resolve()}", file=out)


# report, steps, init ------------------------------------------------------------------------------------


def _merged_coverage(files: list[Path] | None) -> dict[str, Any] | None:
    """`report --coverage`: the files merged (FileNotFoundError/ValueError name a missing or unreadable one)."""
    if not files:
        return None
    from mcpbdd.checks.coverage import load_coverage, merge

    missing = [str(path) for path in files if not path.is_file()]
    if missing:
        raise FileNotFoundError(f"no coverage file: {', '.join(missing)} (run `mcpbdd run` or `mcpbdd coverage -o`)")
    return merge(load_coverage(path) for path in files)


def report(args: argparse.Namespace) -> int:
    from mcpbdd.reporting import html as html_report

    results = args.results or [DEFAULT_RESULTS]
    try:
        if args.messages is not None:
            from mcpbdd.reporting.cucumber_html import render_messages

            page = render_messages(args.messages, args.output / "cucumber.html")
        else:
            page = html_report.render(results, args.output, name=args.name, coverage=_merged_coverage(args.coverage))
    except html_report.NodeMissing as exc:
        print(f"mcpbdd report: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except (FileNotFoundError, ValueError, html_report.RenderError) as exc:
        print(f"mcpbdd report: {exc}", file=sys.stderr)
        return EXIT_USAGE
    for line in totals_lines(results):  # the last lines say what the report holds and where it is
        print(line)
    print(f"mcpbdd: report written: {page}")
    print(f"mcpbdd: open it in a browser: {page.as_uri()}")
    return EXIT_OK


def print_catalog(args: argparse.Namespace) -> int:
    """`mcpbdd catalog`: the server's error contracts joined with the scenarios that specify them."""
    from mcpbdd.checks.error_catalog import catalog, catalog_json, unspecified
    from mcpbdd.model.config import load_settings

    server = args.server or load_settings({}).server
    if not server:
        print("mcpbdd catalog: no server: pass --server package.module:attr or set server under [tool.mcpbdd]")
        return EXIT_USAGE
    if os.getcwd() not in sys.path:  # the project's server imports from the folder it runs in, as under behave
        sys.path.insert(0, os.getcwd())
    try:
        data = catalog_json(server, args.features)
        print(json.dumps(data, indent=2) if args.json else catalog(server, args.features))
    except ValueError as exc:
        print(f"mcpbdd catalog: {exc}")
        return EXIT_USAGE
    gaps = unspecified(data) if args.strict else []
    for gap in gaps:
        print(f"mcpbdd catalog: no scenario specifies the declared failure {gap}", file=sys.stderr)
    return EXIT_FAILED if gaps else EXIT_OK


def list_steps(markdown: bool) -> int:
    """Print the vocabulary: every step mcpbdd registers, grouped by concern, with its example."""
    from mcpbdd.phrases import vocabulary

    sys.stdout.write(vocabulary.markdown() if markdown else vocabulary.text())
    return EXIT_OK


def init(args: argparse.Namespace) -> int:
    from mcpbdd.cli.scaffold import InitError, scaffold

    try:
        done = scaffold(args.directory, args.server, harness=args.harness)
    except InitError as exc:
        print(f"mcpbdd init: {exc}", file=sys.stderr)
        return EXIT_USAGE
    root = args.directory.resolve()
    for path in done.written:
        print(f"  wrote {path.relative_to(root)}")
    for path in done.kept:
        print(f"  kept  {path.relative_to(root)} (already there)")
    tools = ", ".join(done.tools) or "no tools yet"
    print(f"\nmcpbdd: {args.server} offers {tools}. Next, in {root}:")
    print("  behave            # the first scenario passes")
    print("  mcpbdd steps      # the phrases you can write")
    print("  mcpbdd run        # with Allure results and JUnit XML; then: mcpbdd report")
    return EXIT_OK


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    argv, server_command = recording.split_command(sys.argv[1:] if argv is None else argv)
    args, passthrough = parser.parse_known_args(argv)
    try:
        if args.command == "run":
            with _sigterm_as_interrupt():
                return run(args, passthrough)
        if passthrough:
            parser.error(f"unrecognized arguments: {' '.join(passthrough)}")
        if args.command == "coverage":
            return coverage_cli.main(args)
        if args.command == "surface":
            return surface_cli.main(args)
        if args.command == "catalog":
            return print_catalog(args)
        if args.command == "report":
            return report(args)
        if args.command == "init":
            return init(args)
        recorded = recording.dispatch(args, server_command)
        if recorded is not None:
            return recorded
        return list_steps(args.markdown)
    except BrokenPipeError:  # `mcpbdd steps | head`
        sys.stderr.close()
        return EXIT_OK
    except KeyboardInterrupt as interrupt:  # before or after the behave processes ran (while they run: run_workers)
        return 128 + (signal.SIGTERM if isinstance(interrupt, Terminated) else signal.SIGINT)


@contextlib.contextmanager
def _sigterm_as_interrupt() -> Iterator[None]:
    """SIGTERM raises `Terminated` (a KeyboardInterrupt) instead of ending the process: cleanups run, exit 143."""

    def terminated(number: int, frame: object) -> None:
        raise Terminated()

    if threading.current_thread() is not threading.main_thread() or signal.getsignal(signal.SIGTERM) != signal.SIG_DFL:
        yield
        return
    signal.signal(signal.SIGTERM, terminated)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, signal.SIG_DFL)


if __name__ == "__main__":
    sys.exit(main())


__all__ = [
    "DEFAULT_HTML",
    "DEFAULT_JUNIT",
    "DEFAULT_RESULTS",
    "FORMATTER",
    "PINNED_TO_OTHERS",
    "PROGRESS",
    "REPORTS",
    "STARTUP_ERRORS",
    "behave_args",
    "init",
    "list_steps",
    "main",
    "plan_processes",
    "print_catalog",
    "report",
    "run",
]
