"""What putting back an in-process server's registrations costs a scenario, as a ratio in one run.

Run: `.venv/bin/python bench/bench_registrations.py [--scenarios 200] [--reps 9]`

Each in-process harness snapshots the server's registrations as it opens and puts them back as it closes
(`mcpbdd.harness.registrations`), so what a scenario registered at runtime is gone for the next. This
measures a World's scenario setup + teardown on the example notes server (17 tools, prompts, resources,
templates), with the snapshot as shipped and with it replaced by one that does nothing, interleaved rep by
rep so a noisy moment hits both alike, on the context harness and on the client harness (session opened).
It prints the median milliseconds per scenario of each and the ratio; the snapshot alone, for information.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable
from typing import Any

from mcpbdd.examples.notes import mcp as notes
from mcpbdd.harness.client import ClientHarness
from mcpbdd.harness.registrations import Registrations
from mcpbdd.model.config import Settings
from mcpbdd.model.kinds import HarnessKind
from mcpbdd.scenario.runtime import RunLoop
from mcpbdd.scenario.world import World

NOTES = "mcpbdd.examples.notes:mcp"
_SHIPPED = Registrations.take.__func__  # type: ignore[attr-defined]


def _nothing_taken(cls: type[Registrations], server: Any) -> Registrations:
    return cls([])


def _scenario(run_loop: RunLoop, harness: str) -> Callable[[], None]:
    settings = Settings(server=NOTES, harness=HarnessKind(harness))

    def once() -> None:
        world = World(settings, run_loop.owner())
        opened = world.harness
        if isinstance(opened, ClientHarness):
            world.run(opened.session(None))
        assert not world.close()

    return once


def _per_scenario(once: Callable[[], None], n: int, take: Any) -> float:
    Registrations.take = classmethod(take)  # type: ignore[method-assign,assignment]
    started = time.perf_counter()
    for _ in range(n):
        once()
    return (time.perf_counter() - started) / n * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--scenarios", type=int, default=200)
    parser.add_argument("--reps", type=int, default=9)
    args = parser.parse_args()
    run_loop = RunLoop()
    try:
        print("| harness | ms per scenario, nothing put back | put back | put back / nothing |")
        print("| --- | ---: | ---: | ---: |")
        for harness in ("context", "client"):
            once = _scenario(run_loop, harness)
            _per_scenario(once, 20, _SHIPPED)  # warm-up
            bare: list[float] = []
            shipped: list[float] = []
            for _ in range(args.reps):
                bare.append(_per_scenario(once, args.scenarios, _nothing_taken))
                shipped.append(_per_scenario(once, args.scenarios, _SHIPPED))
            a, b = statistics.median(bare), statistics.median(shipped)
            print(f"| {harness} | {a:.3f} | {b:.3f} | {b / a:.2f}x |")
        Registrations.take = classmethod(_SHIPPED)  # type: ignore[method-assign,assignment]
        n = 2000
        started = time.perf_counter()
        for _ in range(n):
            Registrations.take(notes).restore()
        print(f"\nThe snapshot and its restore alone: {(time.perf_counter() - started) / n * 1e6:.0f} µs a scenario.")
    finally:
        run_loop.close()


if __name__ == "__main__":
    main()
