"""Locust's master and two workers on loopback drive the example notes server; the statistics come back.

One run (a module fixture, shared by the tests that read it): two tenants' callers create and list notes
through the notes server's production authorization (JWTs minted by the fake authorization server, verified
against its JWKS), and look up a note nobody has (a tool error every time). Then the attacks, each with a run
of its own: a server that stalls, floods or refuses (every call counted on its channel, the run ends on time);
a server that dies mid-run (what was measured is kept, the rest are transport errors); an interrupted run and
a runner killed with SIGKILL leave no Locust process.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest

from mcpbdd.load.results import LoadResult
from mcpbdd.locust.plan import LocustCaller, LocustStep, callers_of
from mcpbdd.locust.runner import LocustOptions, run_locust, with_tokens, workers_report
from mcpbdd.locust.target import started_server

NOTES = "{python} -m mcpbdd.examples.notes --http 127.0.0.1:{port} --auth jwks={jwks},issuer={issuer}"
MISBEHAVING = "{python} " + str(Path(__file__).parents[1] / "locust_servers.py") + " {port}"
RUN_TIME_S = 4.0
PROFILE = [
    LocustStep("create_note", {"title": "{tenant}/{caller}/{n}", "body": "written under load"}, 1),
    LocustStep("list_notes", {}, 1),
    LocustStep("get_note", {"note_id": "no-such-note-{n}"}, 1),
]

pytestmark = pytest.mark.timeout(180)


@pytest.fixture(scope="module")
def notes_run(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[LoadResult, dict[str, list[Any]]]]:
    """One Locust run against the notes server, and afterwards every tenant's notes as its first caller lists them."""
    out = tmp_path_factory.mktemp("locust")
    callers = callers_of({"acme": 2, "globex": 2}, scopes=["notes:write"])
    with started_server(NOTES) as url:
        result = run_locust(url, callers, PROFILE, LocustOptions(workers=2, run_time_s=RUN_TIME_S, csv_dir=out))
        stored = {tenant: _notes_of(url, result, tenant) for tenant in ("acme", "globex")}
    yield result, stored


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


def test_every_tool_was_called_and_measured(notes_run: tuple[LoadResult, dict[str, list[Any]]]) -> None:
    result, _ = notes_run
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


def test_both_workers_made_calls_as_their_own_callers(notes_run: tuple[LoadResult, dict[str, list[Any]]]) -> None:
    result, _ = notes_run
    workers = workers_report(result)
    assert len(workers) == 2, workers
    callers = [set(report["callers"]) for report in workers.values()]
    assert all(sum(report["calls"].values()) > 0 for report in workers.values()), workers
    assert callers[0].isdisjoint(callers[1]) and callers[0] | callers[1] == {"acme-1", "acme-2", "globex-1", "globex-2"}
    made = sum(sum(report["calls"].values()) for report in workers.values())
    assert made == result.calls, (made, result.calls)


def test_the_failing_tool_is_counted_on_its_channel(notes_run: tuple[LoadResult, dict[str, list[Any]]]) -> None:
    result, _ = notes_run
    lookups = result.per_tool["get_note"]
    assert lookups.by_channel["tool_error"] == lookups.calls > 0, lookups
    assert lookups.reasons == {"note_not_found": lookups.calls}
    for tool in ("create_note", "list_notes"):
        assert result.per_tool[tool].by_channel["ok"] == result.per_tool[tool].calls, result.per_tool[tool]


def test_each_tenant_stores_only_what_its_callers_wrote(notes_run: tuple[LoadResult, dict[str, list[Any]]]) -> None:
    result, stored = notes_run
    for tenant, notes in stored.items():
        assert notes, f"{tenant} has no note after the load"
        assert all(note["title"].startswith(f"{tenant}/{tenant}-") for note in notes), notes
    assert sum(len(notes) for notes in stored.values()) == result.per_tool["create_note"].by_channel["ok"]
