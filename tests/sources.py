"""The repository's Python sources, each read and parsed once per test process, however many tests walk them.

Several fast-tier modules read the whole package's source: the layout (600 lines, a docstring and `__all__` per
module), the SDK seam (no private reach outside `_sdk.py`), the declared dependencies (what each distribution
imports, twice over) and the checks' homes. Parsing mcpbdd/ costs about a second of CPU, so each of them parsing it
again made the tier pay it four to five times per worker. A file is read again when it changed on disk (its size or
modification time), so a test that writes a probe file of its own gets that file, never a stale tree.

The trees are shared: a caller reads them (`ast.walk`, `ast.get_docstring`) and never changes one.
"""

from __future__ import annotations

import ast
from functools import cache
from pathlib import Path

__all__ = ["parsed", "text"]


def text(path: Path) -> str:
    """The file's text (UTF-8), read once per process while the file is unchanged."""
    return _read(*_identity(path))


def parsed(path: Path) -> ast.Module:
    """The file's syntax tree, parsed once per process while the file is unchanged; shared, so never change it."""
    return _parse(*_identity(path))


def _identity(path: Path) -> tuple[Path, int, int]:
    resolved = path.resolve()
    status = resolved.stat()
    return resolved, status.st_size, status.st_mtime_ns


@cache
def _read(path: Path, size: int, modified: int) -> str:
    return path.read_text(encoding="utf-8")


@cache
def _parse(path: Path, size: int, modified: int) -> ast.Module:
    return ast.parse(_read(path, size, modified), filename=str(path))
