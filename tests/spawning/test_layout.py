"""The package's shape stays readable: one public front, a short top level, no module too long to hold in mind.

These are the layout's promises from docs/reference/layout.md: what `import mcpbdd` names, no loose module at the
top but the front, the hooks and private seams, no module past 600 lines, every public module saying what it
exports.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[2] / "mcpbdd"
MODULES = sorted(PACKAGE.rglob("*.py"))


def test_importing_the_front_loads_nothing_until_a_name_is_used() -> None:
    """`import mcpbdd.kit.consent` in a production server must not pull the harnesses in through the front."""
    code = "import sys, mcpbdd; print(sorted(m for m in sys.modules if m.startswith('mcpbdd')))"
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert run.stdout.strip() == "['mcpbdd']"


@pytest.mark.parametrize("path", MODULES, ids=[str(p.relative_to(PACKAGE)) for p in MODULES])
def test_no_module_passes_600_lines_and_each_says_what_it_exports(path: Path) -> None:
    text = path.read_text()
    assert text.count("\n") <= 600, f"{path.name} has {text.count(chr(10))} lines: split it by concern"
    tree = ast.parse(text)
    assert ast.get_docstring(tree), f"{path.name} has no module docstring saying why it exists"
    targets = [t for n in tree.body if isinstance(n, ast.Assign) for t in n.targets]
    targets += [n.target for n in tree.body if isinstance(n, ast.AnnAssign)]
    exported = any(isinstance(target, ast.Name) and target.id == "__all__" for target in targets)
    assert exported, f"{path.name} has no __all__"
