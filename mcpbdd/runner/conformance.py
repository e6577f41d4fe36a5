"""`mcpbdd conformance`'s run: the pack copied into a scratch folder and run by `mcpbdd run` on both eras.

The command line (`mcpbdd.cli.conformance`, whose docstring is the command's manual) resolves every option with
`[tool.mcpbdd.conformance]` and hands them here: the server is started once to see that it answers at all
(`conformance_start`), the pack runs through `mcpbdd.runner.run` (a fresh server per check), the expected
failures are applied to every file (`conformance_reports`), the official suite runs beside it when asked
(`official`), and the Markdown summary is written (and appended to `$GITHUB_STEP_SUMMARY` when that is set).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
from pathlib import Path
from typing import TextIO, cast

from mcpbdd.conformance import PACK, all_checks, check_named
from mcpbdd.conformance.agreement import disagreements, pack_verdicts
from mcpbdd.conformance.baseline import Baseline
from mcpbdd.conformance.eras import speaks_only_legacy
from mcpbdd.conformance.summary import Summary, read_verdicts
from mcpbdd.harness.connectors import python_command
from mcpbdd.harness.processes.process_options import ProcessOptions
from mcpbdd.harness.targets import ServerTarget
from mcpbdd.kit.principals import ANONYMOUS_CALLER
from mcpbdd.model.config import Settings
from mcpbdd.runner.conformance_reports import RunConsole, apply_expected, totals_line
from mcpbdd.runner.conformance_start import cannot_start
from mcpbdd.runner.exits import EXIT_FAILED, EXIT_OK, EXIT_USAGE
from mcpbdd.runner.passes import LEGACY, MODERN
from mcpbdd.runner.run import run
from mcpbdd.runner.run_options import REPORTS, RunOptions

__all__ = ["DEFAULT_MESSAGES", "DEFAULT_SUMMARY", "caller_label", "run_conformance", "tag_filter"]

DEFAULT_SUMMARY = REPORTS / "conformance.md"
CAPABILITIES = "elicitation,sampling"
"""What the pack's client declares: no roots, so a server that asks for them on every new session (as
server-everything does) does not put that question into the first call of each check's fresh session."""
DEFAULT_MESSAGES = REPORTS / "conformance.ndjson"
STEPS = (
    '"""The mcpbdd step vocabulary (written by mcpbdd conformance)."""\n\nfrom mcpbdd.steps import *  # noqa: F403\n'
)
HOOKS = '"""The mcpbdd hooks (written by mcpbdd conformance)."""\n\nfrom mcpbdd.behave import *  # noqa: F403\n'


def tag_filter(only: list[str] | None, skip: list[str] | None) -> list[str]:
    """behave's `--tags` options selecting the checks (`@check.<id>`); ValueError names an unknown id."""

    for name in [*(only or []), *(skip or [])]:
        check_named(name)
    tags: list[str] = []
    if only:
        tags += ["--tags", " or ".join(f"@check.{name}" for name in only)]
    if skip:
        tags += ["--tags", " and ".join(f"not @check.{name}" for name in skip)]
    return tags


def _pack(folder: Path) -> Path:
    """The pack as a behave project in `folder`: its features, the one-line steps and hooks."""

    features = folder / "conformance"
    (features / "steps").mkdir(parents=True)
    for feature in sorted(PACK.glob("*.feature")):
        shutil.copy(feature, features / feature.name)
    (features / "steps" / "mcpbdd_steps.py").write_text(STEPS, encoding="utf-8")
    (features / "environment.py").write_text(HOOKS, encoding="utf-8")
    return features


def _run_options(args: argparse.Namespace, scratch: Path) -> RunOptions:
    """`mcpbdd run`'s options for the pack: its defaults, the output paths given here, the two eras."""
    return RunOptions(
        harness=[MODERN, LEGACY],
        jobs=2,  # one behave process per era, side by side (the pack is one feature: one unit per era)
        results=args.results,
        junit=args.junit,
        messages=args.messages,
        no_coverage=True,
        timings=scratch / "timings.json",
        steps=args.steps,
    )


def caller_label(args: argparse.Namespace) -> str:
    """Who the pack calls as, as the summary says it."""
    if not args.user:
        return ANONYMOUS_CALLER
    scopes = f" with scopes {', '.join(args.scopes)}" if args.scopes else " with no scopes"
    token = " and the bearer token given (redacted)" if args.token else ""
    return f"{args.user} of tenant {args.tenant or args.user}{scopes}{token}"


def _userdata(args: argparse.Namespace, settings: Settings) -> tuple[str, list[str]]:
    """The target the pack reaches (an in-process one served over stdio) and the `-D` options naming the caller."""
    target = ServerTarget.parse(args.target)
    served = args.target
    options: list[str] = []
    if target.kind == "inprocess":
        served = "stdio: " + python_command("mcpbdd.record.stdio_server", target.spec)
        from mcpbdd.record.stdio_server import CALLER_ENV

        env = {**settings.env, **CALLER_ENV, "MCPBDD_TENANT_CLAIM": settings.tenant_claim}
        options += ["-D", f"mcpbdd.env={json.dumps(env)}"]
    section = {
        "user": args.user,
        "tenant": args.tenant,
        "scopes": list(args.scopes or []),
        "token": args.token,
        "strict": bool(args.strict),
    }
    options += ["-D", f"mcpbdd.conformance={json.dumps(section)}"]
    if args.token:
        tokens = {**settings.tokens, args.user: args.token}
        options += ["-D", f"mcpbdd.tokens={json.dumps(tokens)}"]
        options += ["-D", f"mcpbdd.secrets={','.join([*settings.secrets, args.token])}"]
    return served, options


def run_conformance(args: argparse.Namespace, settings: Settings, tags: list[str], baseline: Baseline) -> int:
    """Run the pack against `args.target` (every option resolved: `mcpbdd.cli.conformance.with_settings`), the
    official suite too when asked; write the summary; the command's exit status (see the module docstring)."""
    served, caller_options = _userdata(args, settings)
    problem = cannot_start(served, settings)
    if problem is not None:
        print(f"mcpbdd conformance: cannot start {args.target}: no check ran: {problem}", file=sys.stderr)
        _write_summary(
            f"## mcpbdd conformance: `{args.target}`\n\ncannot start: no check ran.\n\n```\n{problem}\n```\n",
            args.summary,
        )
        return EXIT_USAGE
    scratch = Path(tempfile.mkdtemp(prefix="mcpbdd-conformance-"))
    try:
        features = _pack(scratch)
        # a fresh server per check (reuse_server=scenario): one that a check ended or stalled ends only that check
        passthrough = [str(features), "-D", f"mcpbdd.server={served}", "-D", "mcpbdd.reuse_server=scenario"]
        passthrough += [*caller_options, "-D", f"mcpbdd.capabilities={CAPABILITIES}", *tags]
        console = RunConsole(sys.stdout)  # the run's totals count expected failures as failed: this command's count
        status = run(_run_options(args, scratch), passthrough, out=cast(TextIO, console))
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    if status not in (EXIT_OK, EXIT_FAILED):
        console.release()
        return status  # a usage error, an interrupt: the run said why
    summary = Summary.of(read_verdicts(args.junit, args.messages), baseline)
    apply_expected(args, summary, baseline)  # expected failures: skipped with their reason in every file
    if not summary.verdicts:
        print("mcpbdd conformance: no check ran (see --only and --skip)", file=sys.stderr)
        return EXIT_USAGE
    official = None
    if args.official:
        from mcpbdd.runner.official import run_official

        options = ProcessOptions(env=settings.env, cwd=settings.cwd, spawn="plain")
        legacy = speaks_only_legacy(summary.verdicts, [check.id for check in all_checks() if check.modern_only])
        pack = pack_verdicts(summary.verdicts)
        official = run_official(
            args.target,
            args.junit,
            options=options,
            legacy=legacy,
            disagree=lambda checks: disagreements(pack, checks),
            expected=baseline.official,
        )
        if legacy is None and not official.skipped:
            print(
                "mcpbdd conformance: no 2026-07-28 check of the pack ran, so the server's era is unknown: the "
                "official suite's 2026-07-28 scenarios keep their verdicts"
            )
        for line in official.console():
            print(f"mcpbdd conformance: {line}")
    who = caller_label(args)
    print(f"mcpbdd conformance: called as {who}")
    text = summary.markdown(args.target, all_checks(), who) + (official.markdown() if official else "")
    _write_summary(text, args.summary)
    for entry in summary.stale:
        print(f"mcpbdd conformance: the expected failure {entry} now passes: remove it from the file")
    print(f"mcpbdd conformance: {totals_line(summary)}")
    expected = sum(v.status == "expected failure" for v in summary.verdicts)
    if expected:
        print(
            f"mcpbdd conformance: {expected} expected failure(s), as the expected-failures file says (skipped in "
            "every report, naming the file)"
        )
    print(f"mcpbdd conformance: summary in {args.summary}")
    print(  # every file it wrote, so none is a surprise in the working folder (--results/--junit/--messages move them)
        f"mcpbdd conformance: also wrote Allure results in {args.results}, JUnit in {args.junit}, "
        f"Cucumber Messages in {args.messages.with_suffix('')}.*{args.messages.suffix}"
    )
    if official is not None and official.skipped is not None:  # asked for and not run: never a green
        print(f"mcpbdd conformance: the official suite could not run: {official.skipped}", file=sys.stderr)
        return EXIT_USAGE
    if summary.unexpected or summary.stale or (official is not None and (official.failed or official.stale)):
        return EXIT_FAILED
    if summary.refused_only:
        print(
            f"mcpbdd conformance: no check judged the server: it refused {who} wherever a check applied; name a "
            "caller it accepts (--user, --tenant, --scopes, --token)",
            file=sys.stderr,
        )
        return EXIT_FAILED
    return EXIT_OK


def _write_summary(text: str, path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    job_summary = os.environ.get("GITHUB_STEP_SUMMARY")
    if job_summary:
        with open(job_summary, "a", encoding="utf-8") as summary:
            summary.write(text)
