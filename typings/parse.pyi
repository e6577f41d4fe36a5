# Types for the one name of `parse` (behave's step-pattern parser) that mcpbdd's step modules use.
#
# parse ships an `__init__.pyi` but no py.typed marker, so mypy does not read it and `@parse.with_pattern(...)`
# is an untyped decorator (under the strict flags, it makes each parameter type it decorates untyped). As at run
# time, the decorator returns the converter it was given, with the regular expression attached as `pattern`.
from collections.abc import Callable
from typing import TypeVar

_Converter = TypeVar("_Converter", bound=Callable[[str], object])

def with_pattern(pattern: str, regex_group_count: int | None = None) -> Callable[[_Converter], _Converter]: ...
