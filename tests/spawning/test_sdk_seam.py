"""Each private SDK or anyio attribute mcpbdd relies on (`mcpbdd._sdk`) still does its job on the installed versions.

An SDK upgrade that renames one fails here, naming the seam, rather than deep inside a scenario. (The
tests check behaviour, not version numbers: a newer SDK that keeps the attributes passes; after
checking one, update `mcpbdd._sdk.SDK_CHECKED`.)
"""

from __future__ import annotations

import ast
from pathlib import Path

from mcpbdd import _sdk

PACKAGE = Path(_sdk.__file__).parent


SDK_PACKAGES = ("mcp", "mcp_types", "anyio")

NOT_THE_SDK = {
    ("cli/plan.py", "_actions"): "argparse's list of a parser's options (behave's parser)",
    ("storage/service.py", "_entries"): "another StorageService's own state",
    ("storage/service.py", "_expiry"): "another StorageService's own state",
    ("storage/service.py", "_read_cursor"): "another StorageService's own state",
    ("storage/service.py", "_issue_cursor"): "another StorageService's own state",
    ("harness/processes/fork_child.py", "_run_exitfuncs"): "the interpreter's atexit step (a fork exits by os._exit)",
}
"""Private reads outside the seam that are not the SDK's or anyio's, each with its reason."""


def _private_reads(path: Path, root: Path = PACKAGE) -> list[tuple[str, str]]:
    """`x._name` in a module (not on self, cls, os or a CLI worker); private names or modules imported from the SDK."""
    where = path.relative_to(root).as_posix()
    found: list[tuple[str, str]] = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Attribute) and node.attr.startswith("_") and not node.attr.startswith("__"):
            owner = node.value
            if not (isinstance(owner, ast.Name) and owner.id in ("self", "cls", "os", "worker")):
                found.append((where, node.attr))
        if isinstance(node, ast.ImportFrom) and node.module and node.module.split(".")[0] in SDK_PACKAGES:
            names = [*node.module.split("."), *(alias.name for alias in node.names)]
            if any(name.startswith("_") for name in names):
                found.append((where, f"from {node.module}"))
    return found


def test_no_module_but_the_seam_reaches_into_the_sdk() -> None:
    reads = [read for path in sorted(PACKAGE.rglob("*.py")) if path.name != "_sdk.py" for read in _private_reads(path)]
    assert [read for read in reads if read not in NOT_THE_SDK] == []
