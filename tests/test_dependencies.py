"""pyproject.toml declares exactly the distributions mcpbdd/ imports: none missing, none left over.

A package that only arrives through another one's requirements (mcp-types through mcp,
starlette through the SDK) works until that other package stops requiring it; declaring
what we import keeps an install honest.
"""

from __future__ import annotations

import ast
import functools
import importlib.metadata
import re
import sys
import tomllib
from collections.abc import Mapping
from pathlib import Path

from mcpbdd.harness.processes.forkserver import absolute_imports

ROOT = Path(__file__).resolve().parent.parent


def _normal(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


RUNTIME_EXTRAS = ("apps",)
"""Extras that are part of mcpbdd's runtime for one feature (`apps`: Playwright, for mcpbdd.apps); not `dev`."""


def _declared() -> set[str]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    specs = [
        *project["dependencies"],
        *(s for extra in RUNTIME_EXTRAS for s in project["optional-dependencies"][extra]),
    ]
    return {_normal(re.match(r"[A-Za-z0-9_.-]+", spec)[0]) for spec in specs}  # type: ignore[index]


def _imported_top_levels() -> dict[str, set[str]]:
    """Every top-level module mcpbdd/ imports that is neither the standard library nor mcpbdd, with where."""
    found: dict[str, set[str]] = {}
    for path in sorted((ROOT / "mcpbdd").rglob("*.py")):
        for name in absolute_imports(ast.parse(path.read_text(encoding="utf-8"))):
            top = name.split(".")[0]
            if top not in sys.stdlib_module_names and top != "mcpbdd":
                found.setdefault(top, set()).add(path.relative_to(ROOT).as_posix())
    return found


@functools.cache
def _installed() -> Mapping[str, list[str]]:
    return importlib.metadata.packages_distributions()


def _distributions(top: str) -> set[str]:
    return {_normal(name) for name in _installed().get(top, [])}


def test_every_imported_package_is_declared() -> None:
    declared = _declared()
    missing = {
        top: sorted(where)[:3] for top, where in _imported_top_levels().items() if not _distributions(top) & declared
    }
    assert missing == {}, f"imported but not in [project] dependencies: {missing}"


def test_every_declared_package_is_imported() -> None:
    used = {dist for top in _imported_top_levels() for dist in _distributions(top)}
    assert sorted(_declared() - used) == []


def test_the_resolved_schema_generators_work_together() -> None:
    """pip's pick of hypothesis and hypothesis-jsonschema must run, not fall back (pyproject pins hypothesis for it)."""
    from mcpbdd.checks.generated import generate_inputs

    schema = {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]}
    values, notes = generate_inputs(schema, 5, seed=1, generator="hypothesis-jsonschema")
    assert values and all(isinstance(value["n"], int) for value in values), notes
