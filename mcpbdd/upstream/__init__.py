"""Upstream doubles: the server's outbound HTTP, answered from one route table per scenario.

`routes` holds the table and its in-process `httpx.MockTransport`; `loopback` serves the same
table over real HTTP to a server in another process. What a production server imports
(`upstream_base`) lives in the kit: `mcpbdd.kit.upstream`.
"""

from mcpbdd.upstream.loopback import LoopbackServer
from mcpbdd.upstream.routes import METHODS, NO_BODY, Route, UnmatchedUpstreamRequest, Upstream, UpstreamRequest

__all__ = ["METHODS", "NO_BODY", "LoopbackServer", "Route", "UnmatchedUpstreamRequest", "Upstream", "UpstreamRequest"]
