"""`mcpbdd conformance TARGET`: the bundled conformance pack against any server, on both eras.

    mcpbdd conformance [TARGET] [--only IDS] [--skip IDS] [--expected-failures FILE] [--[no-]official]
                       [--user USER [--tenant TENANT] [--scopes S,..] [--token TOKEN]]
                       [--results DIR] [--junit DIR] [--messages FILE] [--summary FILE] [--steps]
    mcpbdd conformance --requirements

`--requirements` prints the specification's server-side MUST and SHOULD sentences of both eras, each with its
anchor and what checks it: a pack check, the official suite (a check citing its section), or nothing, with the
reason written next to it (`mcpbdd.conformance.requirements`).

TARGET is what `server` under [tool.mcpbdd] takes: `package.module:attr`, `stdio: <command>`,
`http: <command with {port}>` or a URL. No file of the user's is needed: the pack's features
(`mcpbdd/conformance/features`) are copied into a scratch folder beside the one-line steps and
hooks every project has, and run by `mcpbdd run` itself, once per era (the client harness on
2026-07-28 and on the 2025-11-25 handshake), so the results are the usual ones: Allure, JUnit per
era, Cucumber Messages. Each check gets a fresh server: a process per check (forked by the fork server for a
Python command), and an in-process `module:attr` target is served over stdio for the pack
(`mcpbdd.record.stdio_server`), so a tool that ends its process or stalls ends that one check, which fails
naming the call, and the next check meets a fresh server. A Markdown summary (a row per check, a column
per era) is written for a CI job summary, and appended to `$GITHUB_STEP_SUMMARY` when that is set.

`--official` also runs the official suite's generic scenarios (`mcpbdd.runner.official`): at a URL, at
an `http:` command it starts, and at a stdio target through a loopback HTTP bridge; where it cannot
run it is reported as skipped, saying what to install, never as passed. On a server the pack found
speaking only 2025-11-25 the suite's 2026-07-28-only scenarios are not applicable, saying why; where
the pack and the suite disagree on one rule the console and the summary name it (failing nothing).

The caller (`--user`, `--tenant`, `--scopes`, `--token`): who every check calls as, stated in the summary;
anonymous when none is named. It reaches the server as the scenarios' callers do: in-process (served over
stdio for the pack) as the access token the SDK's auth middleware would set; over stdio through the `env`
setting's `{user}`, `{tenant}`, `{scopes}` templates; over HTTP as the bearer token (`--token`, else mcpbdd's
test token). A check whose calls the server refused as this caller (401/403, "unauthorized", ...) is
reported as "refused the caller", never as passed.

With no TARGET (and for each option not given) `[tool.mcpbdd.conformance]` in pyproject.toml says
(`target`, `only`, `skip`, `expected_failures`, `official`, `user`, `tenant`, `scopes`, `token`), the target
falling back to the `server` setting, so CI runs `mcpbdd conformance` alone; an option on the command line
wins over the file.

A SHOULD the server does not keep (`sep-2575-server-identifies-in-result-meta`) is a warning, reported as such
and never as passed; `--strict` (or `strict = true`) makes it a failure.

Exit 0: every check passed, did not apply, warned, or failed as the expected-failures file expects;
1: a check failed unexpectedly (one of the official suite's too), an expected failure now passes, or the server
refused the caller wherever a check applied (nothing was judged);
2: a usage error (an unknown check, an unreadable file), or a server that cannot start: one "cannot start"
verdict (with the harness's reason) instead of a failure per check.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Any, TextIO, cast

from mcpbdd.conformance import PACK, all_checks, check_named
from mcpbdd.conformance.agreement import disagreements, pack_verdicts
from mcpbdd.conformance.baseline import load_baseline
from mcpbdd.conformance.eras import speaks_only_legacy
from mcpbdd.conformance.summary import Summary, read_verdicts
from mcpbdd.harness.connectors import python_command
from mcpbdd.harness.processes.process_options import ProcessOptions
from mcpbdd.harness.targets import ServerTarget
from mcpbdd.kit.principals import ANONYMOUS_CALLER
from mcpbdd.model.config import Settings, find_pyproject, load_settings
from mcpbdd.runner.conformance_reports import RunConsole, apply_expected, totals_line
from mcpbdd.runner.conformance_start import cannot_start
from mcpbdd.runner.exits import EXIT_FAILED, EXIT_OK, EXIT_USAGE
from mcpbdd.runner.passes import LEGACY, MODERN
from mcpbdd.runner.run import run
from mcpbdd.runner.run_options import DEFAULT_JUNIT, DEFAULT_RESULTS, REPORTS, RunOptions

__all__ = ["DEFAULT_SUMMARY", "add_parser", "main", "tag_filter", "with_settings"]

DEFAULT_SUMMARY = REPORTS / "conformance.md"
CAPABILITIES = "elicitation,sampling"
"""What the pack's client declares: no roots, so a server that asks for them on every new session (as
server-everything does) does not put that question into the first call of each check's fresh session."""
DEFAULT_MESSAGES = REPORTS / "conformance.ndjson"
STEPS = (
    '"""The mcpbdd step vocabulary (written by mcpbdd conformance)."""\n\nfrom mcpbdd.steps import *  # noqa: F403\n'
)
HOOKS = '"""The mcpbdd hooks (written by mcpbdd conformance)."""\n\nfrom mcpbdd.behave import *  # noqa: F403\n'


def _ids(text: str) -> list[str]:
    return [part.strip() for part in text.split(",") if part.strip()]


def add_parser(commands: Any) -> None:
    """Register `conformance` on the `mcpbdd` command's subparsers."""
    parser = commands.add_parser(
        "conformance",
        help="run the bundled conformance pack against a server, on both eras",
        description="Run mcpbdd's conformance pack (a scenario per check, derived from the server's own tools, "
        "resources, templates and prompts) against TARGET on 2026-07-28 and 2025-11-25.",
    )
    parser.add_argument(
        "target",
        nargs="?",
        default=None,
        help="package.module:attr, 'stdio: <command>', 'http: <command>' or a URL (default: target under "
        "[tool.mcpbdd.conformance], else the server setting)",
    )
    parser.add_argument(
        "--only", type=_ids, default=None, metavar="IDS", help="run only these checks (comma-separated)"
    )
    parser.add_argument(
        "--skip", type=_ids, default=None, metavar="IDS", help="leave these checks out (comma-separated)"
    )
    parser.add_argument(
        "--expected-failures",
        type=Path,
        default=None,
        metavar="FILE",
        help=(
            "YAML list of check ids (id, id@era, or official:id for a check of the official suite) known to fail: "
            "reported as expected; one that passes is reported"
        ),
    )
    parser.add_argument("--results", type=Path, default=DEFAULT_RESULTS, help=f"Allure results ({DEFAULT_RESULTS})")
    parser.add_argument(
        "--junit", type=Path, default=DEFAULT_JUNIT, help=f"JUnit XML folder, one per era ({DEFAULT_JUNIT})"
    )
    parser.add_argument(
        "--messages", type=Path, default=DEFAULT_MESSAGES, help=f"Cucumber Messages ({DEFAULT_MESSAGES})"
    )
    parser.add_argument("--summary", type=Path, default=DEFAULT_SUMMARY, help=f"Markdown summary ({DEFAULT_SUMMARY})")
    parser.add_argument("--steps", action="store_true", help="print every step (behave's pretty format)")
    parser.add_argument(
        "--official",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="also run the official suite's generic scenarios (@modelcontextprotocol/conformance, pinned; needs npm; "
        "Node >= 22 is installed into the cache when the PATH's is older; a stdio target is reached through a "
        "loopback HTTP bridge) (default: official under [tool.mcpbdd.conformance])",
    )
    _add_caller(parser)
    parser.add_argument(
        "--strict",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="a SHOULD the server does not keep fails its check instead of warning (default: strict under "
        "[tool.mcpbdd.conformance])",
    )
    parser.add_argument(
        "--requirements",
        action="store_true",
        help="print every server-side MUST and SHOULD of the specification (2025-11-25 and 2026-07-28) with what "
        "checks it (a pack check, the official suite, or nothing and why), and exit",
    )


def _add_caller(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--user", default=None, help="the caller every check calls as (default: anonymous)")
    parser.add_argument("--tenant", default=None, help="the caller's tenant (default: the user's name)")
    parser.add_argument("--scopes", type=_ids, default=None, metavar="S,..", help="the caller's scopes")
    parser.add_argument(
        "--token", default=None, help="the bearer token the caller sends over HTTP (redacted from every report)"
    )


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


def with_settings(args: argparse.Namespace) -> tuple[argparse.Namespace, Settings]:
    """The options given, each missing one from `[tool.mcpbdd.conformance]` (ConfigError, ValueError: why not)."""

    settings = load_settings({})
    section = settings.conformance
    target = args.target or section.target or settings.server
    if target is None:
        raise ValueError(
            "no server to check: pass TARGET, or set target under [tool.mcpbdd.conformance] (or server under "
            "[tool.mcpbdd]) in pyproject.toml"
        )
    expected = args.expected_failures
    if expected is None and section.expected_failures is not None:
        pyproject = find_pyproject(Path.cwd())
        expected = (pyproject.parent if pyproject else Path.cwd()) / section.expected_failures
    chosen = argparse.Namespace(**vars(args))
    chosen.target = target
    chosen.only = args.only if args.only is not None else list(section.only) or None
    chosen.skip = args.skip if args.skip is not None else list(section.skip) or None
    chosen.expected_failures = expected
    required = section.official or "official" in settings.require  # a project that requires the suite runs it
    chosen.official = required if args.official is None else args.official
    chosen.user = args.user if args.user is not None else section.user
    chosen.tenant = args.tenant if args.tenant is not None else section.tenant
    chosen.scopes = args.scopes if args.scopes is not None else list(section.scopes)
    chosen.token = args.token if args.token is not None else section.token
    chosen.strict = section.strict if getattr(args, "strict", None) is None else args.strict
    if not chosen.user and (chosen.tenant or chosen.scopes or chosen.token):
        raise ValueError(
            "--tenant, --scopes and --token name the caller's: give --user too (or user under "
            "[tool.mcpbdd.conformance])"
        )
    return chosen, settings


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


def main(args: argparse.Namespace) -> int:
    if getattr(args, "requirements", False):
        from mcpbdd.conformance.requirements import render

        print(render(), end="")
        return EXIT_OK
    try:
        args, settings = with_settings(args)
        ServerTarget.parse(args.target)
        tags = tag_filter(args.only, args.skip)
        baseline = load_baseline(args.expected_failures)
    except ValueError as exc:  # ConfigError too: it names the setting and where it came from
        print(f"mcpbdd conformance: {exc}", file=sys.stderr)
        return EXIT_USAGE
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
