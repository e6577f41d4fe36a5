"""A scenario with listens open vs the same scenario without them, in-process and over stdio, in one run.

Each scenario is what behave runs for one scenario of features/announcements.feature: a `World`
for alice of tenant acme on the example notes server, a note created, then six calls that announce
(`set_archiving` on and off: the tools list; `edit_note`: the note's resource), then `close()`.
Variants, interleaved rep by rep so drift in the machine's load hits all alike:

  plain      the same calls with no listen open: their announcements reach no one;
  listening  a listen opened first (`World.listens.listen_for`) for the note's resource, which hears
             the three edits. It pays the opening (a `subscriptions/listen` round trip on 2026-07-28, a
             `resources/subscribe` on 2025-11-25, the context harness's listen handler task), every
             frame the server sends it and mcpbdd hears below the SDK client, and the close of the
             stream at the scenario's end;
  tools      (information) a listen for the tools list instead, which hears the three changes of
             `set_archiving`. On 2026-07-28 the SDK client then drops what it knew of the tools at each
             change and lists them again before its next call (to validate a result against its output
             schema): what any client listening to the tools list pays, not mcpbdd's listen.

Each figure is a median over reps, each ratio one of two medians. Target: listening <=
1.2x plain on every target, in-process and over stdio.

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
from mcpbdd.model.kinds import ClientMode, HarnessKind
from mcpbdd.scenario.runtime import RunLoop
from mcpbdd.scenario.world import World

STDIO = "stdio: {python} -m mcpbdd.examples.notes"
IDENTITY = {"NOTES_TENANT": "{tenant}", "NOTES_USER": "{user}"}
TARGETS: dict[str, Settings] = {
    "context": Settings(server="mcpbdd.examples.notes:mcp", harness=HarnessKind.CONTEXT),
    "in-process client (2026-07-28)": Settings(server="mcpbdd.examples.notes:mcp", harness=HarnessKind.CLIENT),
    "in-process client (2025-11-25)": Settings(
        server="mcpbdd.examples.notes:mcp", harness=HarnessKind.CLIENT, client_mode=ClientMode.LEGACY
    ),
    "stdio (2026-07-28)": Settings(
        server=STDIO, harness=HarnessKind.CLIENT, env=IDENTITY, start_timeout=120, timeout=60
    ),
    "stdio (2025-11-25)": Settings(
        server=STDIO,
        harness=HarnessKind.CLIENT,
        client_mode=ClientMode.LEGACY,
        env=IDENTITY,
        start_timeout=120,
        timeout=60,
    ),
}
LISTENS: dict[str, tuple[Topic, ...]] = {
    "plain": (),
    "listening": (Topic.resource("notes://plan"),),
    "tools": (Topic.of_list("tools"),),
}


def scenario(settings: Settings, run_loop: RunLoop, listens: tuple[Topic, ...]) -> None:
    """One scenario: a note, the listens (none or one), six announcing calls, then everything closed."""
    world = World(settings, run_loop.owner())
    try:
        world.add_user("alice", "acme")
        world.call_tool("create_note", {"title": "Plan", "body": "", "slug": "plan"})
        for topic in listens:
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
    variants = [(target, kind) for target in TARGETS for kind in LISTENS]
    for target, kind in variants:  # warm-up: imports, the fork server's one start
        scenario(TARGETS[target], run_loop, LISTENS[kind])
    samples: dict[tuple[str, str], list[float]] = {variant: [] for variant in variants}
    for _ in range(args.reps):
        for target, kind in variants:
            settings, listens = TARGETS[target], LISTENS[kind]
            run = lambda settings=settings, listens=listens: scenario(settings, run_loop, listens)  # noqa: E731
            samples[(target, kind)].append(timed(run, args.scenarios))
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
    print("| target | ms per scenario, plain | listening | listening / plain | target | tools (information) |")
    print("| --- | ---: | ---: | ---: | --- | ---: |")
    for target in TARGETS:
        plain, heard, tools = (median[(target, kind)] for kind in LISTENS)
        ratio = heard / plain
        verdict = "ok" if ratio <= 1.2 else "MISSED"
        print(
            f"| {target} | {plain * 1e3:.2f} | {heard * 1e3:.2f} | {ratio:.2f}x | <= 1.2x: {verdict} | "
            f"{tools * 1e3:.2f} ({tools / plain:.2f}x) |"
        )


if __name__ == "__main__":
    main()
