"""Test-only MCP servers: behaviours the notes example must not have (hanging, crashing, progress)."""

from __future__ import annotations

import json
import os
import signal
import sys
import sysconfig
import tempfile
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Annotated, Any

import anyio
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.server.mcpserver.resolve import Elicit, Resolve
from mcp_types import ElicitRequest, ElicitRequestFormParams, InputRequiredResult
from mcp_types import Tool as MCPTool
from pydantic import BaseModel

from mcpbdd.storage import JsonFileAdapter

awkward = MCPServer("awkward")


@awkward.tool()
async def hang() -> str:
    """Never answers: the harness's call timeout must turn this into a transport failure."""
    await anyio.sleep_forever()
    return "unreachable"


@awkward.tool()
def crash() -> str:
    """An unexpected exception: the SDK withholds the details behind "Error executing tool"."""
    raise RuntimeError("database password is hunter2")


@awkward.tool()
async def report(ctx: Context) -> str:
    """Reports progress, which a MockContext records instead of sending."""
    await ctx.report_progress(1, 2, "halfway")
    return "reported"


@awkward.tool()
def whoami() -> dict[str, str | None]:
    """The caller as the server's auth context sees it."""
    from mcp.server.auth.middleware.auth_context import get_access_token

    token = get_access_token()
    if token is None:
        return {"subject": None, "tenant": None}
    return {"subject": token.subject, "tenant": (token.claims or {}).get("tenant")}


@awkward.tool()
def interrogate(ctx: Context) -> InputRequiredResult | str:
    """Asks again after every answer: the harness must stop at its round limit."""
    round_number = int(ctx.request_state or "0") + 1
    question = ElicitRequest(
        params=ElicitRequestFormParams(
            message=f"Question {round_number}?", requested_schema={"type": "object", "properties": {}}
        )
    )
    return InputRequiredResult(input_requests={"again": question}, request_state=str(round_number))


# A server that keeps its state elsewhere (a JSON file), and the adapter the storage steps use for it.
json_notes = MCPServer("json-notes")
JSON_STATE_ENV = "MCPBDD_TEST_JSON_STATE"


@json_notes.tool()
def remember(key: str, text: str) -> str:
    """Write `text` under `key` in the caller's tenant of the JSON state file."""
    from mcp.server.auth.middleware.auth_context import get_access_token

    token = get_access_token()
    tenant = str((token.claims or {})["tenant"]) if token else "anonymous"
    path = Path(os.environ[JSON_STATE_ENV])
    state = json.loads(path.read_text()) if path.exists() else {}
    state.setdefault(tenant, {})[key] = text
    path.write_text(json.dumps(state))
    return "remembered"


def json_adapter(_doubles: object) -> JsonFileAdapter:
    """What a project's `storage_adapter = "servers:json_adapter"` points at."""
    return JsonFileAdapter(os.environ[JSON_STATE_ENV])


class Go(BaseModel):
    go: bool


def ask_to_go() -> Elicit[Go]:
    return Elicit("Go ahead?", Go)


def ask_to_go_unless_told(ctx: Context) -> Go | Elicit[Go]:
    """Asks only sometimes (here: always, unless a test says otherwise): the union names what it may return."""
    return Elicit("Go ahead, maybe?", Go)


def ask_to_go_or_nothing() -> Elicit[Go] | None:
    return Elicit("Go ahead, if at all?", Go)


RUNS: list[str] = []
"""How often `launch` ran (a test resets it): the SDK's sealed state alone lets a replay run it again."""


@awkward.tool()
def launch(answer: Annotated[Go, Resolve(ask_to_go)]) -> str:
    """A destructive-looking tool guarded only by a Resolve(...) confirmation, no consent record."""
    if answer.go:
        RUNS.append("launched")
    return f"launched {len(RUNS)} time(s)"


@awkward.tool()
def launch_maybe(answer: Annotated[Go, Resolve(ask_to_go_unless_told)]) -> str:
    """Guarded by a resolver annotated `Go | Elicit[Go]` (it may answer without asking)."""
    return f"go={answer.go}"


@awkward.tool()
def launch_optionally(answer: Annotated[Go | None, Resolve(ask_to_go_or_nothing)]) -> str:
    """Guarded by a resolver annotated `Elicit[Go] | None` (Optional)."""
    return f"go={answer.go if answer else None}"


@awkward.tool()
async def ask_mid_call(ctx: Context) -> str:
    """Asks the 2025-11-25 way (ctx.elicit mid-call): a 2026-07-28 connection has no back-channel for it."""
    answer = await ctx.elicit("Go ahead?", Go)
    return f"answered {answer.action}"


@awkward.tool()
def die() -> str:
    """Crashes the whole server process mid-call, as a segfault or an OOM kill would."""
    print("fatal: the index is corrupt, giving up", file=sys.stderr, flush=True)
    os._exit(3)


@awkward.tool()
def leave(code: int = 0) -> str:
    """Calls `sys.exit(code)` mid-call: over stdio the process ends; in-process it must not end the run."""
    sys.exit(code)


@awkward.tool()
def vanish() -> str:
    """Ends the process at once with status 0 (`os._exit(0)`): in-process, the behave process running it."""
    print("vanishing: os._exit(0)", file=sys.stderr, flush=True)
    os._exit(0)


@awkward.tool()
def fails_once(marker: str) -> str:
    """Fails the first time it is called with `marker` (a file it then creates), passes afterwards: a flaky server
    (the file outlives the process, so a rerun in another behave process sees it)."""
    path = Path(marker)
    if path.exists():
        return "passed this time"
    path.write_text("called once\n", encoding="utf-8")
    raise RuntimeError("failed the first time")


@awkward.tool()
def killed() -> str:
    """The process running it is killed at once (SIGKILL, as the kernel's OOM killer would): in-process, the
    behave process itself, mid-feature."""
    os.kill(os.getpid(), signal.SIGKILL)
    return "unreachable"


@awkward.tool()
def depth(value: object) -> int:
    """How deeply `value` nests (a scalar is 0): what reached the handler of a deeply nested argument."""
    level, layer = 0, [value]
    while layer:
        layer = [child for item in layer if isinstance(item, list) for child in item] + [
            child for item in layer if isinstance(item, dict) for child in item.values()
        ]
        level += 1
    return level - 1


@awkward.tool()
def flood(megabytes: int) -> str:
    """A result of `megabytes` MB (10^6 bytes) of text, marked at both ends: what an attachment cap must survive."""
    return "FIRST LINE\n" + "x" * (megabytes * 1_000_000 - 20) + "\nLAST LINE"


@asynccontextmanager
async def _upstream_doubles(_server: MCPServer[Any]) -> AsyncIterator[Any]:
    """The scenario's upstream doubles, taken in the lifespan (in-process they are set only while it is entered)."""
    from mcpbdd.kit.doubles import scenario_doubles

    doubles = scenario_doubles()
    yield doubles.upstream if doubles is not None else None


fetcher = MCPServer("fetcher", lifespan=_upstream_doubles)


@fetcher.tool()
async def fetch(ctx: Context[Any, Any], base: str, path: str, through_doubles: bool = True) -> str:
    """GET `path` of the upstream `base`, its base read through `upstream_base`, over the scenario's doubles'
    transport (or none: `upstream_base` alone, as the kit's docstring shows for servers in another process)."""
    import httpx

    from mcpbdd.kit.upstream import upstream_base

    upstream = ctx.request_context.lifespan_context if through_doubles else None
    transport = upstream.transport() if upstream is not None else None
    try:
        async with httpx.AsyncClient(base_url=upstream_base(base), transport=transport, timeout=5) as client:
            answer = await client.get(path)
    except httpx.HTTPError as exc:
        return f"the upstream failed: {exc}"
    return f"{answer.status_code} {answer.text[:200]}"


# A server whose errors name paths of the Python installation and of the machine, not of its own code:
# the reference time server answers a 2,000-character zone with zoneinfo's "File name too long:
# '<its venv>/lib/python3.11/site-packages/tzdata/zoneinfo/xxx…'".
zones = MCPServer("zones")
ZONE_SUFFIX = ".zone"


def _read_zone(folder: Path, name: str) -> str:
    try:
        return (folder / f"{name}{ZONE_SUFFIX}").read_text()
    except (OSError, ValueError) as exc:  # the OSError's message names the absolute path it tried
        raise ToolError(f"Error processing zone query: {exc}") from None


@zones.tool()
def zone(name: str) -> str:
    """The rules of a zone, from a data folder in site-packages (as zoneinfo reads tzdata's)."""
    return _read_zone(Path(sysconfig.get_paths()["purelib"]) / "mcpbdd_test_zones", name)


@zones.tool()
def cached_zone(name: str) -> str:
    """The rules of a zone, from a cache in the temp folder."""
    return _read_zone(Path(tempfile.gettempdir()) / "mcpbdd-test-zone-cache", name)


@zones.tool()
def open_document(path: str) -> str:
    """Opens nothing: the error names only the path the caller gave (an echo, not a leak)."""
    raise ToolError(f"No document at {path!r}; the documents live in the caller's own folder")


BLOCKING_DIR_ENV = "MCPBDD_TEST_BLOCKING_DIR"


@awkward.tool()
async def block_the_loop() -> str:
    """Blocks the server's event loop (a sync sleep in an async tool): it cannot notice its stdin closing.

    With `MCPBDD_TEST_IGNORE_SIGTERM` set the process also ignores SIGTERM, so only SIGKILL stops it.
    It first writes a file named by its pid in `MCPBDD_TEST_BLOCKING_DIR`, so a test knows the loop is blocked.
    """
    (Path(os.environ[BLOCKING_DIR_ENV]) / str(os.getpid())).touch()
    time.sleep(120)
    return "unblocked"


# A server slow to close: a test interrupts the run while the scenario's resources are being closed.
CLOSING_DIR_ENV = "MCPBDD_TEST_CLOSING_DIR"


@asynccontextmanager
async def _slow_to_close(_server: MCPServer[Any]) -> AsyncIterator[dict[str, str]]:
    """Logs `opened`, then on exit `closing`, waits for the test's `go` file (at most a minute), logs `closed`."""
    folder = Path(os.environ[CLOSING_DIR_ENV])

    def log(line: str) -> None:
        with open(folder / "log", "a") as file:
            file.write(f"{line}\n")

    log("opened")
    yield {}
    log("closing")
    deadline = time.monotonic() + 60
    while not (folder / "go").exists() and time.monotonic() < deadline:
        await anyio.sleep(0.02)
    log("closed")


slow_to_close = MCPServer("slow-to-close", lifespan=_slow_to_close)


@slow_to_close.tool(name="ping")
def slow_to_close_ping() -> str:
    return "pong"


@awkward.tool()
async def block(seconds: float) -> str:
    """Blocks the event loop (a sync sleep in an async tool): no asyncio timeout can interrupt it in-process."""
    time.sleep(seconds)
    return f"blocked the loop for {seconds} s"


class SilentListing(MCPServer):
    """A server whose `tools/list` never answers (the SDK's handler awaits `list_tools`, overridden here)."""

    async def list_tools(self) -> list[MCPTool]:
        await anyio.sleep_forever()
        raise AssertionError("unreachable")


silent_listing = SilentListing("silent-listing")


@silent_listing.tool()
def refuse() -> str:
    """A tool error: after one, the World lists the tools to tell a misspelt name from a real refusal."""
    raise ToolError("refused")


@asynccontextmanager
async def _hangs_on_shutdown(_server: MCPServer) -> AsyncIterator[None]:
    """A lifespan whose shutdown never finishes (a pool that never drains)."""
    yield
    await anyio.sleep_forever()


stuck_shutdown = MCPServer("stuck-shutdown", lifespan=_hangs_on_shutdown)


@stuck_shutdown.tool()
def ping() -> str:
    return "pong"


@asynccontextmanager
async def _hangs_on_startup(_server: MCPServer) -> AsyncIterator[None]:
    """A lifespan whose start-up never finishes (a database that never accepts the connection)."""
    await anyio.sleep_forever()
    yield


stuck_startup = MCPServer("stuck-startup", lifespan=_hangs_on_startup)


SERVERS = {
    "awkward": awkward,
    "json_notes": json_notes,
    "zones": zones,
    "silent_listing": silent_listing,
    "stuck_shutdown": stuck_shutdown,
    "slow_to_close": slow_to_close,
    "fetcher": fetcher,
}


if __name__ == "__main__":
    if os.environ.get("MCPBDD_TEST_IGNORE_SIGTERM"):  # a server that only SIGKILL stops
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
    if "MCPBDD_TEST_PIDFILE" in os.environ:  # lets a test count how many server processes a run started
        with open(os.environ["MCPBDD_TEST_PIDFILE"], "a") as pids:
            pids.write(f"{os.getpid()}\n")
    SERVERS[sys.argv[1] if len(sys.argv) > 1 else "awkward"].run("stdio")
    # Lingers after its stdin closes: a server nobody stopped stays visible to a test, not gone by luck.
    time.sleep(float(os.environ.get("MCPBDD_TEST_LINGER", "0")))
