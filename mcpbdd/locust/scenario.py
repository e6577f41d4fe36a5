"""A scenario's load on Locust: the scenario's callers and profile, Locust's master and workers, the same checks.

    from mcpbdd.load import LoadStep, load_of
    from mcpbdd.locust.scenario import run_on_locust

    load = load_of(world)  # a World whose server is reached over HTTP, on the client harness
    load.add_callers(2, ["acme", "globex"])
    load.steps = [LoadStep("create_note", {"title": "{caller} note {n}", "body": "x"}), LoadStep("list_notes")]
    run_on_locust(load, workers=2, run_time_s=3)
    load.check_storage_isolated()
    load.check_latency(None, 95, 1000)

The run is kept as the load's last (`load.last`), so every check of `ScenarioLoad` reads Locust's statistics:
latency percentiles and errors by channel from its CSVs, throughput over the run time, and storage isolation and
writes stored once from what the workers reported as acknowledged (each caller's call numbers, from which the
writes' arguments are rebuilt: `written_of`). What callers read is not brought back (Locust keeps no answer), so
the check of reads says so instead of passing.

It lives here, above `mcpbdd.load`, because the load core imports no Locust code (the layers: `locust` sits
on `load`). Only a server Locust's processes can reach works: one over Streamable HTTP; an in-process server
lives in this process's loop, and a stdio server serves the one client that started it.
"""

from __future__ import annotations

import shutil
import tempfile
import weakref
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mcpbdd.load.driver import LoadRun, Written
from mcpbdd.load.profile import LoadBound, LoadSpecError, LoadStep
from mcpbdd.load.results import LoadResult
from mcpbdd.locust.plan import LocustCaller, schedule_of, steps_of
from mcpbdd.locust.reports import written_of_workers
from mcpbdd.locust.runner import LocustOptions, run_locust, workers_report

if TYPE_CHECKING:
    from mcpbdd.kit.principals import Principal
    from mcpbdd.load.scenario import ScenarioLoad

__all__ = ["LocustTargetError", "locust_target", "run_on_locust", "unreported", "written_of"]

_HTTP_EXAMPLE = (
    'Given the MCP server "http: {python} -m your.server --http 127.0.0.1:{port}" (or "http://host:port/mcp"), '
    "on the client harness (-D mcpbdd.harness=client)"
)


class LocustTargetError(LoadSpecError):
    """The scenario's server is not one Locust's processes can reach (it is in-process, or over stdio)."""


def locust_target(world: Any) -> tuple[str, Any]:
    """The scenario's MCP URL and the function giving each caller's bearer token there (the tokens the scenario's
    own HTTP client sends); a `LocustTargetError` saying why and which target works when there is none."""
    from mcpbdd.harness.connectors import Http

    connector = getattr(world.harness, "connector", None)
    kind = str(getattr(connector, "kind", ""))
    if connector is None or not kind.startswith("http"):
        what = {
            "inprocess": "is in-process (it lives in this process's event loop, which Locust's processes cannot reach)",
            "stdio": "is reached over stdio (a stdio server serves the one client that started it)",
        }.get(kind, f"is driven by the {world.harness_name} harness, without a client connection")
        raise LocustTargetError(
            f"Locust drives a server over Streamable HTTP from processes of its own, and this scenario's server "
            f"{what}: {_HTTP_EXAMPLE}"
        )
    url = str(connector.url)
    token_for = getattr(connector, "token_for", None)
    if token_for is None:  # a server the scenario started: the same tokens as its own HTTP sessions carry
        token_for = Http(url, tokens=connector.tokens, bearer=connector.bearer).token_for
    return url, token_for


def run_on_locust(load: ScenarioLoad, *, workers: int = 2, run_time_s: float, csv_dir: Path | None = None) -> LoadRun:
    """Run the load's profile with its callers on Locust (`workers` workers, `run_time_s` seconds) against the
    scenario's HTTP server; the run becomes the load's last, so the load's checks read Locust's statistics.

    `csv_dir`: where Locust's CSV files and logs are kept (None: a directory removed with the scenario's load).
    Raises `LoadSpecError` for a target Locust cannot drive, `LocustSetupError` for a run that could not start
    (Locust not installed, the server unreachable, a tool it does not offer).
    """
    world = load.world
    url, token_for = locust_target(world)
    callers = load.load_callers()
    profile = load.profile(LoadBound(duration_s=run_time_s))
    options = LocustOptions(
        workers=workers,
        run_time_s=run_time_s,
        spawn_rate=len(callers) / profile.ramp_up_s if profile.ramp_up_s > 0 else None,
        call_timeout_s=float(getattr(world.harness, "timeout", 5.0)),
        csv_dir=csv_dir if csv_dir is not None else _scratch(load),
        tokens="given",
    )
    tokened = [LocustCaller(c.tenant, c.user, tuple(c.scopes), token_for(c) or "") for c in callers]
    load.upstream_mark = len(world.upstream.requests)
    result = run_locust(url, tokened, profile.steps, options)
    written = written_of(result, callers, profile.steps)
    run = LoadRun(result, list(callers), written, writes_unreported=unreported(result, profile.steps, written))
    if result.calls > result.by_channel()["transport_error"]:
        world.placement.answered()  # the server answered: a check relying on the doubles can be judged
    load.runs.append(run)
    return run


def written_of(result: LoadResult, callers: Sequence[Principal], steps: Sequence[LoadStep]) -> list[Written]:
    """The acknowledged writes of a Locust run, rebuilt from the numbers of the calls each worker reported
    acknowledged: a caller's `n`th call is the schedule's step at `n - 1` (modulo its length), with its arguments
    filled for that caller and `n`, as the worker filled them."""
    schedule = [LoadStep(s.tool, s.arguments, s.weight) for s in schedule_of(steps_of(steps))]
    by_user = {caller.user: caller for caller in callers}
    written = []
    for user, numbers in written_of_workers(workers_report(result)).items():
        caller = by_user.get(user)
        if caller is None:
            continue
        for n in numbers:
            step = schedule[(n - 1) % len(schedule)]
            arguments = step.filled(caller.user, caller.tenant, n)
            marks = tuple(str(arguments[name]) for name in step.marked())
            if marks:
                written.append(Written(step.tool, caller.user, caller.tenant, marks))
    return written


def unreported(result: LoadResult, steps: Sequence[LoadStep], written: Sequence[Written]) -> int:
    """How many acknowledged writes Locust counted that no worker reported by number (0 when every one was):
    for each tool whose every step names its call, its `ok` calls in Locust's statistics less those reported."""
    tools = {step.tool for step in steps}
    named = [tool for tool in tools if all(step.marked() for step in steps if step.tool == tool)]
    missing = 0
    for tool in named:
        summary = result.per_tool.get(tool)
        counted = summary.by_channel.get("ok", 0) if summary is not None else 0
        missing += max(0, counted - sum(1 for write in written if write.tool == tool))
    return missing


def _scratch(load: ScenarioLoad) -> Path:
    """A directory for Locust's files that lives as long as the scenario's load (the report attaches them)."""
    folder = Path(tempfile.mkdtemp(prefix="mcpbdd-locust-csv-"))
    weakref.finalize(load, shutil.rmtree, folder, True)
    return folder
