"""Servers in other processes kept for a whole feature (`reuse_server = "feature"`), owned by the feature's task.

Apart from the World (`mcpbdd.scenario.world`), which takes one when the feature shares its servers.
"""

from __future__ import annotations

from typing import Any

from mcpbdd.harness.base import Harness
from mcpbdd.harness.handover import remove_doubles_file, temporary_doubles_file
from mcpbdd.scenario.runtime import ScenarioOwner
from mcpbdd.storage.doubles_file import DoublesFile

__all__ = ["SharedServers"]


class SharedServers:
    """Servers in other processes kept for a whole feature (`reuse_server = "feature"`), owned by one task.

    Start-up dominates some suites (a Python server takes ~1 s to start). With reuse, the first
    scenario of a feature starts the server and the rest of the feature talks to the same process
    and session; isolating their state is then the server's business (its own tools, or the
    storage adapter), not mcpbdd's. The feature's owner task stops them when the feature ends.
    """

    def __init__(self, owner: ScenarioOwner) -> None:
        self.owner = owner
        self.harnesses: dict[tuple[Any, ...], Harness] = {}
        self._doubles_file: DoublesFile | None = None

    def doubles_file(self) -> DoublesFile:
        """The doubles file the feature's server processes were (or will be) started with."""
        if self._doubles_file is None:
            self._doubles_file = temporary_doubles_file()
        return self._doubles_file

    def close(self) -> list[BaseException]:
        self.harnesses.clear()
        errors = self.owner.close()
        if self._doubles_file is not None:
            remove_doubles_file(self._doubles_file)
            self._doubles_file = None
        return errors
