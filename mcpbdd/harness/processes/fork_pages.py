"""Pages a fork will write, copied before its request comes: the fork server's standbys pre-fault them.

A fork shares the fork server's memory until it writes to it; each page it writes is first copied (a
page fault). A server's run writes much the same few thousand pages every time (reference counts,
allocator state), and copying them costs it about as much as the rest of its start-up
(`bench/bench_fork_floor.py`). So the first forks record which of the pages they inherited they wrote
(`written`, at their exit: the pages they hold alone, `/proc/self/pagemap` bit 56), and every standby
(a fork waiting for its request anyway) makes those pages its own while it waits (`prefault`).

Loaded by the fork server from its file (`forkserver.py` runs as a script and adds nothing to
`sys.path`), so it imports only the standard library, like the fork server.
"""

from __future__ import annotations

import contextlib
import ctypes
import errno
import os
import select
import socket
import sys
from pathlib import Path

__all__ = ["LEARNERS", "load", "prefault", "save", "writable_regions", "written"]

LEARNERS = 2
"""How many forks, the first ones, record which of the inherited pages they wrote."""
_MADV_POPULATE_WRITE = 23  # Linux 5.14+: fault pages in writable (copy-on-write broken), contents unchanged
_PAGEMAP_EXCLUSIVE = 1 << 56
_PAGEMAP_PRESENT = 1 << 63


def writable_regions() -> list[tuple[int, int]]:
    """The writable anonymous memory of this process (heap and mappings), as (start, end) addresses."""
    regions = []
    with contextlib.suppress(OSError):
        for line in Path("/proc/self/maps").read_text().splitlines():
            fields = line.split()
            if fields[1].startswith("rw") and (len(fields) < 6 or fields[5] == "[heap]"):
                start, end = (int(bound, 16) for bound in fields[0].split("-"))
                regions.append((start, end))
    return regions


def written(regions: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """The pages of `regions` this process holds alone now, as (start, length) runs: what it wrote since the fork
    (a page still shared with the fork server is not exclusively mapped; `/proc/self/pagemap`, bit 56)."""
    page = os.sysconf("SC_PAGE_SIZE")
    runs: list[tuple[int, int]] = []
    try:
        pagemap = os.open("/proc/self/pagemap", os.O_RDONLY)
    except OSError:
        return runs
    try:
        for start, end in regions:
            entries = memoryview(os.pread(pagemap, (end - start) // page * 8, start // page * 8)).cast("Q")
            first = None
            for index, entry in enumerate([*entries, 0]):
                mine = entry & _PAGEMAP_PRESENT and entry & _PAGEMAP_EXCLUSIVE
                if mine and first is None:
                    first = index
                elif not mine and first is not None:
                    runs.append((start + first * page, (index - first) * page))
                    first = None
    except OSError:
        return []
    finally:
        os.close(pagemap)
    return runs


def save(path: str, runs: list[tuple[int, int]]) -> None:
    """Keep what a learner wrote for the standbys forked after it (replacing, atomically, any earlier list)."""
    if not runs:
        return
    with contextlib.suppress(OSError):
        partial = f"{path}.{os.getpid()}"
        Path(partial).write_text("".join(f"{start} {length}\n" for start, length in runs))
        os.replace(partial, path)


def load(path: str) -> list[tuple[int, int]]:
    try:
        lines = Path(path).read_text().splitlines()
    except OSError:
        return []
    runs = []
    for line in lines:
        start, _, length = line.partition(" ")
        with contextlib.suppress(ValueError):
            runs.append((int(start), int(length)))
    return runs


def prefault(runs: list[tuple[int, int]], *, until_readable: socket.socket) -> None:
    """In a standby: make `runs` its own now (`MADV_POPULATE_WRITE`: contents unchanged, an address no longer
    mapped is an error, not a crash), stopping as soon as its request arrives. On a kernel without it
    (before Linux 5.14) nothing happens."""
    if not runs or not sys.platform.startswith("linux"):
        return
    madvise = ctypes.CDLL(None, use_errno=True).madvise
    madvise.argtypes = (ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int)
    for number, (start, length) in enumerate(runs):
        if number % 16 == 0 and select.select([until_readable], [], [], 0)[0]:
            return
        if madvise(start, length, _MADV_POPULATE_WRITE) != 0 and ctypes.get_errno() == errno.EINVAL:
            return  # the kernel does not know it
