"""Locust's master and two workers on loopback drive the example notes server; the statistics come back.

One run (shared by the tests that read it): two tenants' callers create and list notes
through the notes server's production authorization (JWTs minted by the fake authorization server, verified
against its JWKS), and look up a note nobody has (a tool error every time). Then the attacks, each with a run
of its own: a server that stalls, floods or refuses (every call counted on its channel, the run ends on time);
a server that dies mid-run (what was measured is kept, the rest are transport errors); an interrupted run and
a runner killed with SIGKILL leave no Locust process.

The notes run and the two attack runs of their own are independent and mostly wait (on their run times, the stall's
timeouts): one module fixture runs the three side by side, each with its own master, workers and server.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio
import pytest
from processes import MARKER_ENV, alive, processes_marked, wait_until

from mcpbdd.load.results import LoadResult
from mcpbdd.locust.plan import LocustCaller, LocustPlan, LocustStep, callers_of
from mcpbdd.locust.processes import LocustTiming, MasterOptions, started_locust
from mcpbdd.locust.runner import LocustOptions, LocustSetupError, run_locust, with_tokens, workers_report
from mcpbdd.locust.target import started_server

NOTES = "{python} -m mcpbdd.examples.notes --http 127.0.0.1:{port} --auth jwks={jwks},issuer={issuer}"
MISBEHAVING = "{python} " + str(Path(__file__).parents[1] / "locust_servers.py") + " {port}"
RUN_TIME_S = 2.0
"""The notes run's: some 250 calls of each tool (fewer on a crowded machine), far from the one each test needs."""
DYING_RUN_TIME_S = 6.0
PROFILE = [
    LocustStep("create_note", {"title": "{tenant}/{caller}/{n}", "body": "written under load"}, 1),
    LocustStep("list_notes", {}, 1),
    LocustStep("get_note", {"note_id": "no-such-note-{n}"}, 1),
]

pytestmark = pytest.mark.timeout(180)


@dataclass(frozen=True)
class NotesRun:
    result: LoadResult
    stored: dict[str, list[Any]]
    """Every tenant's notes after the load, as a fresh caller of the tenant lists them."""
    tokens: list[str]
    """The JWTs minted for the run (each test starts with the registry of minted secrets emptied)."""


@dataclass(frozen=True)
class Runs:
    """The module's three Locust runs, made at once."""

    notes: NotesRun
    misbehaving: LoadResult
    """Against the server that stalls, floods and refuses; `misbehaving_took_s` is how long run_locust took."""
    misbehaving_took_s: float
    dying: LoadResult
    """Against a server SIGKILLed once calls were made."""


@pytest.fixture(scope="module")
def runs(misbehaving_url: str, tmp_path_factory: pytest.TempPathFactory) -> Runs:
    with ThreadPoolExecutor(max_workers=3) as pool:
        notes = pool.submit(_notes_run, tmp_path_factory.mktemp("locust"))
        misbehaving = pool.submit(_misbehaving_run, misbehaving_url, tmp_path_factory.mktemp("misbehaving"))
        dying = pool.submit(_dying_run, tmp_path_factory.mktemp("dying"))
        result, took = misbehaving.result()
        return Runs(notes.result(), result, took, dying.result())


@pytest.fixture(scope="module")
def notes_run(runs: Runs) -> NotesRun:
    return runs.notes


def _notes_run(out: Path) -> NotesRun:
    """One Locust run against the notes server, and afterwards every tenant's notes."""
    from mcpbdd.model.minted import minted

    callers = callers_of({"acme": 2, "globex": 2}, scopes=["notes:write"])
    before = set(minted())  # what earlier tests of this worker minted (an unsigned token among them) is not the run's
    with started_server(NOTES) as url:
        options = LocustOptions(workers=2, run_time_s=RUN_TIME_S, call_timeout_s=3.0, csv_dir=out)
        result = run_locust(url, callers, PROFILE, options)
        tokens = [secret for secret in minted() if secret.count(".") == 2 and secret not in before]
        stored = {tenant: _notes_of(url, result, tenant) for tenant in ("acme", "globex")}
    return NotesRun(result, stored, tokens)


def _notes_of(url: str, result: LoadResult, tenant: str) -> list[Any]:
    """The notes a fresh caller of `tenant` lists after the load (a JWT minted as the load's were)."""
    import httpx2
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client

    (reader,) = with_tokens(url, [LocustCaller(tenant, f"{tenant}-reader")], LocustOptions())

    async def listed() -> list[Any]:
        headers = {"Authorization": f"Bearer {reader.token}"}
        async with (
            httpx2.AsyncClient(headers=headers) as http,
            Client(streamable_http_client(url, http_client=http)) as client,
        ):
            answer = await client.call_tool("list_notes", {})
        assert not answer.is_error, answer
        return list(answer.structured_content["notes"])

    return anyio.run(listed)


def test_every_tool_was_called_and_measured(notes_run: NotesRun) -> None:
    result = notes_run.result
    assert result.engine == "locust"
    assert sorted(result.per_tool) == ["create_note", "get_note", "list_notes"], result.per_tool
    for summary in result.per_tool.values():
        assert summary.calls > 0, summary
        assert 0 < summary.p50_ms <= summary.p95_ms <= summary.p99_ms <= summary.max_ms, summary
    assert result.stopped_because == f"the {RUN_TIME_S:g} s run time ended"
    assert result.duration_s == RUN_TIME_S
    assert sum(calls for _, calls, _ in result.timeline) == result.calls, result.timeline
    for kind in ("stats", "failures", "stats_history"):
        assert result.artifacts[kind].is_file(), result.artifacts


def test_both_workers_made_calls_as_their_own_callers(notes_run: NotesRun) -> None:
    result = notes_run.result
    workers = workers_report(result)
    assert len(workers) == 2, workers
    callers = [set(report["callers"]) for report in workers.values()]
    assert all(sum(report["calls"].values()) > 0 for report in workers.values()), workers
    assert callers[0].isdisjoint(callers[1]) and callers[0] | callers[1] == {"acme-1", "acme-2", "globex-1", "globex-2"}
    made = sum(sum(report["calls"].values()) for report in workers.values())
    assert made == result.calls, (made, result.calls)


def test_the_failing_tool_is_counted_on_its_channel(notes_run: NotesRun) -> None:
    result = notes_run.result
    lookups = result.per_tool["get_note"]
    assert lookups.by_channel["tool_error"] == lookups.calls > 0, lookups
    assert lookups.reasons == {"note_not_found": lookups.calls}
    for tool in ("create_note", "list_notes"):
        assert result.per_tool[tool].by_channel["ok"] == result.per_tool[tool].calls, result.per_tool[tool]


def test_each_tenant_stores_only_what_its_callers_wrote(notes_run: NotesRun) -> None:
    result, stored = notes_run.result, notes_run.stored
    for tenant, notes in stored.items():
        assert notes, f"{tenant} has no note after the load"
        assert all(note["title"].startswith(f"{tenant}/{tenant}-") for note in notes), notes
    assert sum(len(notes) for notes in stored.values()) == result.per_tool["create_note"].by_channel["ok"]


def _signature(token: str) -> str:
    """A JWT's signature, which alone would let nobody forge but names the token; every minted JWT has one."""
    signature = token.rsplit(".", 1)[1]
    assert signature, f"an unsigned token among the run's: {token[:20]}..."
    return signature


def test_no_token_reaches_a_file_the_run_left(notes_run: NotesRun) -> None:
    result, tokens = notes_run.result, notes_run.tokens
    assert len(tokens) >= 4, "the callers' JWTs were not minted here"
    for name, path in result.artifacts.items():
        text = path.read_text(encoding="utf-8", errors="replace")
        # the whole token, or its signature alone
        leaked = [token[-12:] for token in tokens if token in text or _signature(token) in text]
        assert leaked == [], f"{name} ({path}) holds a token ending {leaked}"


@pytest.fixture(scope="module")
def misbehaving_url() -> Iterator[str]:
    with started_server(MISBEHAVING) as url:
        yield url


def _misbehaving_run(url: str, out: Path) -> tuple[LoadResult, float]:
    # one round: 1.5 s of stall, a 4 MB answer (about a second on a crowded machine), two quick calls; 6 s hold two
    profile = [LocustStep("stall"), LocustStep("refuse"), LocustStep("echo", {"text": "{n}"}), LocustStep("flood")]
    options = LocustOptions(workers=2, run_time_s=6, call_timeout_s=1.5, csv_dir=out, tokens="test")
    started = time.monotonic()
    result = run_locust(url, callers_of({"acme": 2}), profile, options)
    return result, time.monotonic() - started


def test_a_stalling_flooding_refusing_server_is_counted_and_the_run_ends_on_time(runs: Runs) -> None:
    result, took = runs.misbehaving, runs.misbehaving_took_s
    timing = LocustTiming(6, 1.5, startup_s=LocustOptions().startup_s, stop_s=2.0)
    assert took < timing.hard_deadline_s, took
    assert result.stopped_because == "the 6 s run time ended", result.stopped_because
    stall, flood, refuse, echo = (result.per_tool[tool] for tool in ("stall", "flood", "refuse", "echo"))
    assert stall.by_channel["timeout"] == stall.calls > 0, stall
    assert stall.p50_ms >= 1400, stall  # each waited its whole timeout (Locust rounds to 2 figures)
    # 4 MB an answer: read whole, or out of time on a crowded machine (and while the one-process server writes it,
    # another caller's quick call may time out too); every call is counted, on its own channel, and nothing broke
    assert flood.by_channel["ok"] + flood.by_channel["timeout"] == flood.calls > 0, flood
    refused = refuse.by_channel["protocol_error"]
    assert refused + refuse.by_channel["timeout"] == refuse.calls and refused > 0, refuse
    assert refuse.reasons == {"over_quota": refused}, refuse
    assert echo.by_channel["ok"] + echo.by_channel["timeout"] == echo.calls and echo.by_channel["ok"] > 0, echo


def _dying_run(out: Path) -> LoadResult:
    profile = [LocustStep("echo", {"text": "{caller} {n}"})]
    # the kill comes with the worker's first report that counts calls: at most a report interval (3 s) after the
    # first call, which a crowded machine may delay by a second or two (the run time counts from the users' start);
    # the rest of the run calls the dead server, each call failing within some 0.1 s, so a second of it is plenty
    # and 6 s leave at least that; every second more costs a core's second of failed calls.
    # One worker (both callers on it): what is kept when the server dies does not depend on how many report it (the
    # notes run proves two workers' reports add up), and a second worker would only call the dead server faster
    options = LocustOptions(workers=1, run_time_s=DYING_RUN_TIME_S, call_timeout_s=3.0, csv_dir=out, tokens="test")
    with started_server(MISBEHAVING) as url:
        killer = threading.Thread(target=_kill_once_calls_were_made, args=(_listening_pid(url), out), daemon=True)
        killer.start()
        result = run_locust(url, callers_of({"acme": 2}), profile, options)
        killer.join(timeout=5)
    return result


def test_a_server_that_dies_mid_run_keeps_what_was_measured(runs: Runs) -> None:
    result = runs.dying
    echo = result.per_tool["echo"]
    assert echo.by_channel["ok"] > 0, echo
    assert echo.by_channel["transport_error"] > 0, echo
    assert result.stopped_because == f"the {DYING_RUN_TIME_S:g} s run time ended", result.stopped_because


def _kill_once_calls_were_made(pid: int, out: Path) -> None:
    """SIGKILL the server as soon as a worker has reported calls (the run is under way)."""
    from mcpbdd.locust.reports import read_workers

    def under_way() -> bool | None:
        return sum(sum(w["calls"].values()) for w in read_workers(out / "workers.json").values()) > 0 or None

    wait_until(under_way, 60, "a worker to report calls")
    os.kill(pid, signal.SIGKILL)


def _listening_pid(url: str) -> int:
    port = url.rsplit(":", 1)[1].split("/", 1)[0]
    found = subprocess.run(["ss", "-Htlnp", f"sport = :{port}"], capture_output=True, text=True, check=True).stdout
    return int(found.split("pid=", 1)[1].split(",", 1)[0])


def test_an_unknown_tool_or_an_unreachable_server_stops_before_any_process(misbehaving_url: str) -> None:
    with pytest.raises(LocustSetupError, match=r"calls 'no_such_tool', which the server .* offers 'echo'"):
        run_locust(misbehaving_url, callers_of({"acme": 1}), [LocustStep("no_such_tool")], LocustOptions(tokens="test"))
    closed = misbehaving_url.replace(misbehaving_url.rsplit(":", 1)[1].split("/")[0], "9")
    with pytest.raises(LocustSetupError, match="could not be reached to list its tools as acme-1"):
        run_locust(closed, callers_of({"acme": 1}), [LocustStep("echo")], LocustOptions(tokens="test"))


def test_an_interrupted_run_leaves_no_locust_process(
    misbehaving_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    marker = uuid.uuid4().hex
    monkeypatch.setenv(MARKER_ENV, marker)
    plan = tmp_path / "plan.json"
    LocustPlan(misbehaving_url, callers_of({"acme": 2}), [LocustStep("stall")], 2, 1.0, str(tmp_path / "w.json")).write(
        plan
    )
    options = MasterOptions(misbehaving_url, _free_port(), 2, 2.0, 2, tmp_path / "locust")
    with pytest.raises(KeyboardInterrupt), started_locust(options, LocustTiming(60), plan, tmp_path) as processes:
        wait_until(lambda: len(processes_marked(marker)) >= 3 or None, 30, "the master and two workers")
        assert processes.wait(time.monotonic() + 0.5) is False  # a deadline passed: the runner stops them
        raise KeyboardInterrupt
    assert processes_marked(marker) == []


def test_a_runner_killed_with_sigkill_takes_its_server_and_locust_processes_with_it(tmp_path: Path) -> None:
    marker = uuid.uuid4().hex
    script = (
        "from pathlib import Path; from mcpbdd.locust.plan import LocustStep, callers_of; "
        "from mcpbdd.locust.runner import LocustOptions, run_locust; "
        "from mcpbdd.locust.target import started_server\n"
        f"with started_server({MISBEHAVING!r}) as url:\n"
        "    run_locust(url, callers_of({'acme': 2}), [LocustStep('stall')], "
        f"LocustOptions(run_time_s=60, tokens='test', csv_dir=Path({str(tmp_path)!r})))"
    )
    runner = subprocess.Popen([sys.executable, "-c", script], env={**os.environ, MARKER_ENV: marker})
    try:
        what = "the runner, the server, the master and two workers"
        wait_until(lambda: len(processes_marked(marker)) >= 5 or None, 60, what)
        started = [pid for pid in processes_marked(marker) if pid != runner.pid]
        runner.send_signal(signal.SIGKILL)
        runner.wait(timeout=10)
        wait_until(lambda: not any(alive(pid) for pid in started) or None, 15, "the server and Locust to die")
    finally:
        if runner.poll() is None:
            runner.kill()


def _free_port() -> int:
    from mcpbdd.harness.processes.ports import free_port

    return free_port()


def test_the_command_prints_the_table_and_writes_json(misbehaving_url: str, tmp_path: Path, capsys: Any) -> None:
    from mcpbdd.cli.main import main

    profile = tmp_path / "profile.json"
    profile.write_text('[{"tool": "echo", "arguments": {"text": "{caller}"}}, {"tool": "refuse", "weight": 2}]')
    common = ["locust", "--url", misbehaving_url, "--tokens", "test", "--tenant", "acme=2", "--profile", str(profile)]
    out = [
        "--run-time",
        "2",
        "--call-timeout",
        "2",
        "--workers",
        "1",
        "--csv-dir",
        str(tmp_path / "csv"),
        "--json",
        str(tmp_path / "r.json"),
    ]
    assert main([*common, *out]) == 0
    printed = capsys.readouterr().out
    assert "echo" in printed and "protocol_error" in printed and "stopped because the 2 s run time ended" in printed
    document = json.loads((tmp_path / "r.json").read_text())
    refused = document["per_tool"]["refuse"]
    echoed = document["per_tool"]["echo"]["calls"]
    # the weights, 2 to 1: each of the 2 callers goes echo, refuse, refuse, ... and may stop anywhere in a round
    assert refused["by_channel"]["protocol_error"] == refused["calls"] >= 2 * echoed - 4 > 0, (refused, echoed)

    profile.write_text('[{"tool": "nope"}]')
    assert main(common) == 2
    assert "'nope', which the server" in capsys.readouterr().err


def test_sigterm_to_the_command_stops_locust_and_the_server_it_started(tmp_path: Path) -> None:
    marker = uuid.uuid4().hex
    profile = tmp_path / "profile.json"
    profile.write_text('[{"tool": "stall"}]')
    command = [
        sys.executable, "-m", "mcpbdd.cli.main", "locust", "--server", MISBEHAVING, "--tokens", "test",
        "--tenant", "acme=2", "--profile", str(profile), "--run-time", "60", "--csv-dir", str(tmp_path / "csv"),
    ]  # fmt: skip
    cli = subprocess.Popen(command, env={**os.environ, MARKER_ENV: marker}, stdout=subprocess.PIPE, text=True)
    try:
        what = "the command, the server, the master and two workers"
        wait_until(lambda: len(processes_marked(marker)) >= 5 or None, 60, what)
        cli.send_signal(signal.SIGTERM)
        assert cli.wait(timeout=30) == 128 + signal.SIGTERM
        wait_until(lambda: processes_marked(marker) == [] or None, 15, "every process the command started to end")
    finally:
        if cli.poll() is None:
            cli.kill()


def test_greenlets_wait_for_their_calls_without_blocking_each_other(misbehaving_url: str) -> None:
    probe = Path(__file__).parents[1] / "locust_bridge_probe.py"
    done = subprocess.run([sys.executable, str(probe), misbehaving_url], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-3000:]
    seen = json.loads(done.stdout.strip().splitlines()[-1])
    assert seen["stalled"] == ["timeout"] * 8, seen
    assert seen["took_s"] < 2.0, seen  # 8 waits of 0.5 s at once, not one after another (4 s)
    assert seen["ticks"] >= 10, seen  # another greenlet ran all along: the hub was never blocked
    assert seen["echo"] == "ok" and seen["refuse"] == "protocol_error reason=over_quota code=-32001", seen
