"""The package's shape stays readable: one public front, a short top level, no module too long to hold in mind.

These are the layout's promises from docs/reference/layout.md: what `import mcpbdd` names, no loose module at the
top but the front, the hooks and private seams, no module past 600 lines, every public module saying what it
exports.

The tests of this concern that start processes are in tests/spawning/test_layout.py.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "mcpbdd"
MODULES = sorted(PACKAGE.rglob("*.py"))


def test_the_front_names_every_public_name_and_loads_each_one() -> None:
    import mcpbdd

    assert mcpbdd.__version__
    assert {"World", "Outcome", "Channel", "ContextHarness", "ClientHarness", "MockContext", "Principal"} <= set(
        mcpbdd.__all__
    )
    assert {"acting_as", "Doubles", "scenario_doubles", "expect", "answers", "Call"} <= set(mcpbdd.__all__)
    missing = [name for name in mcpbdd.__all__ if getattr(mcpbdd, name, None) is None]
    assert missing == []
    with pytest.raises(AttributeError, match="no attribute 'Wrold'"):
        _ = mcpbdd.Wrold  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    ("line", "says"),
    [
        ("    x = 1", "only `from mcpbdd... import`"),
        ("    from mcpbdd.model.outcome import Call as Call", "Call twice"),
        ("    from mcpbdd.model.outcome import Call as Request", "not `as` itself"),
    ],
)
def test_the_front_refuses_a_name_stated_wrongly(line: str, says: str) -> None:
    """The names are stated once, in the front's TYPE_CHECKING block; a block that says anything else is refused."""
    import mcpbdd

    source = (PACKAGE / "__init__.py").read_text()
    broken = source.replace("if TYPE_CHECKING:\n", f"if TYPE_CHECKING:\n{line}\n", 1)
    with pytest.raises(ImportError, match=re.escape(says)):
        mcpbdd._public_names(broken)
    stated = _stated_in_the_block(source)
    assert len(stated) >= 20
    assert set(mcpbdd.__all__) - {"__version__"} == set(stated)


def _stated_in_the_block(source: str) -> set[str]:
    """Every name the front's `if TYPE_CHECKING:` block imports, read as a type checker reads it: here, by the
    test's own walk of the block, not by `_public_names` (which `__all__` is computed from, so comparing the two
    would hold whatever `_public_names` dropped or added)."""
    block = next(n for n in ast.parse(source).body if isinstance(n, ast.If) and ast.unparse(n.test) == "TYPE_CHECKING")
    return {
        alias.asname or alias.name
        for node in ast.walk(block)
        if isinstance(node, ast.ImportFrom)
        for alias in node.names
    }


def test_the_top_level_holds_only_the_front_the_hooks_and_private_seams() -> None:
    loose = sorted(
        path.name
        for path in PACKAGE.glob("*.py")
        if path.name not in {"__init__.py", "behave.py"} and not path.name.startswith("_")
    )
    assert loose == [], f"loose modules at the top of mcpbdd/: {', '.join(loose)}; put each in the package of its layer"


@pytest.mark.parametrize("path", MODULES, ids=[str(p.relative_to(PACKAGE)) for p in MODULES])
def test_no_module_passes_600_lines_and_each_says_what_it_exports(path: Path) -> None:
    text = path.read_text()
    assert text.count("\n") <= 600, f"{path.name} has {text.count(chr(10))} lines: split it by concern"
    tree = ast.parse(text)
    assert ast.get_docstring(tree), f"{path.name} has no module docstring saying why it exists"
    targets = [t for n in tree.body if isinstance(n, ast.Assign) for t in n.targets]
    targets += [n.target for n in tree.body if isinstance(n, ast.AnnAssign)]
    exported = any(isinstance(target, ast.Name) and target.id == "__all__" for target in targets)
    if path == PACKAGE / "__init__.py":  # the front computes `__all__` from its names (its own test checks them)
        exported = any(isinstance(n, ast.FunctionDef) and n.name == "__getattr__" for n in tree.body)
    assert exported, f"{path.name} has no __all__"
