"""bench_load.py's overhead variants counted in CPU instructions, which a shared machine's load does not move.

Run: `.venv/bin/python bench/bench_load_instructions.py [--callers 8] [--calls 100]` (needs valgrind; ~2 minutes
of one core).

Wall and CPU times on a shared 2-core machine move by more than the 15% the load driver's target allows between
two runs of the same code (`BENCHMARKS.md`), so each variant of `bench_load.py` (a, a0, b, c: the same functions,
imported from it) also runs once in a process of its own under callgrind, with instrumentation switched on only
while its calls are timed (`bench_load._Clock` made and read): the warm-up, the imports and the sessions' set-up
are not counted. The counts are deterministic for a given code and input (the garbage collector included), so the
ratios are the work each variant does per call, not the machine's mood. They leave out what instructions do not
show (cache misses, memory bandwidth), which the timed bench keeps.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

VARIANTS = ("a", "a0", "b", "c")


def _child(which: str, callers: int, calls: int) -> None:
    """In the process valgrind runs: one variant, instrumented only between its clock's start and its reading."""
    import asyncio

    sys.path.insert(0, str(Path(__file__).resolve().parent))
    import bench_load

    def instrument(state: str) -> None:
        subprocess.run(["callgrind_control", "-i", state, str(os.getpid())], check=True, capture_output=True)

    clock = bench_load._Clock

    class Counted(clock):  # type: ignore[misc,valid-type]
        def __init__(self) -> None:
            instrument("on")
            super().__init__()

        def read(self) -> tuple[float, float]:
            measured: tuple[float, float] = super().read()
            instrument("off")
            return measured

    variant = {"a": bench_load._raw, "a0": bench_load._bare, "b": bench_load._driver, "c": bench_load._harness}[which]
    server = bench_load._server()
    asyncio.run(variant(server, callers, 20))  # warm-up, not counted
    bench_load._Clock = Counted  # type: ignore[misc]
    asyncio.run(variant(server, callers, calls))


def _count(which: str, callers: int, calls: int, folder: Path) -> int:
    out = folder / f"callgrind.{which}.out"
    argv = ["valgrind", "--tool=callgrind", "--instr-atstart=no", f"--callgrind-out-file={out}"]
    argv += [sys.executable, __file__, "--child", which, "--callers", str(callers), "--calls", str(calls)]
    subprocess.run(argv, check=True, capture_output=True)
    totals = re.search(r"^totals: (\d+)", out.read_text(), re.MULTILINE)
    if totals is None:
        raise RuntimeError(f"callgrind wrote no totals for variant {which}")
    return int(totals.group(1))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--callers", type=int, default=8)
    parser.add_argument("--calls", type=int, default=100)
    parser.add_argument("--child", choices=VARIANTS)
    args = parser.parse_args()
    if args.child:
        _child(args.child, args.callers, args.calls)
        return
    print(f"Command: `.venv/bin/python bench/bench_load_instructions.py --callers {args.callers} --calls {args.calls}`")
    with tempfile.TemporaryDirectory() as folder:
        counts = {which: _count(which, args.callers, args.calls, Path(folder)) for which in VARIANTS}
    total = args.callers * args.calls
    for which, count in counts.items():
        print(f"   {which:3} {count / 1e6:9.1f} M instructions ({count / total / 1e3:7.1f} k per call)")
    a, a0, b, c = (counts[which] for which in VARIANTS)
    print(
        f"   b/a = {b / a:.3f}x (target <= 1.15x); b/c = {b / c:.3f}x (the driver's part); c/a = {c / a:.3f}x "
        f"(the harness's part); a/a0 = {a / a0:.3f}x (the capabilities), b/a0 = {b / a0:.3f}x"
    )


if __name__ == "__main__":
    main()
