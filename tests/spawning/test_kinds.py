"""The shared vocabulary (`mcpbdd.model.kinds`) and text helpers (`mcpbdd._text`): one definition, every edge agrees.

These tests start processes; the in-process tests of this concern are in tests/test_kinds.py.
"""

from __future__ import annotations

import subprocess
import sys


def test_the_vocabulary_and_settings_import_no_sdk() -> None:
    """The command line reads both before any process imports the SDK."""
    code = (
        "import sys, mcpbdd.model.kinds, mcpbdd._text, mcpbdd._sdk, mcpbdd.model.config; "
        "print(sorted({m.split('.')[0] for m in sys.modules} & {'mcp', 'mcp_types', 'anyio', 'behave'}))"
    )
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert run.stdout.strip() == "[]"
