"""Installing a pinned npm package into mcpbdd's cache on first use (Allure 3, Cucumber's HTML formatter, the
official conformance suite and the Node.js it runs on).

What is installed is fixed by a lockfile kept in the package (`npm_locks/<name>/`: a `package.json`
naming exact versions and the `package-lock.json` npm resolved from it, every transitive package with
its integrity hash), installed with `npm ci`: the same files on every machine, whatever npm's registry
published since. Install scripts never run (`--ignore-scripts`): none of these packages has one
(tests/test_npm_locks.py fails when a lockfile says otherwise), so a compromised transitive package
cannot run code at install time. A lockfile is refreshed by hand: in its folder,
`npm install --package-lock-only --ignore-scripts --save-exact PKG@VERSION`.

The install goes to a temporary folder beside its home that is renamed into place, so an
interrupted install never leaves a half-installed cache and two concurrent first uses do not
corrupt each other; later uses need no network. The home keeps a copy of the lockfile it was
installed from: a cache installed from another one (an older mcpbdd, or one that floated) is
installed afresh. The cache is `cache_root()`: `$MCPBDD_CACHE`, else `$XDG_CACHE_HOME/mcpbdd`,
else `~/.cache/mcpbdd`.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from pathlib import Path

__all__ = ["INSTALL_TIMEOUT", "LOCKS", "LOCK_FILES", "InstallError", "cache_root", "install"]

LOCKS = Path(__file__).parent / "npm_locks"
"""One folder per installed set of packages: `allure`, `cucumber-html`, `conformance`, `conformance-with-node`."""
LOCK_FILES = ("package.json", "package-lock.json")
INSTALL_TIMEOUT = 900.0
"""Seconds `npm ci` may take (Node 22 alone is a 30 MB download): a registry that stops answering fails the
install, saying so, instead of hanging the run."""


class InstallError(RuntimeError):
    """npm could not install the package; the message carries npm's output."""


def cache_root() -> Path:
    """Where npm packages are installed: `$MCPBDD_CACHE`, else `$XDG_CACHE_HOME/mcpbdd`, else `~/.cache/mcpbdd`."""
    explicit = os.environ.get("MCPBDD_CACHE")
    if explicit:
        return Path(explicit)
    base = os.environ.get("XDG_CACHE_HOME")
    return (Path(base) if base else Path.home() / ".cache") / "mcpbdd"


def _installed_from(home: Path, lock: Path) -> bool:
    """Whether `home` was installed from exactly `lock`'s files (it keeps copies of them)."""
    try:
        return all((home / name).read_bytes() == (lock / name).read_bytes() for name in LOCK_FILES)
    except FileNotFoundError:
        return False


def install(npm: str, home: Path, lock: Path, entry: Path, *, quiet: bool = False) -> Path:
    """The packages `lock` (a folder of `LOCKS`) pins, installed under `home` with `npm ci --ignore-scripts`
    unless `entry` (a file inside it) is already there from that same lockfile."""
    if entry.is_file() and _installed_from(home, lock):
        return entry
    if home.exists():  # emptied by hand, or installed from another lockfile: install afresh
        shutil.rmtree(home, ignore_errors=True)
    home.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{home.name}-", dir=home.parent))
    staging.chmod(0o755)  # mkdtemp makes it private; a shared CI cache must stay readable
    what = f"the packages of {lock / 'package-lock.json'}"
    if not quiet:
        print(f"mcpbdd: installing {what} into {home} (once; later uses work offline)", flush=True)
    for name in LOCK_FILES:
        shutil.copyfile(lock / name, staging / name)
    command = [npm, "ci", "--ignore-scripts", "--no-audit", "--no-fund", "--loglevel=error"]
    try:
        done = subprocess.run(command, cwd=staging, capture_output=True, text=True, timeout=INSTALL_TIMEOUT)
    except OSError as exc:
        done = subprocess.CompletedProcess(command, 127, "", str(exc))
    except subprocess.TimeoutExpired:
        done = subprocess.CompletedProcess(command, -1, "", f"npm ci did not finish within {INSTALL_TIMEOUT:.0f} s")
    if done.returncode != 0:
        shutil.rmtree(staging, ignore_errors=True)
        raise InstallError(f"npm could not install {what} (npm ci):\n{done.stdout}{done.stderr}")
    try:
        staging.rename(home)
    except OSError:  # another process installed it meanwhile: use theirs
        shutil.rmtree(staging, ignore_errors=True)
    if not entry.is_file():
        raise InstallError(f"npm installed {what}, but {entry} is missing")
    return entry
