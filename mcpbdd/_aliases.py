"""Old import paths that are other packages now: `mcpbdd.kit` is `mcpbdd_kit`, `mcpbdd.storage` is `mcpbdd_kit.storage`.

The kit moved into its own distribution (mcpbdd-kit, from the repository's `kit/` folder) so that a
production server installs it without behave, hypothesis or allure. Servers, tests and mcpbdd itself still
import `mcpbdd.kit.consent`, `mcpbdd.storage` and the like; each of those names must give the very module
object `mcpbdd_kit` holds, not a second copy of its code: a second copy would have its own `ConsentGate`
class (isinstance fails across the two), its own module state (the scenario's doubles set through one name
unseen through the other) and its own attributes (a monkeypatch through one name missing the other).

So `alias(old, new)` puts the `new` module in `sys.modules` under the `old` name, and a finder first on
`sys.meta_path` answers every `old.<sub>` with the module `new.<sub>` (imported under its own name once,
then registered under both). Nothing is imported before it is asked for: `import mcpbdd.kit` loads no kit
module but `mcpbdd_kit` itself. Type checkers read the stubs beside the package (`mcpbdd/kit/*.pyi`), which
re-export `mcpbdd_kit`'s modules name for name.
"""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import importlib.util
import sys
import threading
import types
from collections.abc import Mapping, Sequence

__all__ = ["alias", "expect"]


class _AliasLoader(importlib.abc.Loader):
    """Loads `old.<sub>` by importing `new.<sub>` and handing back that module object itself."""

    def __init__(self, target: str) -> None:
        self.target = target
        self.own_spec: importlib.machinery.ModuleSpec | None = None

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> types.ModuleType:
        try:
            module = importlib.import_module(self.target)
        except ModuleNotFoundError as missing:
            if missing.name != self.target:
                raise
            # `old.nothing` fails as `ModuleNotFoundError: No module named 'old.nothing'`
            raise ModuleNotFoundError(f"No module named {spec.name!r}", name=spec.name) from None
        self.own_spec = module.__spec__
        return module

    def exec_module(self, module: types.ModuleType) -> None:
        """Nothing to run (`create_module` returned a module its own import already ran), but one thing to undo.

        The import system keeps the module's __name__, __loader__, __package__ and __path__ (it sets only what is
        missing) but always sets __spec__, to the alias's: put the module's own back, so that it stays `new.<sub>`
        in every respect but the extra name it is known by (`importlib.reload` reloads it, for one).
        """
        module.__spec__ = self.own_spec


class _AliasFinder(importlib.abc.MetaPathFinder):
    """Answers `old.<sub>` for each aliased package before the path finder could load a second copy."""

    def __init__(self) -> None:
        # replaced whole, never changed in place: a lookup on another thread reads one complete mapping
        self.packages: Mapping[str, str] = {}

    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: types.ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        for old, new in self.packages.items():
            if fullname.startswith(old + "."):
                real = new + fullname[len(old) :]
                if _ready(real.rpartition(".")[0]) and importlib.util.find_spec(real) is None:
                    return None  # `old.nothing` fails as `ModuleNotFoundError: No module named 'old.nothing'`
                return importlib.machinery.ModuleSpec(fullname, _AliasLoader(real))
        return None


def _ready(name: str) -> bool:
    """Whether the package `name` is imported whole, so that finding a child in it imports nothing.

    The import system asks finders while it holds its global lock: a finder that imported a package another
    thread is still running would wait for that thread, which waits for the lock to import anything (a deadlock
    no module lock detects). Otherwise the loader imports it, outside that lock, and says what is missing then.
    """
    module = sys.modules.get(name)
    return module is not None and not getattr(module.__spec__, "_initializing", False)


_FINDER = _AliasFinder()
_LOCK = threading.Lock()


def expect(old: str, new: str) -> None:
    """Answer `old.<sub>` with `new.<sub>` from now on: called first in the `old` package's `__init__`, before
    `import new`. The import system does not wait for a package still running its `__init__` on another thread:
    it looks a child up at once, with the finders registered so far, and the `old` folder holds only stubs."""
    with _LOCK:
        _FINDER.packages = {**_FINDER.packages, old: new}
        if _FINDER not in sys.meta_path:
            sys.meta_path.insert(0, _FINDER)


def alias(old: str, module: types.ModuleType) -> None:
    """Make `old` and every `old.<sub>` the same module objects as `module` and its submodules.

    Called from the `old` package's `__init__` (`alias(__name__, mcpbdd_kit)`, after `import mcpbdd_kit`, which
    shows the import system and import-linter what the old name stands for): the import system then keeps what
    `sys.modules[old]` holds at the end, `module`, and sets it as the parent's attribute.
    """
    new = module.__name__
    expect(old, new)
    sys.modules[old] = module
    # submodules of `new` imported before the alias existed are known by the old name too
    for name, loaded in list(sys.modules.items()):
        if name.startswith(new + ".") and loaded is not None:
            sys.modules.setdefault(old + name[len(new) :], loaded)
