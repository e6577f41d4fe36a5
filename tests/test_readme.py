"""The README's Python examples run: a newcomer copies them, so they must not drift from the code.

Every ```python block of README.md is compiled; a block whose first line says it is a fragment
stops there (a piece of a server, shown in context). Any other block runs in a fresh
interpreter, and a block that defines `test_*` functions runs under pytest, each test passing.
"""

from __future__ import annotations

import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
_BLOCK = re.compile(r"^( *)```python\n(.*?)^\1```", re.S | re.M)


def _blocks() -> list[tuple[int, str]]:
    text = (ROOT / "README.md").read_text()
    return [(text[: m.start()].count("\n") + 1, textwrap.dedent(m.group(2))) for m in _BLOCK.finditer(text)]


BLOCKS = _blocks()


def test_the_readme_has_python_examples_to_run() -> None:
    assert len(BLOCKS) >= 4 and any("def test_" in code for _, code in BLOCKS)


@pytest.mark.parametrize(("line", "code"), BLOCKS, ids=[f"README.md:{line}" for line, _ in BLOCKS])
def test_a_readme_python_example_runs(line: int, code: str, tmp_path: Path) -> None:
    compile(code, f"README.md:{line}", "exec")
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
        assert run.returncode == 0 and f"{tests} passed" in run.stdout, f"README.md:{line}\n{run.stdout}{run.stderr}"
        return
    run = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, f"README.md:{line} failed:\n{run.stderr}"
