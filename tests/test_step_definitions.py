"""Every mcpbdd step is an ordinary, module-level decorated function.

Steps built in a loop (a lambda or a closure handed to `then(...)` for each row of a
table) all point at one line, so behave's `steps.usage` and an editor's "go to step
definition" cannot take a reader to the phrase they clicked. This reads behave's own
registry after importing `mcpbdd.steps` (in this process: nothing here runs behave) and
checks each definition against its module's syntax tree.
"""

from __future__ import annotations

import ast
import importlib
import inspect
import linecache
import sys
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from behave.step_registry import registry

importlib.import_module("mcpbdd.steps")  # registers every step

STEPS = Path(sys.modules["mcpbdd.steps"].__file__ or "").parent
DEFINITIONS = [
    (step_type, matcher)
    for step_type, matchers in registry.steps.items()
    for matcher in matchers
    if matcher.func.__module__.startswith("mcpbdd.steps.")
]


@cache
def _functions(path: Path) -> dict[str, ast.FunctionDef]:
    """The module's top-level functions by name."""
    tree = ast.parse(path.read_text(), filename=str(path))
    return {node.name: node for node in tree.body if isinstance(node, ast.FunctionDef)}


def _phrases(node: ast.FunctionDef) -> list[tuple[str, str]]:
    """(keyword, phrase) of each `@given("...")`-style decorator whose phrase is written out as a literal."""
    found: list[tuple[str, str]] = []
    for decorator in node.decorator_list:
        if (
            isinstance(decorator, ast.Call)
            and isinstance(decorator.func, ast.Name)
            and decorator.args
            and isinstance(decorator.args[0], ast.Constant)
            and isinstance(decorator.args[0].value, str)
        ):
            found.append((decorator.func.id, decorator.args[0].value))
    return found


def test_the_registry_holds_the_whole_vocabulary() -> None:
    """Guard for the checks below: an empty registry would pass them all."""
    assert len(DEFINITIONS) > 80
    assert {step_type for step_type, _ in DEFINITIONS} == {"given", "when", "then", "step"}


@pytest.mark.parametrize(("step_type", "matcher"), DEFINITIONS, ids=[f"{t}:{m.pattern}" for t, m in DEFINITIONS])
def test_each_step_is_a_module_level_function_decorated_with_its_phrase(step_type: str, matcher: Any) -> None:
    func = matcher.func
    where = f"{func.__module__}.{func.__qualname__}"
    assert func.__qualname__ == func.__name__, f"{where} is not defined at module level (a lambda or a closure)"
    source = Path(inspect.getsourcefile(func) or "")
    assert source.parent == STEPS, f"{where} is defined in {source}, not in mcpbdd/steps/"
    module = sys.modules[func.__module__]
    assert getattr(module, func.__name__) is func, f"{where} is shadowed by another definition of the same name"
    node = _functions(source).get(func.__name__)
    assert node is not None, f"{where} is not a top-level def in {source.name}"
    assert (step_type, matcher.pattern) in _phrases(node), (
        f"{where} does not carry @{step_type}({matcher.pattern!r}) as a decorator written out in {source.name}"
    )
    first_line = linecache.getline(str(source), func.__code__.co_firstlineno).strip()
    assert first_line.startswith("@"), (
        f"behave locates {where} at {source.name}:{func.__code__.co_firstlineno}, which reads {first_line!r}, "
        "not a decorator"
    )
    assert (inspect.getdoc(func) or "").strip(), f"{where} has no docstring, so `mcpbdd steps` shows no example"
