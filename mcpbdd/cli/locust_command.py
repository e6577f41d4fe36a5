"""`mcpbdd locust`: run a load profile on Locust's master and workers against an MCP server over HTTP.

    mcpbdd locust --server "{python} -m mcpbdd.examples.notes --http 127.0.0.1:{port} --auth jwks={jwks}" \
        --profile profile.json --tenant acme=2 --tenant globex=2 --scope notes:write --run-time 10 --csv-dir out
    mcpbdd locust --url http://127.0.0.1:8000/mcp --tokens test --profile profile.json --tenant acme=4
    mcpbdd locust --url URL ... --write-plan plan.json      # for Locust on several machines (docs/reference/locust.md)

The profile is a JSON list of steps, `[{"tool": "create_note", "arguments": {"title": "{caller} {n}"}, "weight": 1}]`.
Prints the percentiles and the calls by channel per tool, why the run stopped, and where the CSV files are;
`--json FILE` writes the same as JSON. Exit 0 when the run was measured, 2 when it could not start (an unreachable
server, an unknown tool, a bad option). The work is `mcpbdd.locust.runner`'s; here only the options.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import signal
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from mcpbdd.runner.exits import EXIT_OK, EXIT_USAGE

__all__ = ["add_parser", "main"]


def _tenant(text: str) -> tuple[str, int]:
    name, _, count = text.partition("=")
    if not name or not count.isdigit() or int(count) < 1:
        raise argparse.ArgumentTypeError(f"write a tenant as NAME=CALLERS (acme=2), not {text!r}")
    return name, int(count)


def add_parser(commands: Any) -> None:
    """Register `locust` on the `mcpbdd` command's subparsers."""
    parser = commands.add_parser(
        "locust",
        help="run a load profile on Locust's master and workers against an HTTP server",
        description="Many callers of many tenants at once, on Locust: percentiles and calls by channel per tool.",
    )
    where = parser.add_mutually_exclusive_group(required=True)
    where.add_argument("--url", help="the server's Streamable HTTP URL (already running)")
    where.add_argument("--server", metavar="COMMAND", help="start this command ({port}, {python}, {jwks}, {issuer})")
    parser.add_argument("--profile", type=Path, required=True, metavar="FILE", help="a JSON list of steps")
    parser.add_argument("--tenant", type=_tenant, action="append", required=True, metavar="NAME=CALLERS")
    parser.add_argument("--scope", action="append", default=[], help="a scope every caller's token holds")
    parser.add_argument("--tokens", choices=("jwt", "test", "none"), default="jwt", help="what callers send")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--run-time", type=float, default=10.0, metavar="SECONDS")
    parser.add_argument("--spawn-rate", type=float, default=None, metavar="USERS_PER_SECOND")
    parser.add_argument("--call-timeout", type=float, default=10.0, metavar="SECONDS")
    parser.add_argument("--csv-dir", type=Path, default=Path("reports/locust"), metavar="DIR")
    parser.add_argument("--json", type=Path, default=None, metavar="FILE", help="write the result as JSON")
    parser.add_argument("--write-plan", type=Path, default=None, metavar="FILE", help="write the plan, do not run")


def main(args: argparse.Namespace) -> int:
    with _sigterm_as_interrupt():
        return _main(args)


@contextlib.contextmanager
def _sigterm_as_interrupt() -> Iterator[None]:
    """SIGTERM raises `Terminated` (a KeyboardInterrupt): the runner stops Locust and the server it started, and
    `mcpbdd` exits 143, instead of dying with them still running."""
    from mcpbdd.scenario.runtime import Terminated

    def terminated(number: int, frame: object) -> None:
        raise Terminated()

    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGTERM, terminated)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def _main(args: argparse.Namespace) -> int:
    from mcpbdd.locust.plan import callers_of
    from mcpbdd.locust.runner import LocustOptions, LocustSetupError
    from mcpbdd.locust.target import ServerStartError, started_server

    try:
        steps = _profile(args.profile)
        callers = callers_of(dict(args.tenant), args.scope)
        options = LocustOptions(
            workers=args.workers,
            run_time_s=args.run_time,
            spawn_rate=args.spawn_rate,
            call_timeout_s=args.call_timeout,
            csv_dir=args.csv_dir,
            tokens=args.tokens,
        )
        if args.server:
            with started_server(args.server) as url:
                return _go(url, callers, steps, options, args)
        return _go(args.url, callers, steps, options, args)
    except (LocustSetupError, ServerStartError, ValueError, OSError) as error:
        print(f"mcpbdd locust: {error}", file=sys.stderr)
        return EXIT_USAGE


def _profile(path: Path) -> list[Any]:
    from mcpbdd.locust.plan import LocustStep

    try:
        document = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        raise ValueError(f"{path}: cannot read the profile ({error})") from error
    if not isinstance(document, list) or not all(isinstance(step, dict) and "tool" in step for step in document):
        raise ValueError(f'{path}: the profile is a JSON list of {{"tool": ..., "arguments": {{...}}, "weight": n}}')
    return [LocustStep(str(s["tool"]), dict(s.get("arguments") or {}), int(s.get("weight", 1))) for s in document]


def _go(url: str, callers: list[Any], steps: list[Any], options: Any, args: argparse.Namespace) -> int:
    from mcpbdd.locust.runner import prepare_plan, run_locust

    if args.write_plan is not None:
        plan = prepare_plan(url, callers, steps, options, Path("locust_workers.json"))
        plan.write(args.write_plan)
        print(f"wrote {args.write_plan} (it holds the callers' tokens: copy it only to the Locust machines)")
        print(_commands(plan, options, args.write_plan.name))
        return EXIT_OK
    result = run_locust(url, callers, steps, options)
    print(_table(result))
    if args.json is not None:
        args.json.write_text(json.dumps(_document(result), indent=2), encoding="utf-8")
    return EXIT_OK


def _commands(plan: Any, options: Any, name: str) -> str:
    """The master's and each worker's command for this plan (Locust's run time outlasting the users' calls)."""
    from mcpbdd.locust.processes import LOCUSTFILE, LocustTiming

    run_time = LocustTiming(options.run_time_s, options.call_timeout_s).master_run_time_s
    users = len(plan.callers)
    return "\n".join([
        "the master (reachable by the workers on port 5557):",
        f"  MCPBDD_LOCUST_PLAN={name} locust -f {LOCUSTFILE} --master --headless --expect-workers {plan.workers} "
        f"-u {users} -r {users} --run-time {run_time}s --stop-timeout 2 -H {plan.url} "
        "--csv out/locust --csv-full-history",
        f"each of the {plan.workers} workers:",
        f"  MCPBDD_LOCUST_PLAN={name} locust -f {LOCUSTFILE} --worker --master-host MASTER_HOST",
    ])  # fmt: skip


def _table(result: Any) -> str:
    lines = [f"{'tool':<24} {'calls':>7} {'p50':>7} {'p95':>7} {'p99':>7}  by channel"]
    for tool, summary in sorted(result.per_tool.items()):
        channels = ", ".join(f"{name} {count}" for name, count in summary.by_channel.items() if count)
        lines.append(
            f"{tool:<24} {summary.calls:>7} {summary.p50_ms:>7.0f} {summary.p95_ms:>7.0f} {summary.p99_ms:>7.0f}"
            f"  {channels or '-'}"
        )
    lines.append(f"{result.calls} calls in {result.duration_s:g} s ({result.calls_per_second:.1f}/s); ")
    lines[-1] += f"stopped because {result.stopped_because}"
    lines.extend(f"  {name}: {path}" for name, path in sorted(result.artifacts.items()))
    return "\n".join(lines)


def _document(result: Any) -> dict[str, Any]:
    return {
        "engine": result.engine,
        "duration_s": result.duration_s,
        "stopped_because": result.stopped_because,
        "calls": result.calls,
        "by_channel": result.by_channel(),
        "per_tool": {
            tool: {
                "calls": s.calls,
                "p50_ms": s.p50_ms,
                "p95_ms": s.p95_ms,
                "p99_ms": s.p99_ms,
                "max_ms": s.max_ms,
                "by_channel": s.by_channel,
                "reasons": s.reasons,
            }
            for tool, s in result.per_tool.items()
        },
        "timeline": result.timeline,
        "artifacts": {name: str(path) for name, path in result.artifacts.items()},
    }
