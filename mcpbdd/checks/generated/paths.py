"""Where the server lives: the absolute paths of the server's side that its answers must not reveal.

A leak is not only the server's own code: the reference time server answers a 2,000-character
zone with zoneinfo's `File name too long: '<its venv>/lib/python3.11/site-packages/tzdata/...'`.
So the leak verdict looks for three sets of paths, after echoes of the input are cut out:

  * the installation: the folders of the server's code, and its Python (a virtual environment's
    prefix, the standard library, site-packages, the user site): a leak in any answer;
  * the machine: the server's working folder, home and temp folder, and a Python prefix that is
    not a virtual environment (`/usr/local`): a leak in an error; a successful answer may
    legitimately be a path there (a file tool saying where it saved);
  * any absolute path under a common root (`COMMON_ROOTS`, or a drive letter): a leak in an
    error. This is the catch-all for a server whose layout mcpbdd cannot know (`uvx`, `npx`, a
    URL). A path the input supplied is an echo and not a leak.

A path given as an option's value on the server's command line (`--repository /srv/repo`,
`--root=/data`) is input too: whoever configured the server wrote it, and a server that names it
(the reference git server's "Repository path 'x' is outside the allowed repository '/srv/repo'",
which tells the model the one path its tools take) repeats its configuration, it leaks nothing.
So those paths are echoes (`ServerPaths.supplied`), as the call's own arguments are. The program
and a script given positionally (`node /x/dist/index.js`) are the installation, never echoes.

For an in-process server these are this interpreter's and this process's. For a server over
stdio they are the process's where the connector knows them: its command (a `{python}` command
is this interpreter; another Python or a console script in a virtual environment names its
prefix), its working folder, and the HOME and TMPDIR it was given. Over HTTP nothing is known
but the common roots.
"""

from __future__ import annotations

import inspect
import os
import shutil
import site
import sys
import sysconfig
import tempfile
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mcpbdd._sdk import registered_tools
from mcpbdd.harness.base import Harness

__all__ = ["CODE_SUFFIXES", "COMMON_ROOTS", "ServerPaths", "leak_paths", "option_paths", "server_paths"]

COMMON_ROOTS = ("/usr/", "/home/", "/root/", "/tmp/", "/var/", "/opt/", "/Users/")
"""Where an absolute path in an error is a leak even when mcpbdd knows nothing of the server (plus `X:\\`)."""


@dataclass(frozen=True)
class ServerPaths:
    """The server's paths the leak verdict looks for (each set longest first).

    `installation` leaks in any answer; `machine` (path, what it is: "working folder", ...)
    and, with `roots`, any path under `COMMON_ROOTS` leak in an error answer.
    """

    installation: tuple[str, ...] = ()
    machine: tuple[tuple[str, str], ...] = ()
    roots: bool = True
    supplied: tuple[str, ...] = ()
    """Absolute paths the server's command line gives as option values: configuration, echoed, not leaked."""


def leak_paths(harness: Harness, paths: Iterable[str] | None) -> ServerPaths:
    """The paths the leak verdict looks for: `server_paths(harness)`, or exactly the given ones.

    Given paths replace everything mcpbdd would find, the common roots included: whoever names
    the server's paths knows its layout better than a guess does.
    """
    if paths is not None:
        return ServerPaths(installation=_longest_first(p for p in paths if p), roots=False)
    return server_paths(harness)


def server_paths(harness: Harness) -> ServerPaths:
    """The server's installation and machine paths as far as this harness can know them (see the module doc)."""
    connector = getattr(harness, "connector", None)
    kind = getattr(connector, "kind", None)
    installation: set[str] = set()
    machine: dict[str, str] = {}
    supplied: tuple[str, ...] = ()
    if kind == "stdio":
        assert connector is not None
        env = {**os.environ, **connector.environment(None)}
        _add_interpreter(Path(connector.argv[0]), env.get("PATH"), installation, machine)
        _add_machine(machine, connector.options.cwd or os.getcwd(), env.get("HOME"), env.get("TMPDIR"))
        supplied = option_paths(connector.argv)
    elif kind != "http":  # in this process: the context harness or the in-process client
        server = getattr(harness, "server", None) or getattr(connector, "server", None)
        installation.update(_code_folders(server))
        _add_this_interpreter(installation, machine)
        _add_machine(machine, os.getcwd(), str(Path.home()), tempfile.gettempdir())
    machine = {path: what for path, what in machine.items() if path not in installation}
    return ServerPaths(
        installation=_longest_first(installation),
        machine=tuple((path, machine[path]) for path in _longest_first(machine)),
        supplied=supplied,
    )


CODE_SUFFIXES = frozenset({".py", ".pyc", ".pyz", ".js", ".mjs", ".cjs", ".ts", ".mts", ".jar", ".rb", ".php", ".sh"})
"""What a script's path ends with: code of the server's, never a configured path (see `option_paths`)."""


def option_paths(argv: Sequence[str]) -> tuple[str, ...]:
    """The absolute paths `argv` gives as option values (`--opt /p`, `--opt=/p`, `-o /p`), longest first.

    Only values of an option: the program (`argv[0]`) and positional arguments (a script) are the
    server's installation, which an answer must not reveal. A flag that takes no value makes the
    next argument look like its value (`node --enable-source-maps /x/index.js`), so a path to code
    (`CODE_SUFFIXES`) is never taken for configuration.
    """
    found: set[str] = set()
    for before, part in zip(["", *argv[1:-1]], argv[1:], strict=True):
        value = part.split("=", 1)[1] if part.startswith("-") and "=" in part else None
        if value is None and before.startswith("-") and "=" not in before and not part.startswith("-"):
            value = part
        if value and os.path.isabs(value) and len(Path(value).parts) >= 2 and Path(value).suffix not in CODE_SUFFIXES:
            found.add(os.path.normpath(value))
    return _longest_first(found)


def _longest_first(paths: Iterable[str]) -> tuple[str, ...]:
    return tuple(sorted(set(paths), key=len, reverse=True))


def _code_folders(server: Any) -> set[str]:
    """The folders of the modules defining the server's tools, and the import root above each."""
    found: set[str] = set()
    for tool in registered_tools(server):
        fn = inspect.unwrap(getattr(tool, "fn", None) or (lambda: None))
        module = sys.modules.get(getattr(fn, "__module__", "") or "")
        filename = getattr(module, "__file__", None)
        if not filename:
            continue
        folder = Path(filename).resolve().parent
        if len(folder.parts) >= 3:
            found.add(str(folder))
        root = folder
        for _ in range(max(0, len((module.__name__ if module else "").split(".")) - 1)):
            root = root.parent
        if len(root.parts) >= 3:
            found.add(str(root))
    return found


def _add_this_interpreter(installation: set[str], machine: dict[str, str]) -> None:
    """This interpreter's installation: prefixes, the standard library, site-packages, the user site."""
    _add_prefix(sys.prefix, sys.prefix != sys.base_prefix, installation, machine)
    _add_prefix(sys.exec_prefix, sys.exec_prefix != sys.base_exec_prefix, installation, machine)
    _add_prefix(sys.base_prefix, False, installation, machine)
    _add_prefix(sys.base_exec_prefix, False, installation, machine)
    specific = [
        path for key, path in sysconfig.get_paths().items() if key in ("stdlib", "platstdlib", "purelib", "platlib")
    ]
    specific += [*site.getsitepackages(), site.getusersitepackages()]
    installation.update(path for path in specific if len(Path(path).parts) >= 4)


def _add_interpreter(command: Path, search_path: str | None, installation: set[str], machine: dict[str, str]) -> None:
    """The installation a server process runs from, when its command shows it."""
    if str(command) == sys.executable:  # `{python}`: this interpreter
        _add_this_interpreter(installation, machine)
        return
    found = shutil.which(str(command), path=search_path)
    if found is None:
        return
    executable = Path(os.path.abspath(found))  # not resolved: a venv's python is a link to its base Python
    prefix = executable.parent.parent
    config = prefix / "pyvenv.cfg"
    if config.is_file():  # a virtual environment (its python, or a console script installed in it)
        _add_prefix(str(prefix), True, installation, machine)
        home = _venv_home(config)
        if home is not None:
            _add_prefix(str(Path(home).parent), False, installation, machine)
    elif executable.name.startswith("python"):
        _add_prefix(str(prefix), False, installation, machine)


def _venv_home(config: Path) -> str | None:
    """The `home` of a pyvenv.cfg: the folder of the Python the environment was made from."""
    try:
        for line in config.read_text(encoding="utf-8", errors="replace").splitlines():
            key, _, value = line.partition("=")
            if key.strip() == "home" and value.strip():
                return value.strip()
    except OSError:
        return None
    return None


def _add_prefix(prefix: str, virtual: bool, installation: set[str], machine: dict[str, str]) -> None:
    """A virtual environment is the server's own (any answer); a base prefix such as `/usr/local` is shared (errors)."""
    parts = len(Path(prefix).parts)
    if virtual and parts >= 3:
        installation.add(prefix)
    elif parts >= 2:
        machine.setdefault(prefix, "Python installation")


def _add_machine(machine: dict[str, str], cwd: str | None, home: str | None, temp: str | None) -> None:
    for path, what in ((cwd, "working folder"), (home, "home folder"), (temp or "/tmp", "temp folder")):
        if path and os.path.isabs(path) and len(Path(path).parts) >= 2:
            machine.setdefault(os.path.normpath(path), what)
