"""The passes behave makes over the features: the context harness, the client harness, and the client over the 2025 one.

`make features` runs the specifications once per pass; a test that runs behave takes the `behave_pass` fixture
(tests/spawning/conftest.py), which is parametrised over these.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["PASSES", "BehavePass"]


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
