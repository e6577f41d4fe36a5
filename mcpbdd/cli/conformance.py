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
import sys
from pathlib import Path
from typing import Any

from mcpbdd.conformance.baseline import load_baseline
from mcpbdd.harness.targets import ServerTarget
from mcpbdd.model.config import Settings, find_pyproject, load_settings
from mcpbdd.runner.conformance import DEFAULT_MESSAGES, DEFAULT_SUMMARY, run_conformance, tag_filter
from mcpbdd.runner.exits import EXIT_OK, EXIT_USAGE
from mcpbdd.runner.run_options import DEFAULT_JUNIT, DEFAULT_RESULTS

__all__ = ["add_parser", "main", "with_settings"]


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
    return run_conformance(args, settings, tags, baseline)
