"""The package's shape stays readable: one public front, a short top level, no module too long to hold in mind.

These are the layout's promises from docs/reference/layout.md: what `import mcpbdd` names, no loose module at the
top but the front, the hooks and private seams, no module past 600 lines, every public module saying what it
exports.

The tests of this concern that start processes are in tests/spawning/test_layout.py.
"""

from __future__ import annotations

import ast
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "mcpbdd"
# mcpbdd's modules and the kit's own distribution's (kit/mcpbdd_kit), held to the same rules
MODULES = sorted([*PACKAGE.rglob("*.py"), *(PACKAGE.parent / "kit" / "mcpbdd_kit").rglob("*.py")])


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
        _ = mcpbdd.Wrold


def front_drift(source: str, modules: Mapping[str, str], names: Mapping[str, str]) -> list[str]:
    """Where the front's TYPE_CHECKING imports (what type checkers see) and its maps (what runs) disagree."""
    seen = {name: module for name, module in modules.items()} | {name: f"{m}.{name}" for name, m in names.items()}
    stated: dict[str, str] = {}
    for node in ast.parse(source).body:
        if isinstance(node, ast.If) and ast.unparse(node.test) == "TYPE_CHECKING":
            for statement in node.body:
                assert isinstance(statement, ast.ImportFrom), ast.unparse(statement)
                stated |= {alias.asname or alias.name: f"{statement.module}.{alias.name}" for alias in statement.names}
    return [
        f"{name}: the TYPE_CHECKING block says {stated.get(name)}, the maps say {seen.get(name)}"
        for name in sorted(stated.keys() | seen.keys())
        if stated.get(name) != seen.get(name)
    ]


def test_what_type_checkers_see_is_what_the_front_loads() -> None:
    import mcpbdd

    assert front_drift((PACKAGE / "__init__.py").read_text(), mcpbdd._MODULES, mcpbdd._NAMES) == []
    assert set(mcpbdd.__all__) == {"__version__", *mcpbdd._MODULES, *mcpbdd._NAMES}


@pytest.mark.parametrize(
    ("change", "says"),
    [
        ({"names": {"Wrold": "mcpbdd.scenario.world"}}, "Wrold: the TYPE_CHECKING block says None"),
        ({"names": {"Call": "mcpbdd.model.trace"}}, "Call: the TYPE_CHECKING block says mcpbdd.model.outcome.Call"),
        ({"modules": {"progress": "mcpbdd.checks.logs"}}, "the maps say mcpbdd.checks.logs"),
        ({"line": "    from mcpbdd.model.outcome import Channel as Chanel"}, "Chanel: the TYPE_CHECKING block says"),
    ],
)
def test_the_front_refuses_a_name_stated_wrongly(change: dict[str, Any], says: str) -> None:
    """A name misspelt, or sent to the wrong module, on either side: the check above names it."""
    import mcpbdd

    source = (PACKAGE / "__init__.py").read_text()
    if "line" in change:
        source = source.replace("if TYPE_CHECKING:\n", f"if TYPE_CHECKING:\n{change['line']}\n", 1)
    modules = {**mcpbdd._MODULES, **change.get("modules", {})}
    names = {**mcpbdd._NAMES, **change.get("names", {})}
    assert any(problem.startswith(says) or says in problem for problem in front_drift(source, modules, names))


def test_the_old_name_of_the_progress_checks_still_works() -> None:
    import mcpbdd

    with pytest.warns(DeprecationWarning, match="mcpbdd.events is now mcpbdd.progress"):
        old = mcpbdd.events
    assert old is mcpbdd.progress
    assert "events" not in mcpbdd.__all__


def test_the_top_level_holds_only_the_front_the_hooks_and_private_seams() -> None:
    loose = sorted(
        path.name
        for path in PACKAGE.glob("*.py")
        if path.name not in {"__init__.py", "behave.py"} and not path.name.startswith("_")
    )
    assert loose == [], f"loose modules at the top of mcpbdd/: {', '.join(loose)}; put each in the package of its layer"


@pytest.mark.parametrize("path", MODULES, ids=[str(p.relative_to(PACKAGE.parent)) for p in MODULES])
def test_no_module_passes_600_lines_and_each_says_what_it_exports(path: Path) -> None:
    text = path.read_text()
    assert text.count("\n") <= 600, f"{path.name} has {text.count(chr(10))} lines: split it by concern"
    tree = ast.parse(text)
    assert ast.get_docstring(tree), f"{path.name} has no module docstring saying why it exists"
    targets = [t for n in tree.body if isinstance(n, ast.Assign) for t in n.targets]
    targets += [n.target for n in tree.body if isinstance(n, ast.AnnAssign)]
    exported = any(isinstance(target, ast.Name) and target.id == "__all__" for target in targets)
    assert exported, f"{path.name} has no __all__"
