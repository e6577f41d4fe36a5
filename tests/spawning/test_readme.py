"""The Python examples of the README and of the documentation site run: a newcomer copies them, so they must not drift.

Every ```python block of README.md and of docs/**/*.md is compiled; a block whose first line says it
is a fragment stops there (a piece of a server, shown in context). Any other block runs in a fresh
interpreter, and a block that defines `test_*` functions runs under pytest, each test passing.
(The site's generated pages, the vocabulary and the API reference, have no examples of their own.)

These tests start processes; the in-process tests of this concern are in tests/test_readme.py.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
from test_readme import BLOCKS  # shared with the in-process half

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize(("where", "code"), BLOCKS, ids=[where for where, _ in BLOCKS])
def test_a_python_example_runs(where: str, code: str, tmp_path: Path) -> None:
    compile(code, where, "exec")
    if "fragment" in code.splitlines()[0]:
        return  # a piece of a server shown in context: compiling it is what can be checked
    if "def test_" in code:
        (tmp_path / "conftest.py").write_text(
            'import pytest\n\n\n@pytest.fixture\ndef anyio_backend():\n    return "asyncio"\n'
        )
        (tmp_path / "test_readme_example.py").write_text(code)
        run = subprocess.run(
            [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(tmp_path)],
            cwd=tmp_path,
            capture_output=True,
            text=True,
            timeout=300,
        )
        tests = len(re.findall(r"^async def test_|^def test_", code, re.M))
        assert run.returncode == 0 and f"{tests} passed" in run.stdout, f"{where}\n{run.stdout}{run.stderr}"
        return
    run = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, f"{where} failed:\n{run.stderr}"
