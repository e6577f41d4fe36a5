"""A server's module-level state that a scenario changed: said once, since in-process the next scenario sees it.

In-process, the server's module is imported once for the run: a module-level `ORDERS = {}` that a
tool fills survives from one scenario to the next, while over stdio or HTTP each scenario's fresh
process starts it empty, and the same scenario gets another verdict (a newcomer's first trap: "o-3"
where the specification says "o-1"). mcpbdd cannot undo what a server keeps in its own globals
(`mcpbdd.harness.registrations` restores what the SDK registered), so it says so: the first time a
scenario changes a module-level dict, list or set of a module whose tools the server registered, a
warning on stderr names the variable and where the state belongs (the lifespan, or
`scenario_doubles()`). A warning, not a failure: a cache that is meant to outlive a request (a
compiled pattern, a lookup table filled on first use) changes the same way.

Cheap: the fingerprint is the `repr` of each such global, skipped past `_MAX_REPR` characters.
"""

from __future__ import annotations

import sys
from typing import Any

from mcpbdd._sdk import registered_tools

__all__ = ["ModuleState", "warned"]

_MAX_REPR = 200_000
"""A global whose `repr` is longer is not fingerprinted (too costly to compare per scenario)."""

warned: set[tuple[str, str]] = set()
"""(module, name) pairs already warned about in this process: one line per variable per run."""


class ModuleState:
    """The module-level containers of the modules that define a server's tools, fingerprinted."""

    def __init__(self, prints: dict[tuple[str, str], str]) -> None:
        self._prints = prints

    @classmethod
    def take(cls, server: Any) -> ModuleState:
        modules = {getattr(tool.fn, "__module__", None) for tool in registered_tools(server)}
        prints: dict[tuple[str, str], str] = {}
        for name in sorted(m for m in modules if m and m in sys.modules and not m.startswith("mcp.")):
            for variable, value in vars(sys.modules[name]).items():
                shown = _fingerprint(value)
                if shown is not None and not variable.startswith("__"):
                    prints[(name, variable)] = shown
        return cls(prints)

    def changed(self) -> list[tuple[str, str]]:
        """The (module, variable) pairs whose contents differ now from when they were taken."""
        found = []
        for (module, variable), before in self._prints.items():
            current = vars(sys.modules[module]).get(variable) if module in sys.modules else None
            if _fingerprint(current) != before:
                found.append((module, variable))
        return found

    def warn(self, scenario: str | None = None) -> list[str]:
        """Print, once per variable per run, a warning for each changed container; the lines printed."""
        lines = []
        for module, variable in self.changed():
            if (module, variable) in warned:
                continue
            warned.add((module, variable))
            during = f" during the scenario {scenario!r}" if scenario else " during a scenario"
            lines.append(
                f"mcpbdd: warning: {module}.{variable} changed{during}; in-process the next scenario sees it, "
                "while over stdio or HTTP each scenario starts a fresh process: keep a server's state in its "
                "lifespan (or the scenario's doubles, scenario_doubles()), see docs/reference/storage.md"
            )
        for line in lines:
            print(line, file=sys.__stderr__)
        return lines


def _fingerprint(value: Any) -> str | None:
    """`repr` of a dict, list or set (None for anything else, or one too large to compare cheaply)."""
    if not isinstance(value, dict | list | set):
        return None
    try:
        shown = repr(value)
    except Exception:  # a repr that fails cannot be compared; such a global is not ours to judge
        return None
    return shown if len(shown) <= _MAX_REPR else None
