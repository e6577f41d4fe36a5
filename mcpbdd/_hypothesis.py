"""Every use of a private attribute of hypothesis, in one place (as `mcpbdd._sdk` holds the SDK's and anyio's).

Apart from `_sdk` so that what may import the SDK's seam (the example servers, which a production server copies)
never reaches a test framework through it: the kit-and-storage contract in pyproject.toml holds this.
Checked on hypothesis 6.170.9 (`mcpbdd._sdk.SDK_CHECKED`).
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from pathlib import Path

from mcpbdd._sdk import _private

__all__ = ["hypothesis_storage_outside_the_project", "hypothesis_without_local_constants"]


@contextlib.contextmanager
def hypothesis_storage_outside_the_project() -> Iterator[None]:
    """While inside, hypothesis keeps its files in mcpbdd's cache, not in `./.hypothesis` of the user's project.

    `hypothesis.configuration.storage_directory` / `set_hypothesis_home_dir` (hypothesis 6.170.9): generated
    calls keep no example database (`database=None`), but hypothesis still caches its unicode tables under
    its home directory, by default `.hypothesis/` in the working directory: a plain `behave` left one in
    the project. The cache is `$MCPBDD_CACHE/hypothesis`, else `$XDG_CACHE_HOME/mcpbdd/hypothesis`, else
    `~/.cache/mcpbdd/hypothesis` (as `mcpbdd.reporting.npm.cache_root`). A home the user chose
    (`HYPOTHESIS_STORAGE_DIRECTORY`, or `set_hypothesis_home_dir` from their own code) is left alone.
    """

    from hypothesis import configuration

    home = configuration.storage_directory(intent_to_write=False).home_directory
    if os.environ.get("HYPOTHESIS_STORAGE_DIRECTORY") or home != Path.cwd() / ".hypothesis":
        yield
        return
    own, xdg = os.environ.get("MCPBDD_CACHE"), os.environ.get("XDG_CACHE_HOME")
    cache = Path(own) if own else (Path(xdg) if xdg else Path.home() / ".cache") / "mcpbdd"
    configuration.set_hypothesis_home_dir(cache / "hypothesis")
    try:
        yield
    finally:
        configuration.set_hypothesis_home_dir(home)


@contextlib.contextmanager
def hypothesis_without_local_constants() -> Iterator[None]:
    """While inside, hypothesis draws no constants from the code this process has loaded: the same seed gives
    the same inputs whichever modules are loaded.

    `hypothesis.internal.conjecture.providers._get_local_constants` and `CONSTANTS_CACHE` (hypothesis 6.170.9):
    hypothesis mixes into what it draws the literals of every "local" module in `sys.modules` (outside
    site-packages, so mcpbdd itself when installed editable, the server's code, the steps), collected
    anew whenever a module is loaded. Generated calls promise that a seed reproduces its calls; with
    those constants, a feature run alone and the same feature in a whole suite drew different inputs
    from one seed. The global constants hypothesis always uses stay. If the attribute is gone, generation
    fails naming it (`SdkSeamError`) rather than silently becoming unreproducible.
    """
    from hypothesis.internal.conjecture import providers
    from hypothesis.internal.constants_ast import Constants

    original = _private(providers, "_get_local_constants", "to draw no constants from loaded modules", "hypothesis")
    cache = _private(providers, "CONSTANTS_CACHE", "to forget constants drawn from loaded modules", "hypothesis")
    empty = Constants()
    providers._get_local_constants = lambda: empty
    cache.cache.clear()
    try:
        yield
    finally:
        providers._get_local_constants = original
        cache.cache.clear()
