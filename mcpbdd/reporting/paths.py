"""Tracebacks in reports with short paths: `site-packages/behave/runner.py`, not the machine's virtualenv.

A report is read on another machine than the one that ran it (a CI artifact, a pull request's
page): `/home/runner/work/x/.venv/lib/python3.11/site-packages/behave/runner.py` says where one
machine keeps its packages and hides what matters, the package and the file. Every trace a
report writes goes through `short_paths`: an installed package's file is written relative to its
`site-packages` folder, a file of the project relative to the folder the run started in.
"""

from __future__ import annotations

import os
import sysconfig
from pathlib import Path

__all__ = ["short_paths"]


def _prefixes() -> list[tuple[str, str]]:
    """(a folder, what it is written as), longest first so that a virtualenv inside the project reads as packages."""
    found: dict[str, str] = {}
    for key in ("purelib", "platlib"):
        folder = sysconfig.get_paths().get(key)
        if folder:
            for form in {folder, str(Path(folder).resolve())}:
                found[form.rstrip(os.sep) + os.sep] = "site-packages" + os.sep
    cwd = os.getcwd()
    for form in {cwd, str(Path(cwd).resolve())}:
        found.setdefault(form.rstrip(os.sep) + os.sep, "")
    return sorted(found.items(), key=lambda item: len(item[0]), reverse=True)


def short_paths(text: str) -> str:
    """`text` with the paths of installed packages relative to `site-packages`, the project's relative to it."""
    if not text or os.sep not in text:
        return text
    for folder, short in _prefixes():
        text = text.replace(folder, short)
    return text
