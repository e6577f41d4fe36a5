"""Installing a pinned npm package into mcpbdd's cache on first use (Allure 3, Cucumber's HTML formatter).

The install goes to a temporary folder beside its home that is renamed into place, so an
interrupted install never leaves a half-installed cache and two concurrent first uses do not
corrupt each other; later uses need no network. The cache is `cache_root()`:
`$MCPBDD_CACHE`, else `$XDG_CACHE_HOME/mcpbdd`, else `~/.cache/mcpbdd`.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
from collections.abc import Sequence
from pathlib import Path

__all__ = ["InstallError", "cache_root", "install"]


class InstallError(RuntimeError):
    """npm could not install the package; the message carries npm's output."""


def cache_root() -> Path:
    """Where npm packages are installed: `$MCPBDD_CACHE`, else `$XDG_CACHE_HOME/mcpbdd`, else `~/.cache/mcpbdd`."""
    explicit = os.environ.get("MCPBDD_CACHE")
    if explicit:
        return Path(explicit)
    base = os.environ.get("XDG_CACHE_HOME")
    return (Path(base) if base else Path.home() / ".cache") / "mcpbdd"


def install(npm: str, home: Path, packages: Sequence[str], entry: Path, *, quiet: bool = False) -> Path:
    """`packages` (`name@version`) installed under `home` unless `entry` (a file inside it) is already there."""
    if entry.is_file():
        return entry
    if home.exists():  # a cache someone emptied by hand: install afresh
        shutil.rmtree(home, ignore_errors=True)
    home.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{home.name}-", dir=home.parent))
    staging.chmod(0o755)  # mkdtemp makes it private; a shared CI cache must stay readable
    if not quiet:
        print(f"mcpbdd: installing {', '.join(packages)} into {home} (once; later uses work offline)", flush=True)
    (staging / "package.json").write_text(json.dumps({"name": f"mcpbdd-{home.parent.name}", "private": True}))
    command = [npm, "install", "--no-audit", "--no-fund", "--loglevel=error", *packages]
    done = subprocess.run(command, cwd=staging, capture_output=True, text=True)
    if done.returncode != 0:
        shutil.rmtree(staging, ignore_errors=True)
        raise InstallError(f"npm could not install {' '.join(packages)}:\n{done.stdout}{done.stderr}")
    try:
        staging.rename(home)
    except OSError:  # another process installed it meanwhile: use theirs
        shutil.rmtree(staging, ignore_errors=True)
    if not entry.is_file():
        raise InstallError(f"npm installed {' '.join(packages)}, but {entry} is missing")
    return entry
