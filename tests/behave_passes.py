"""The passes behave makes over the features: the context harness, the client harness, and the client over the 2025 one.

`make features` runs the specifications once per pass; a test that runs behave takes the `behave_pass` fixture
(tests/spawning/conftest.py), which is parametrised over these.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass

import pytest

__all__ = ["EVERY_TARGET", "PASSES", "PROJECT_RUN_TIMEOUT", "BehavePass"]


@dataclass(frozen=True)
class BehavePass:
    """One pass of behave over the features: its name (a test id) and the `-D` options that choose it."""

    name: str
    options: tuple[str, ...]


PASSES = {
    "context": BehavePass("context", ("-D", "mcpbdd.harness=context")),
    "client": BehavePass("client", ("-D", "mcpbdd.harness=client")),
    "client-legacy": BehavePass("client-legacy", ("-D", "mcpbdd.harness=client", "-D", "mcpbdd.client_mode=legacy")),
}
"""The passes of `make features` (the context harness; the client harness on the 2026-07-28 protocol; the client
harness over the 2025-11-25 handshake), by name."""

PROJECT_RUN_TIMEOUT = 1200
"""Seconds `mcpbdd run --harness both --jobs 2` over features/ (the first two passes above, once per session: the
`project_run` fixture) may take: a few minutes on a quiet two-core machine, far more on one shared with other work.
The tests that read it get this timeout too (tests/conftest.py)."""


EVERY_TARGET = pytest.mark.parametrize(
    ("server", "kind", "mode"),
    [
        ("servers:awkward", "context", None),
        ("servers:awkward", "client", "auto"),
        ("servers:awkward", "client", "legacy"),
        (f"stdio: {sys.executable} tests/servers.py", "client", "auto"),
    ],
    ids=["context", "client", "client-legacy", "stdio"],
)
"""A World-level test on every target the test servers (tests/servers.py) reach: the context harness, the client
harness in-process in both modes, and over stdio (`server`, `kind`, `mode` as `World.use_harness` takes them)."""
