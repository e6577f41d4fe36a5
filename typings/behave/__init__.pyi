# Types for the part of behave's top-level API that mcpbdd's step modules use.
#
# behave ships no types (no py.typed), so without this its step decorators are Any, and under mypy's strict flags
# every `@given(...)` function is "untyped" (the decorator erases its signature). Here each decorator hands back the
# function it was given, as behave's `StepRegistry.make_decorator` does at run time (it wraps only an `async def`
# step, which mcpbdd's steps are not). Only the names the package imports are declared; every other `behave.*`
# module is still found in the installed package and read as untyped (Any), through the `ignore_missing_imports`
# override in pyproject.toml.
from collections.abc import Callable
from typing import Any, TypeVar

_Step = TypeVar("_Step", bound=Callable[..., object])

def given(step_text: str) -> Callable[[_Step], _Step]: ...
def when(step_text: str) -> Callable[[_Step], _Step]: ...
def then(step_text: str) -> Callable[[_Step], _Step]: ...
def step(step_text: str) -> Callable[[_Step], _Step]: ...

# A parse type: the converter named in a pattern as `{name:Type}` (it may carry a `pattern` attribute).
def register_type(**converters: Callable[[str], Any]) -> None: ...
def use_step_matcher(name: str) -> None: ...
