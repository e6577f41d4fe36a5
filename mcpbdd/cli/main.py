"""The `mcpbdd` command: run specifications, render the report, list the vocabulary, start a project.

    mcpbdd run [--harness context,client|both] [--jobs N] [--shard I/N] [--results DIR]
               [--junit DIR | --no-junit] [--keep-results] [behave options and paths...]
    mcpbdd report [RESULTS...] [--output DIR] [--name NAME]
    mcpbdd steps [--markdown]
    mcpbdd init --server package.module:attr [DIRECTORY]

`run` is a thin wrapper over behave: mcpbdd's Allure formatter (results under
`reports/allure-results`), JUnit XML for CI (`reports/junit`), behave's readable console
output (`pretty` unless a format is given), the same specifications once per harness,
`--jobs` processes on one machine and `--shard` for CI machines (see `mcpbdd.cli.plan`),
and a progress line on a terminal. The configured secrets are redacted from the console
output and, once every behave process has ended, from every file the run wrote: the Allure
results, the JUnit XML, any `--outfile` and anything else under `reports/` (see
`mcpbdd.reporting.redaction`). Each behave run is its own process, because behave's `main()`
leaks step definitions when called twice in one process.

Exit codes CI can trust: 0 every scenario passed; 1 a scenario failed; 2 a usage error
(a bad option, setting or path, a feature file that does not parse: the run could not
start). `report` exits 2 when there is nothing to render or Node.js is missing.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import TextIO

from mcpbdd.cli.plan import Plan, PlanError, Unit, balance, parse_shard, plan_run, shard_of
from mcpbdd.cli.progress import EventFiles, ProgressLine, wants_progress
from mcpbdd.cli.workers import JOB_ENV, Worker, run_workers
from mcpbdd.kinds import HarnessKind, harness_tags
from mcpbdd.reporting.redaction import Redactor, redact_tree

REPORTS = Path("reports")
DEFAULT_RESULTS = REPORTS / "allure-results"
DEFAULT_JUNIT = REPORTS / "junit"
DEFAULT_HTML = REPORTS / "html"
EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2
FORMATTER = "mcpbdd.reporting.allure_formatter:AllureFormatter"
PROGRESS = "mcpbdd.cli.progress:ProgressFormatter"
STARTUP_ERRORS = ("ConfigError:", "ParserError:", "HOOK-ERROR in before_all", "InvalidFilenameError:")
"""Lines behave prints (and then exits 1) when a run could not start: that is a usage error, not a failure."""


def _harnesses(text: str) -> list[HarnessKind]:
    if text.strip() == "both":
        return list(HarnessKind)
    chosen = [part.strip() for part in text.split(",") if part.strip()]
    unknown = [name for name in chosen if name not in list(HarnessKind)]
    if unknown or not chosen:
        known = ", ".join(HarnessKind)
        raise argparse.ArgumentTypeError(f"unknown harness {', '.join(unknown) or text!r}: use {known} or both")
    return [HarnessKind(name) for name in dict.fromkeys(chosen)]


def _jobs(text: str) -> int:
    if text == "auto":
        return os.cpu_count() or 1
    try:
        jobs = int(text)
    except ValueError:
        jobs = 0
    if jobs < 1:
        raise argparse.ArgumentTypeError(f"--jobs {text!r}: use a number of processes (1 or more) or auto")
    return jobs


def _shard(text: str) -> tuple[int, int]:
    try:
        return parse_shard(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="mcpbdd", description="Gherkin specifications for MCP servers.")
    commands = parser.add_subparsers(dest="command", required=True)
    run = commands.add_parser(
        "run",
        help="run the specifications with behave; write Allure results and JUnit XML",
        description="Run behave with mcpbdd's Allure formatter. Unknown options and paths are passed to behave.",
    )
    run.add_argument(
        "--harness",
        type=_harnesses,
        default=None,
        help="run on these harnesses: context, client, or both (default: the configured one)",
    )
    run.add_argument("--jobs", "-j", type=_jobs, default=1, help="behave processes on this machine (N or auto)")
    run.add_argument("--shard", type=_shard, default=None, metavar="I/N", help="run only shard I of N (CI machines)")
    run.add_argument("--results", type=Path, default=DEFAULT_RESULTS, help=f"Allure results folder ({DEFAULT_RESULTS})")
    run.add_argument("--junit", type=Path, default=DEFAULT_JUNIT, help=f"JUnit XML folder ({DEFAULT_JUNIT})")
    run.add_argument("--no-junit", action="store_true", help="write no JUnit XML")
    run.add_argument("--keep-results", action="store_true", help="add to the results folders instead of emptying them")
    report = commands.add_parser(
        "report",
        help="render Allure results into one HTML file (Allure 3, needs Node.js)",
        description="Render one or more Allure results folders (e.g. one per CI shard) into a single HTML file.",
    )
    report.add_argument("results", nargs="*", type=Path, help=f"results folders (default: {DEFAULT_RESULTS})")
    report.add_argument("--output", "-o", type=Path, default=DEFAULT_HTML, help=f"report folder ({DEFAULT_HTML})")
    report.add_argument("--name", default="mcpbdd report", help="the report's title")
    catalog = commands.add_parser(
        "catalog",
        help="the error catalog: each tool's declared failures and the scenarios that specify them (Markdown)",
    )
    catalog.add_argument("--server", help="package.module:attr (default: server under [tool.mcpbdd])")
    catalog.add_argument("features", nargs="?", type=Path, default=Path("features"), help="the feature files")
    steps = commands.add_parser("steps", help="list the step vocabulary, grouped, with an example of each")
    steps.add_argument("--markdown", action="store_true", help="print Markdown (for a wiki or the README)")
    init = commands.add_parser(
        "init",
        help="scaffold features/, steps/, environment.py and [tool.mcpbdd] with a first passing scenario",
    )
    init.add_argument("--server", required=True, help="the server under test: package.module:attr")
    init.add_argument("directory", nargs="?", type=Path, default=Path("."), help="the project folder (default: .)")
    init.add_argument(
        "--harness", choices=list(HarnessKind), default=HarnessKind.CONTEXT, help="the default harness to configure"
    )
    return parser


# run ---------------------------------------------------------------------------------------------------


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
) -> list[str]:
    """behave's arguments for one process.

    behave pairs `--outfile`s with `--format`s by position, so our formatters come first
    with their files; console formats (the user's, or `pretty`) follow and write to stdout.
    """
    args = ["--format", FORMATTER, "--outfile", str(results)]
    if events is not None:
        args += ["--format", PROGRESS, "--outfile", str(events)]
    if not _has_format(passthrough):
        args += ["--format", "pretty"]
    if not any(arg in ("--no-skipped", "--show-skipped") for arg in passthrough):
        args += ["--no-skipped"]  # a run filtered by tags reports what ran, not everything it left out
    if junit is not None:
        args += ["--junit", "--junit-directory", str(junit)]
    if color and not _has_color(passthrough):
        args += ["--color", "always"]
    if harness is not None:
        args += ["-D", f"mcpbdd.harness={harness}"]
        if pinned_elsewhere:
            args += ["--tags", PINNED_TO_OTHERS[harness]]
    return [*args, *passthrough]


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
    plan: Plan, harnesses: list[str | None], jobs: int, shard: tuple[int, int] | None
) -> list[list[Unit]]:
    """The buckets of work, one per job: every (harness, feature) unit of this shard, balanced."""
    units = [Unit(u.filename, u.locations, u.scenarios, harness) for harness in harnesses for u in plan.units]
    if shard is not None:
        units = shard_of(units, *shard)
    return [bucket for bucket in balance(units, jobs) if bucket]


def _run_redactor(userdata: dict[str, str]) -> Redactor:
    """The run's secrets, read as its behave processes will read them (`[tool.mcpbdd]`, then `-D mcpbdd.secrets`)."""
    from mcpbdd.config import ConfigError, load_settings

    try:
        return Redactor(load_settings(userdata).secrets)
    except ConfigError:
        return Redactor()  # each behave process stops with the reason (exit 2), before writing any report


def _run_outputs(args: argparse.Namespace, plan: Plan) -> list[Path]:
    """Where the run writes, to redact at the end: results, JUnit, `--outfile`s and `reports/` (any other format)."""
    outputs = [args.results, *(Path(name) for name in plan.outfiles)]
    if not args.no_junit:
        outputs.append(args.junit)
    if REPORTS.is_dir():
        outputs.append(REPORTS)
    return list(dict.fromkeys(path.resolve() for path in outputs))


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
    scratch = Path(tempfile.mkdtemp(prefix="mcpbdd-run-"))
    color = bool(getattr(out, "isatty", lambda: False)())

    def worker(harness: str | None, locations: list[str], job: int | None, jobs: int) -> Worker:
        events = scratch / f"events-{job or 0}-{harness}"
        junit = None if args.no_junit else (args.junit / harness if harness else args.junit)
        options = [*plan.options, *locations]
        behave = behave_args(
            args.results,
            harness,
            options,
            events=events,
            junit=junit,
            color=color,
            pinned_elsewhere=len(harnesses) > 1,
        )
        where = f"job {job}/{jobs} · " if job is not None else ""
        label = f"{where}{harness + ' harness' if harness else 'configured harness'} · {len(locations)} feature file(s)"
        return Worker(behave, {JOB_ENV: str(job)} if job is not None else {}, label, events)

    # Serial or not, behave gets the planned feature files, never the original paths: the same
    # arguments give the same JUnit class names (behave derives them from the paths it was given).
    buckets = plan_processes(plan, harnesses, args.jobs, args.shard)
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
    if not args.no_junit:
        _prepare(args.junit, args.keep_results)
    if not any(chains):
        where = f"shard {args.shard[0]}/{args.shard[1]}" if args.shard else "this run"
        print(f"mcpbdd: {where} has no feature to run ({len(plan.units)} feature file(s) in all)", file=out)
        shutil.rmtree(scratch, ignore_errors=True)
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
            progress.write(redactor.redact(text), out)

    def on_done(worker: Worker) -> None:
        if not live:
            progress.write(f"\n── mcpbdd: {worker.label} ──\n{redactor.redact(''.join(worker.output))}", out)

    def on_tick() -> None:
        events.poll()
        progress.update(events.passed + events.failed, events.failed)

    try:
        run_workers(chains, on_output=on_output, on_done=on_done, on_tick=on_tick)
        events.poll()  # the last scenarios, before the files go
    finally:
        progress.close()
        shutil.rmtree(scratch, ignore_errors=True)
        redact_tree(_run_outputs(args, plan), redactor, since=wall_started)  # also after an interrupted run
    worst = max(_exit_code(w) for chain in chains for w in chain)
    _summary(args, events, worst, time.monotonic() - started, out)
    return worst


def _summary(args: argparse.Namespace, events: EventFiles, worst: int, elapsed: float, out: TextIO) -> None:
    counts = f"{events.passed} passed, {events.failed} failed"
    if events.skipped:
        counts += f", {events.skipped} skipped"
    where = []
    if args.jobs > 1:
        where.append(f"{args.jobs} jobs")
    if args.shard:
        where.append(f"shard {args.shard[0]}/{args.shard[1]}")
    how = f" ({', '.join(where)})" if where else ""
    verdict = {EXIT_OK: "passed", EXIT_FAILED: "FAILED", EXIT_USAGE: "could not run"}[worst]
    print(f"\nmcpbdd: {verdict}: {counts} in {elapsed:.1f} s{how}", file=out)
    print(f"mcpbdd: Allure results in {args.results.resolve()} (render them: mcpbdd report)", file=out)
    if not args.no_junit:
        print(f"mcpbdd: JUnit XML in {args.junit.resolve()}", file=out)


# report, steps, init ------------------------------------------------------------------------------------


def report(args: argparse.Namespace) -> int:
    from mcpbdd.reporting import html as html_report

    results = args.results or [DEFAULT_RESULTS]
    try:
        page = html_report.render(results, args.output, name=args.name)
    except html_report.NodeMissing as exc:
        print(f"mcpbdd report: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except (FileNotFoundError, html_report.RenderError) as exc:
        print(f"mcpbdd report: {exc}", file=sys.stderr)
        return EXIT_USAGE
    print(f"mcpbdd: report written: {page}")
    print(f"mcpbdd: open it in a browser: {page.as_uri()}")
    return EXIT_OK


def print_catalog(args: argparse.Namespace) -> int:
    """`mcpbdd catalog`: the server's error contracts joined with the scenarios that specify them."""
    from mcpbdd.checks.error_catalog import catalog
    from mcpbdd.config import load_settings

    server = args.server or load_settings({}).server
    if not server:
        print("mcpbdd catalog: no server: pass --server package.module:attr or set server under [tool.mcpbdd]")
        return EXIT_USAGE
    if os.getcwd() not in sys.path:  # the project's server imports from the folder it runs in, as under behave
        sys.path.insert(0, os.getcwd())
    try:
        print(catalog(server, args.features))
    except ValueError as exc:
        print(f"mcpbdd catalog: {exc}")
        return EXIT_USAGE
    return EXIT_OK


def list_steps(markdown: bool) -> int:
    """Print the vocabulary: every step mcpbdd registers, grouped by concern, with its example."""
    from mcpbdd.cli import vocabulary

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
    parser = _parser()
    args, passthrough = parser.parse_known_args(argv)
    try:
        if args.command == "run":
            return run(args, passthrough)
        if passthrough:
            parser.error(f"unrecognized arguments: {' '.join(passthrough)}")
        if args.command == "catalog":
            return print_catalog(args)
        if args.command == "report":
            return report(args)
        if args.command == "init":
            return init(args)
        return list_steps(args.markdown)
    except BrokenPipeError:  # `mcpbdd steps | head`
        sys.stderr.close()
        return EXIT_OK
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
