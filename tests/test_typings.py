"""The stubs in typings/ tell mypy what behave and parse do at run time; these tests hold them to it.

typings/behave/__init__.pyi says a step decorator hands back the function it was given, so mypy checks a step
as the function it is. behave does so for an ordinary function only: an `async def` step comes back wrapped
(behave's `AsyncStepFunction`), and the stub would then describe a name wrongly. So every step mcpbdd registers
must be the module's own function, as it was written; and every name the stubs declare must exist in the
installed behave and parse (a stub for a name that is gone would type-check code that fails on import).
"""

from __future__ import annotations

import ast
import importlib
import inspect
import sys
from pathlib import Path
from typing import Any

import behave
import parse
from behave.step_registry import StepRegistry, registry

ROOT = Path(__file__).resolve().parents[1]
STUBS = {"behave": ROOT / "typings" / "behave" / "__init__.pyi", "parse": ROOT / "typings" / "parse.pyi"}

importlib.import_module("mcpbdd.steps")  # registers every step


def _not_as_written(steps: StepRegistry, package: str) -> list[str]:
    """The registered steps of `package` that are not a plain function, the one their module defines by that name."""
    wrong = []
    for matchers in steps.steps.values():
        for matcher in matchers:
            func: Any = matcher.func
            module = sys.modules.get(getattr(func, "__module__", "") or "")
            if module is None or not module.__name__.startswith(package):
                continue
            defined = getattr(module, getattr(func, "__name__", ""), None)
            if not inspect.isfunction(func) or inspect.iscoroutinefunction(func) or defined is not func:
                wrong.append(f"{matcher.location}: {matcher.pattern!r}")
    return wrong


def test_every_mcpbdd_step_is_the_function_as_written_as_the_stub_says() -> None:
    assert _not_as_written(registry, "mcpbdd.steps.") == []


def test_an_async_step_is_caught_behave_wraps_it() -> None:
    """The check above can fail: behave hands back a wrapper for an `async def` step, not the function."""
    steps = StepRegistry()
    given = steps.make_decorator("given")

    async def waits(context: Any) -> None:
        """Given a step that awaits"""

    globals()["waits"] = given("a step that awaits")(waits)
    try:
        assert [line.split(": ", 1)[1] for line in _not_as_written(steps, __name__)] == ["'a step that awaits'"]
    finally:
        del globals()["waits"]


def _declared(stub: Path) -> list[str]:
    tree = ast.parse(stub.read_text(encoding="utf-8"))
    return [node.name for node in tree.body if isinstance(node, ast.FunctionDef) and not node.name.startswith("_")]


def test_every_name_the_stubs_declare_exists_in_the_installed_package() -> None:
    for package, stub in ((behave, STUBS["behave"]), (parse, STUBS["parse"])):
        names = _declared(stub)
        assert names, stub
        assert [name for name in names if not callable(getattr(package, name, None))] == [], stub
