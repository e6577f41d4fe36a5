"""`sep-2575-server-identifies-in-result-meta`: on 2026-07-28 a server says who it is in every result's `_meta`.

With no initialize handshake (SEP-2575) a client learns the server's name and version from the results
themselves: `_meta["io.modelcontextprotocol/serverInfo"]` with a `name` and a `version`. A SHOULD: a server
that leaves it out (or, as the Python SDK's `MCPServer` does by default, sends an empty version) gets a warning,
a failure under `--strict`. The official suite checks the same rule on `server/discover`; the pack reads the
list results a client reads first.
"""

from __future__ import annotations

from mcpbdd.conformance.probe import LISTS, Probe
from mcpbdd.conformance.registry import WARNING, NotApplicable, ShouldNotKept, check

__all__ = ["SERVER_INFO"]

SERVER_INFO = "io.modelcontextprotocol/serverInfo"


@check(
    "sep-2575-server-identifies-in-result-meta",
    sends="The first page of each declared list (2026-07-28 only), reading its `_meta`.",
    blind="Results of calls and of `server/discover` (the official suite reads that one); whether the name and "
    "version are true.",
    title="Results name the server and its version in _meta (a SHOULD)",
    section="versioning",
    url="https://modelcontextprotocol.io/specification/2026-07-28/basic/versioning",
    rule="On 2026-07-28 there is no initialize handshake to say who the server is, so every result SHOULD carry "
    '`_meta["io.modelcontextprotocol/serverInfo"]` with a non-empty `name` and `version` (SEP-2575). A SHOULD: '
    "a warning, a failure under `--strict`.",
    fix="Give the server its version: `MCPServer(name, version=...)` in the Python SDK (it stamps both on every "
    "result), or set the `_meta` entry on a hand-built result.",
    modern_only=True,
)
async def server_identifies_in_result_meta(probe: Probe) -> None:
    names = [name for name in LISTS if await probe.declares(name)]
    if not names:
        raise NotApplicable("the server declares no list")
    problems = []
    for name in names:
        page = (await probe.pages(name))[0]
        info = (page.meta or {}).get(SERVER_INFO)
        if not isinstance(info, dict):
            problems.append(f"{page.method}: no _meta[{SERVER_INFO!r}]")
            continue
        empty = [key for key in ("name", "version") if not isinstance(info.get(key), str) or not info.get(key)]
        if empty:
            problems.append(f"{page.method}: _meta[{SERVER_INFO!r}] = {info!r} has no {' or '.join(empty)}")
    if problems:
        raise ShouldNotKept(f"{WARNING}: the server does not identify itself in its results: " + "; ".join(problems))
