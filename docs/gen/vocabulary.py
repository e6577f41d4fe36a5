"""Writes reference/vocabulary.md at build time from `mcpbdd steps --markdown`, so the page never goes stale.

The page is the command's own output (run as the command, in a subprocess, so the site shows exactly
what a user's terminal prints), never a committed copy.
"""

from __future__ import annotations

import subprocess
import sys

import mkdocs_gen_files

__all__: list[str] = []

markdown = subprocess.run(
    [sys.executable, "-m", "mcpbdd.cli.main", "steps", "--markdown"], capture_output=True, text=True, check=True
).stdout

with mkdocs_gen_files.open("reference/vocabulary.md", "w") as page:
    page.write(markdown)
