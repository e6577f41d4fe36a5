"""`mcpbdd run --harness all`: the parity matrix, JUnit properties and the timing file, from one real run.

tests/parity_cases/features/diverging.feature makes one scenario diverge on purpose (a mid-call
`ctx.elicit()` works only on the 2025-11-25 handshake) with nothing saying why, the same
scenario documented by `@parity.back_channel`, one that behaves the same everywhere and one
pinned to the client harness.

The tests of this concern that start processes are in tests/spawning/test_parity.py.
"""

from __future__ import annotations

from pathlib import Path

from mcpbdd.runner.passes import passes_for_all

ROOT = Path(__file__).resolve().parent.parent


def test_the_stdio_column_appears_only_when_configured() -> None:
    assert [p.name for p in passes_for_all(None)] == ["context", "client.auto", "client.legacy"]
    stdio = passes_for_all("python -m servers")[-1]
    assert stdio.name == "stdio" and ("mcpbdd.server", "stdio: python -m servers") in stdio.overrides
    # the legacy column leaves out what is pinned elsewhere, and keeps @harness.client
    legacy = passes_for_all(None)[2].options(pinned_elsewhere=True)
    assert legacy[-1] == "not @harness.context and not @harness.client.auto"
