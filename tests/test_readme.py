"""The Python examples of the README and of the documentation site run: a newcomer copies them, so they must not drift.

Every ```python block of README.md and of docs/**/*.md is compiled; a block whose first line says it
is a fragment stops there (a piece of a server, shown in context). Any other block runs in a fresh
interpreter, and a block that defines `test_*` functions runs under pytest, each test passing.
(The site's generated pages, the vocabulary and the API reference, have no examples of their own.)

The tests of this concern that start processes are in tests/spawning/test_readme.py.
"""

from __future__ import annotations

import re
import textwrap
from pathlib import Path

README_LIMIT = 12_000
"""Bytes: a quickstart a newcomer reads whole; the full vocabulary lives on the docs site."""


def test_the_readme_is_a_quickstart_of_at_most_12_kb() -> None:
    size = len((ROOT / "README.md").read_bytes())
    assert size <= README_LIMIT, f"README.md is {size} bytes, over {README_LIMIT}: move detail to docs/"


ROOT = Path(__file__).resolve().parents[1]
_BLOCK = re.compile(r"^( *)```python\n(.*?)^\1```", re.S | re.M)
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]


def _blocks() -> list[tuple[str, str]]:
    """(`page:line`, code) for every Python block of every page."""
    found = []
    for page in PAGES:
        text = page.read_text()
        name = page.relative_to(ROOT).as_posix()
        for m in _BLOCK.finditer(text):
            found.append((f"{name}:{text[: m.start()].count(chr(10)) + 1}", textwrap.dedent(m.group(2))))
    return found


BLOCKS = _blocks()


def test_the_readme_and_the_docs_have_python_examples_to_run() -> None:
    readme = [code for where, code in BLOCKS if where.startswith("README.md:")]
    docs = [code for where, code in BLOCKS if where.startswith("docs/")]
    assert readme and len(docs) >= 4 and any("def test_" in code for code in docs)
