"""A scenario with listens open vs the same scenario without them, in-process and over stdio, in one run.

Each scenario is what behave runs for one scenario of features/announcements.feature: a `World`
for alice of tenant acme on the example notes server, a note created, then six calls that announce
(`set_archiving` on and off, `edit_note`), then `close()`. The "listening" variant opens two listens
first (the tools list and the note's resource: `World.listens.listen_for`), so it pays their
opening (a `subscriptions/listen` round trip each on 2026-07-28, a `resources/subscribe` on
2025-11-25; the context harness's listen handler task), every frame heard below the SDK client and
the close of both streams at the scenario's end. The plain variant makes the same calls, whose
announcements then reach no one.

Variants are interleaved rep by rep so drift in the machine's load hits all alike; each figure is a
median over reps, each ratio one of two medians. Target (issue 25): listening <= 1.2x plain on every
target, in-process and over stdio.

    .venv/bin/python bench/bench_listen.py [--scenarios 20] [--reps 5]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from collections.abc import Callable
from typing import Any

from mcpbdd.harness.processes import spare, spawn
from mcpbdd.model.announcements import Topic
from mcpbdd.model.config import Settings
from mcpbdd.scenario.runtime import RunLoop
from mcpbdd.scenario.world import World

STDIO = "stdio: {python} -m mcpbdd.examples.notes"
IDENTITY = {"NOTES_TENANT": "{tenant}", "NOTES_USER": "{user}"}
TARGETS: dict[str, Settings] = {
    "context": Settings(server="mcpbdd.examples.notes:mcp", harness="context"),
    "in-process client (2026-07-28)": Settings(server="mcpbdd.examples.notes:mcp", harness="client"),
    "in-process client (2025-11-25)": Settings(
        server="mcpbdd.examples.notes:mcp", harness="client", client_mode="legacy"
    ),
    "stdio (2026-07-28)": Settings(server=STDIO, harness="client", env=IDENTITY, start_timeout=120, timeout=60),
    "stdio (2025-11-25)": Settings(
        server=STDIO, harness="client", client_mode="legacy", env=IDENTITY, start_timeout=120, timeout=60
    ),
}
LISTENS = (Topic.of_list("tools"), Topic.resource("notes://plan"))


def scenario(settings: Settings, run_loop: RunLoop, listening: bool) -> None:
    """One scenario: a note, optionally two listens, six announcing calls, then everything closed."""
    world = World(settings, run_loop.owner())
    try:
        world.add_user("alice", "acme")
        world.call_tool("create_note", {"title": "Plan", "body": "", "slug": "plan"})
        if listening:
            for topic in LISTENS:
                world.listens.listen_for(topic)
        for round_ in range(3):
            calls: list[tuple[str, dict[str, Any]]] = [
                ("set_archiving", {"enabled": round_ % 2 == 0}),
                ("edit_note", {"note_id": "plan", "body": "x"}),
            ]
            for tool, arguments in calls:  # each announces: a tools-list change, a note's update
                outcome = world.call_tool(tool, arguments)
                if not outcome.ok:
                    raise RuntimeError(f"the bench's call failed: {outcome.failure or outcome.text}")
    finally:
        errors = world.close()
    if errors:
        raise RuntimeError(f"closing the scenario failed: {errors!r}")


def timed(run: Callable[[], None], n: int) -> float:
    started = time.perf_counter()
    for _ in range(n):
        run()
    return (time.perf_counter() - started) / n


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--scenarios", type=int, default=20, help="scenarios per variant per rep")
    parser.add_argument("--reps", type=int, default=5)
    args = parser.parse_args()
    run_loop = RunLoop()
    began = time.perf_counter()
    variants = [(target, listening) for target in TARGETS for listening in (False, True)]
    for target, listening in variants:  # warm-up: imports, the fork server's one start
        scenario(TARGETS[target], run_loop, listening)
    samples: dict[tuple[str, bool], list[float]] = {variant: [] for variant in variants}
    for _ in range(args.reps):
        for target, listening in variants:
            settings = TARGETS[target]
            run = lambda settings=settings, listening=listening: scenario(settings, run_loop, listening)  # noqa: E731
            samples[(target, listening)].append(timed(run, args.scenarios))
    spawn.stop_all()
    spare.stop_all()
    run_loop.close()
    took = time.perf_counter() - began
    median = {variant: statistics.median(values) for variant, values in samples.items()}
    print(f"Command: `.venv/bin/python bench/bench_listen.py --scenarios {args.scenarios} --reps {args.reps}`  ")
    print(
        f"Python {sys.version.split()[0]}, {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f} at the end; "
        f"{args.reps} reps x {args.scenarios} scenarios of seven calls per variant, interleaved. Took {took:.0f} s.\n"
    )
    print("| target | ms per scenario, plain | ms, two listens open | listening / plain | target |")
    print("| --- | ---: | ---: | ---: | --- |")
    for target in TARGETS:
        plain, heard = median[(target, False)], median[(target, True)]
        ratio = heard / plain
        verdict = "ok" if ratio <= 1.2 else "MISSED"
        print(f"| {target} | {plain * 1e3:.2f} | {heard * 1e3:.2f} | {ratio:.2f}x | <= 1.2x: {verdict} |")


if __name__ == "__main__":
    main()
