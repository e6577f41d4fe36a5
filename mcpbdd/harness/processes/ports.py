"""Loopback ports for the servers mcpbdd starts, claimed so that no two of its pickers get the same one.

The OS picks a free port (a bind to port 0) but does not keep it for us: the server binds it a moment
later, and in between another picker may be given the same port, say a second `--jobs` worker or test
worker starting a server of its own. One server then loses the port. At best it ends saying its address
is in use and `HttpProcess` starts it again. At worst the other server already listens when the first
one's harness looks: the harness finds a listener, takes it for its own server, and the scenario talks to
a server that is not the one under test.

A claim is a Unix socket bound in Linux's abstract namespace under the port's name. It is held by the
process that picked the port, released when closed or when that process ends, and leaves no file behind.
Every mcpbdd process on the machine (in the same network namespace, where the loopback is the same) sees
it, and a picker given a claimed port picks again. Where there is no abstract namespace (not Linux)
nothing is claimed, and the pick is the OS's alone.
"""

from __future__ import annotations

import collections
import socket
import sys
from dataclasses import dataclass, field

__all__ = ["CLAIM_PREFIX", "PICK_ATTEMPTS", "RECENT_CLAIMS", "PortClaim", "claim_port", "free_port", "try_claim"]

CLAIM_PREFIX = "mcpbdd-port"
"""The abstract socket names claims are bound under: `\\0mcpbdd-port/HOST/PORT`."""

PICK_ATTEMPTS = 64
"""Ports the OS is asked for before one that nobody claims is given up on (the last pick is then returned
unclaimed: it is still free, only not reserved)."""

RECENT_CLAIMS = 64
"""How many ports `free_port()` keeps claimed in this process, the oldest released first: long enough for
the server each was picked for to bind it."""

_ABSTRACT = sys.platform.startswith("linux")


@dataclass
class PortClaim:
    """A port picked for a server, and this process's claim on it (None where claims do not exist)."""

    port: int
    held: socket.socket | None = field(default=None, repr=False)

    def close(self) -> None:
        """Let another picker have the port (once the server listens, the OS gives it to nobody else anyway)."""
        if self.held is not None:
            self.held.close()
            self.held = None

    def __enter__(self) -> PortClaim:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()


def try_claim(port: int, host: str = "127.0.0.1") -> socket.socket | None:
    """This process's claim on `port`, or None when another holder has it (or claims do not exist here)."""
    if not _ABSTRACT:
        return None
    holder = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        holder.bind(f"\0{CLAIM_PREFIX}/{host}/{port}")
    except OSError:
        holder.close()
        return None
    return holder


def _os_pick(host: str) -> int:
    """A port on `host` nobody has bound right now, chosen by the OS."""
    with socket.socket() as probe:
        probe.bind((host, 0))
        return int(probe.getsockname()[1])


def claim_port(host: str = "127.0.0.1") -> PortClaim:
    """A free port on `host` that no other mcpbdd picker holds, claimed until `close()` (or this process ends)."""
    port = _os_pick(host)
    if not _ABSTRACT:
        return PortClaim(port)
    for _ in range(PICK_ATTEMPTS):
        held = try_claim(port, host)
        if held is not None:
            return PortClaim(port, held)
        port = _os_pick(host)
    return PortClaim(port)


_recent: collections.deque[PortClaim] = collections.deque()


def free_port(host: str = "127.0.0.1") -> int:
    """A free port on `host`, claimed for the next `RECENT_CLAIMS` picks of this process (for a caller that
    needs only the number: a server it starts itself binds the port well before the claim is let go)."""
    claim = claim_port(host)
    _recent.append(claim)
    while len(_recent) > RECENT_CLAIMS:
        _recent.popleft().close()
    return claim.port
