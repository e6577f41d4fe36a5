"""Upstream doubles: the server's outbound HTTP, answered from a scenario's route table.

(Skeleton: the route table, matching and the loopback server are being built.)
"""

from __future__ import annotations

import httpx


class Upstream:
    """The scenario's route table for every outbound request the server makes."""

    def __init__(self) -> None:
        self.unmatched: list[str] = []

    def transport(self) -> httpx.AsyncBaseTransport:
        """An httpx transport that answers from the route table (for an in-process server's client)."""
        return httpx.MockTransport(self._handle)

    def _handle(self, request: httpx.Request) -> httpx.Response:
        self.unmatched.append(f"{request.method} {request.url}")
        return httpx.Response(599, text="no upstream route matches this request")
