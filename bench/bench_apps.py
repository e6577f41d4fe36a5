"""Opening an app view, per scenario, with one browser kept for the run.

    .venv/bin/python bench/bench_apps.py [--scenarios N]

Each scenario is a fresh World on the run's loop (context harness, the notes server): seed a
note, open the note card (`tools/list`, `resources/read`, `tools/call`, a fresh browser context
and page, the host page, the view's initialization, its input and result), check what it shows,
close the World (the page closes with it). The browser is launched once, before the first
timed scenario (its launch is reported apart). Target: opening a view <= 1.5 s per scenario.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

NOTE = {"id": "n-1", "title": "Launch plan", "body": "Friday", "tags": [], "author": "alice", "created_at": "x"}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--scenarios", type=int, default=20)
    args = parser.parse_args()

    from mcpbdd.apps.browser import close_browser_of
    from mcpbdd.checks import apps as check
    from mcpbdd.model.config import load_settings
    from mcpbdd.scenario import apps
    from mcpbdd.scenario.runtime import RunLoop
    from mcpbdd.scenario.world import World

    settings = load_settings({"mcpbdd.server": "mcpbdd.examples.notes:mcp", "mcpbdd.harness": "context"})
    loop = RunLoop()
    opening: list[float] = []
    whole: list[float] = []
    launch = 0.0
    try:
        for number in range(args.scenarios + 1):
            started = time.perf_counter()
            world = World(settings, loop.owner())
            world.add_user("alice", "acme")
            world.seed_storage("acme", {None: {"notes/n-1": NOTE}})
            mark = time.perf_counter()
            apps.open_app(world, "show_note_card", {"note_id": "n-1"})
            opened = time.perf_counter() - mark
            check.shows(apps.app(world), "Launch plan")
            world.close()
            if number == 0:
                launch = opened  # the first open launches Chromium
                continue
            opening.append(opened)
            whole.append(time.perf_counter() - started)
    finally:
        close_browser_of(loop.loop)
        loop.close()
    print(f"Command: `.venv/bin/python bench/bench_apps.py --scenarios {args.scenarios}`")
    print(f"first open (launches Chromium): {launch * 1000:.0f} ms")
    print(
        f"open a view, per scenario: median {statistics.median(opening) * 1000:.0f} ms, "
        f"max {max(opening) * 1000:.0f} ms (target <= 1500 ms) over {len(opening)} scenarios"
    )
    print(f"whole scenario (World, seed, open, shows, close): median {statistics.median(whole) * 1000:.0f} ms")


if __name__ == "__main__":
    main()
