"""`run_locust`: run a load profile on Locust's master and workers against an MCP server over HTTP.

    from mcpbdd.locust.plan import LocustStep, callers_of
    from mcpbdd.locust.runner import LocustOptions, run_locust

    result = run_locust(
        "http://127.0.0.1:8000/mcp",
        callers_of({"acme": 2, "globex": 2}, scopes=["notes:write"]),
        [LocustStep("create_note", {"title": "{caller} #{n}", "body": "x"}, 1), LocustStep("list_notes", {}, 2)],
        LocustOptions(workers=2, run_time_s=5, csv_dir=Path("reports/locust")),
    )
    result.per_tool["create_note"].p95_ms, result.by_channel()

What happens, in order: each caller gets a token (`tokens="jwt"`: minted by mcpbdd's fake authorization server
for the server's URL, which the server must verify against that server's JWKS; `"test"`: mcpbdd's test tokens;
`"none"`); one call lists the server's tools with the first caller's token, so an unreachable server or a profile
naming a tool the server does not offer stops here with a message saying so; the plan is written (a private
file: it holds the tokens); the master and the workers run (`processes.py`), each worker's users are the plan's
callers; the statistics are read back (`stats.py`). The result's `stopped_because` says whether the run time
ended, or the deadline passed and Locust was killed (what it had measured is kept), and `artifacts` names the
CSV files and the logs, copied to `csv_dir`.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import importlib.util
import shutil
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Literal

from mcpbdd.load.results import LoadResult
from mcpbdd.locust.plan import LocustCaller, LocustPlan, ProfileStep, steps_of
from mcpbdd.locust.processes import LocustTiming, MasterOptions, started_locust
from mcpbdd.locust.reports import read_workers, timeline_of_workers
from mcpbdd.locust.stats import read_result

__all__ = [
    "LocustOptions",
    "LocustSetupError",
    "TokenKind",
    "prepare_plan",
    "run_locust",
    "with_tokens",
    "workers_report",
]

TokenKind = Literal["jwt", "test", "none", "given"]
PREFLIGHT_TIMEOUT_S = 15.0


class LocustSetupError(RuntimeError):
    """The run could not start as asked (unreachable server, unknown tool, bad options): nothing was measured."""


@dataclass(frozen=True)
class LocustOptions:
    """How the run goes: workers, its length, how fast users arrive, each call's timeout, where files go."""

    workers: int = 2
    run_time_s: float = 10.0
    spawn_rate: float | None = None
    """Users started per second over all workers (None: all at once)."""
    call_timeout_s: float = 10.0
    csv_dir: Path | None = None
    """Where the CSV files and logs are kept (None: a temporary directory, removed with the plan)."""
    tokens: TokenKind = "jwt"
    """What callers send: `jwt` minted by the fake authorization server, `test` tokens, `none`, or `given`: the
    token each caller already holds (a scenario's, as its HTTP target would be sent)."""
    tenant_claim: str = "tenant"
    startup_s: float = 30.0

    def __post_init__(self) -> None:
        if self.workers < 1:
            raise LocustSetupError(f"give at least one worker, not {self.workers}")
        if not 0 < self.run_time_s <= 24 * 3600:
            raise LocustSetupError(f"the run time must be between 0 and a day, not {self.run_time_s} s")
        if self.call_timeout_s <= 0:
            raise LocustSetupError(f"a call's timeout must be positive, not {self.call_timeout_s} s")


def run_locust(
    url: str, callers: Sequence[LocustCaller], steps: Sequence[ProfileStep], options: LocustOptions | None = None
) -> LoadResult:
    """Run the profile with one Locust user per caller, spread over the workers; the statistics as a LoadResult."""
    options = options or LocustOptions()
    if importlib.util.find_spec("locust") is None:
        raise LocustSetupError("Locust is not installed here: pip install 'mcpbdd[load]' (Locust and gevent)")
    private = Path(tempfile.mkdtemp(prefix="mcpbdd-locust-"))
    try:
        keep = Path(options.csv_dir) if options.csv_dir is not None else private / "out"
        keep.mkdir(parents=True, exist_ok=True)
        plan = prepare_plan(url, callers, steps, options, keep / "workers.json")
        return _run(plan.write(private / "plan.json"), keep, options, len(plan.callers))
    finally:
        shutil.rmtree(private, ignore_errors=True)


def prepare_plan(
    url: str, callers: Sequence[LocustCaller], steps: Sequence[ProfileStep], options: LocustOptions, report: Path
) -> LocustPlan:
    """The plan of a run: the callers with their tokens, after one call showed the server reachable and offering
    every tool of the profile (`LocustSetupError` otherwise). Write it with `LocustPlan.write` (it holds tokens)."""
    if not callers:
        raise LocustSetupError("the load has no callers: give at least one tenant with one caller")
    try:
        profile = steps_of(steps)
    except ValueError as error:
        raise LocustSetupError(str(error)) from error
    tokened = with_tokens(url, callers, options)
    _preflight(url, tokened[0], [step.tool for step in profile], options.call_timeout_s)
    return LocustPlan(
        url, tokened, profile, options.workers, options.call_timeout_s, str(report), run_time_s=options.run_time_s
    )


def _run(plan: Path, keep: Path, options: LocustOptions, users: int) -> LoadResult:
    from mcpbdd.harness.processes.http_process import free_port

    timing = LocustTiming(options.run_time_s, options.call_timeout_s, startup_s=options.startup_s, stop_s=2.0)
    master = MasterOptions(
        LocustPlan.read(plan).url,
        free_port(),
        users,
        options.spawn_rate or float(users),
        options.workers,
        keep / "locust",
    )
    started = time.monotonic()
    with started_locust(master, timing, plan, keep) as processes:
        ended = processes.wait(started + timing.hard_deadline_s)
        code = processes.master.poll()
        lost = _workers_lost(processes.workers)
    report = keep / "workers.json"
    timeline, span = timeline_of_workers(read_workers(report))
    duration = options.run_time_s if ended and code in (0, 1) else span
    result = read_result(keep / "locust", duration_s=duration, stopped_because="")
    why = _why(ended, code, processes, timing, options.run_time_s, result.calls) + lost
    artifacts = {**result.artifacts, **{f"log {name}": path for name, path in processes.logs.items()}}
    if report.is_file():
        artifacts["workers"] = report
    return replace(result, stopped_because=why, artifacts=artifacts, timeline=timeline or result.timeline)


def _workers_lost(workers: Sequence[Any]) -> str:
    """The workers a signal ended before the master did, in words ("" when none): the calls a worker made since its
    last report (every 3 s) died with it, so a run that lost one must not read as whole."""
    lost = [(index, worker.poll()) for index, worker in enumerate(workers)]
    said = [f"worker {index} was killed by signal {-code}" for index, code in lost if code is not None and code < 0]
    if not said:
        return ""
    return f"; but {', '.join(said)} during the run: the calls it made since its last report are not counted"


def _why(ended: bool, code: int | None, processes: Any, timing: LocustTiming, run_time_s: float, calls: int) -> str:
    """Why the run stopped, in words: a partial or empty result must never read as a complete one."""
    log = processes.logs["master"]
    if not ended:
        return (
            f"the hard deadline ({timing.hard_deadline_s:g} s) passed before Locust ended: "
            f"{', '.join(processes.killed) or 'its processes'} were killed; the statistics are those written so far"
        )
    if code not in (0, 1):  # 1: some calls failed (Locust's --exit-code-on-error), or Locust gave up
        return f"Locust's master exited with code {code} (see {log})"
    if calls == 0:
        return f"Locust's master exited with code {code} and measured no call (see {log} and the workers' logs)"
    return f"the {run_time_s:g} s run time ended"


def workers_report(result: LoadResult) -> dict[str, dict[str, Any]]:
    """What each worker said it did (`{client id: {"calls": {tool: n}, "callers": [...], ...}}`, see `reports`):
    the proof that every worker took part ({} when no worker reported)."""
    return read_workers(result.artifacts.get("workers"))


def with_tokens(url: str, callers: Sequence[LocustCaller], options: LocustOptions) -> list[LocustCaller]:
    """The callers, each with the token `options.tokens` says (JWTs for `url` from the fake authorization server)."""
    if options.tokens == "given":
        return list(callers)
    if options.tokens == "none":
        return [replace(caller, token="") for caller in callers]
    if options.tokens == "test":
        from mcpbdd.kit.principals import Principal

        return [replace(c, token=Principal(c.user, c.tenant, c.scopes).token) for c in callers]
    from mcpbdd.authorization.server import fake_authorization_server
    from mcpbdd.authorization.tokens import DEFAULT_LIFETIME, TokenSpec, mint
    from mcpbdd.kit.principals import DEFAULT_CLIENT_ID

    issuer = fake_authorization_server().issuer
    now = time.time()
    lifetime = max(DEFAULT_LIFETIME, options.startup_s + options.run_time_s + 600)
    return [
        replace(
            caller,
            token=mint(
                TokenSpec(caller.user, caller.tenant, caller.scopes, DEFAULT_CLIENT_ID, now, now + lifetime),
                resource=url,
                issuer=issuer,
                tenant_claim=options.tenant_claim,
            ),
        )
        for caller in callers
    ]


def _preflight(url: str, caller: LocustCaller, tools: list[str], timeout_s: float) -> None:
    """List the server's tools as `caller`: an unreachable server or an unknown tool stops the run before it starts."""
    with concurrent.futures.ThreadPoolExecutor(1) as pool:  # its own loop: the caller may be inside one
        try:
            offered = pool.submit(asyncio.run, _list_tools(url, caller, min(timeout_s, PREFLIGHT_TIMEOUT_S))).result()
        except Exception as error:
            raise LocustSetupError(
                f"the server at {url} could not be reached to list its tools as {caller.user} "
                f"({type(error).__name__}: {error}); start it first, or check the URL and the caller's token"
            ) from error
    unknown = [tool for tool in dict.fromkeys(tools) if tool not in offered]
    if unknown:
        raise LocustSetupError(
            f"the profile calls {', '.join(map(repr, unknown))}, which the server at {url} does not offer; "
            f"it offers {', '.join(map(repr, sorted(offered))) or 'no tool'}"
        )


async def _list_tools(url: str, caller: LocustCaller, timeout_s: float) -> set[str]:
    import anyio
    import httpx2
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client

    headers = {"Authorization": f"Bearer {caller.token}"} if caller.token else {}
    async with httpx2.AsyncClient(headers=headers, timeout=timeout_s) as http:
        with anyio.fail_after(timeout_s):
            async with Client(streamable_http_client(url, http_client=http), cache=None) as client:
                listed = await client.list_tools()
    return {tool.name for tool in listed.tools}
