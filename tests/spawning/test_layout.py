"""The package's shape stays readable: importing the front loads nothing else (in a fresh interpreter).

The layout's other promises (docs/reference/layout.md) are checked in process by tests/test_layout.py.
"""

from __future__ import annotations

import subprocess
import sys


def test_importing_the_front_loads_nothing_until_a_name_is_used() -> None:
    """`import mcpbdd.kit.consent` in a production server must not pull the harnesses in through the front."""
    code = "import sys, mcpbdd; print(sorted(m for m in sys.modules if m.startswith('mcpbdd')))"
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert run.stdout.strip() == "['mcpbdd', 'mcpbdd._version']"  # the version seam: one constant
