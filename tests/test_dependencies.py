"""pyproject.toml declares exactly the distributions mcpbdd/ imports, and kit/pyproject.toml those kit/mcpbdd_kit/
imports: none missing, none left over.

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
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from mcpbdd.harness.processes.forkserver import absolute_imports

ROOT = Path(__file__).resolve().parent.parent


def _normal(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


RUNTIME_EXTRAS = ("apps", "load")
"""Extras that are part of mcpbdd's runtime for one feature (`apps`: Playwright, for mcpbdd.apps; `load`: Locust
and gevent, for mcpbdd.locust); not `dev`."""


@dataclass(frozen=True)
class Distribution:
    """A distribution this repository builds: its pyproject.toml, the folder of its code, the extras it runs with."""

    pyproject: str
    code: str
    extras: tuple[str, ...] = ()

    @property
    def project(self) -> dict[str, Any]:
        project: dict[str, Any] = tomllib.loads((ROOT / self.pyproject).read_text(encoding="utf-8"))["project"]
        return project

    @property
    def packages(self) -> set[str]:
        """The top-level packages it ships (what an import of its own code starts with)."""
        return {Path(self.code).name}


MCPBDD = Distribution("pyproject.toml", "mcpbdd", RUNTIME_EXTRAS)
KIT = Distribution("kit/pyproject.toml", "kit/mcpbdd_kit")
"""The kit's own distribution (mcpbdd-kit): what a production server installs, so its list must be whole too."""
DISTRIBUTIONS = [pytest.param(MCPBDD, id="mcpbdd"), pytest.param(KIT, id="mcpbdd-kit")]


def _declared(dist: Distribution) -> set[str]:
    specs = [
        *dist.project["dependencies"],
        *(s for extra in dist.extras for s in dist.project["optional-dependencies"][extra]),
    ]
    return {_normal(re.match(r"[A-Za-z0-9_.-]+", spec)[0]) for spec in specs}  # type: ignore[index]


@functools.cache
def _imported_top_levels(dist: Distribution) -> dict[str, set[str]]:
    """Every top-level module the distribution's code imports that is neither the standard library nor its own
    (found once per process: both tests of a distribution read it, and parsing mcpbdd/ costs about a second of CPU;
    callers must not change it)."""
    found: dict[str, set[str]] = {}
    for path in sorted((ROOT / dist.code).rglob("*.py")):
        for name in absolute_imports(ast.parse(path.read_text(encoding="utf-8"))):
            top = name.split(".")[0]
            if top not in sys.stdlib_module_names and top not in dist.packages:
                found.setdefault(top, set()).add(path.relative_to(ROOT).as_posix())
    return found


@functools.cache
def _installed() -> dict[str, list[str]]:
    installed = {top: list(names) for top, names in importlib.metadata.packages_distributions().items()}
    # An editable install of this repository's own distributions records a .pth file, not its packages: name them.
    for dist in (MCPBDD, KIT):
        for package in dist.packages:
            installed.setdefault(package, []).append(dist.project["name"])
    return installed


def _distributions(top: str) -> set[str]:
    return {_normal(name) for name in _installed().get(top, [])}


@pytest.mark.parametrize("dist", DISTRIBUTIONS)
def test_every_imported_package_is_declared(dist: Distribution) -> None:
    declared = _declared(dist)
    missing = {
        top: sorted(where)[:3]
        for top, where in _imported_top_levels(dist).items()
        if not _distributions(top) & declared
    }
    assert missing == {}, f"imported but not in [project] dependencies of {dist.pyproject}: {missing}"


@pytest.mark.parametrize("dist", DISTRIBUTIONS)
def test_every_declared_package_is_imported(dist: Distribution) -> None:
    used = {name for top in _imported_top_levels(dist) for name in _distributions(top)}
    assert sorted(_declared(dist) - used) == []


def test_the_resolved_schema_generators_work_together() -> None:
    """pip's pick of hypothesis and hypothesis-jsonschema must run, not fall back (pyproject pins hypothesis for it)."""
    from mcpbdd.checks.generated import generate_inputs

    schema = {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]}
    values, notes = generate_inputs(schema, 5, seed=1, generator="hypothesis-jsonschema")
    assert values and all(isinstance(value["n"], int) for value in values), notes
