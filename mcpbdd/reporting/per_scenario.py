"""A behave formatter that writes once per finished scenario: the one place that knows when that is.

behave has no "scenario finished" callback: the next scenario, the end of a feature file
or the close of the run says so. The progress line, the verdict lines and the Cucumber
Messages all write per finished scenario; they subclass `PerScenarioFormatter` and say
what to do with one (`finished`) and, optionally, whether to follow it at all (`follows`).
"""

from __future__ import annotations

from typing import Any

from behave.formatter.base import Formatter

__all__ = ["PerScenarioFormatter"]


class PerScenarioFormatter(Formatter):  # type: ignore[misc]  # behave ships no types: its Formatter is Any
    """Follows one scenario at a time (`current`) and hands it to `finished` once it is over."""

    def __init__(self, stream_opener: Any, config: Any) -> None:
        super().__init__(stream_opener, config)
        self.stream = self.open()
        self.current: Any = None

    def follows(self, scenario: Any) -> bool:
        """Whether to follow `scenario` (called as it starts); note here what its start tells."""
        return True

    def finished(self, scenario: Any) -> None:
        """Write what `scenario`, now over, comes to."""
        raise NotImplementedError

    def _finish_current(self) -> None:
        scenario, self.current = self.current, None
        if scenario is not None:
            self.finished(scenario)

    def scenario(self, scenario: Any) -> None:
        self._finish_current()
        if self.follows(scenario):
            self.current = scenario

    def eof(self) -> None:
        self._finish_current()

    def close(self) -> None:
        self._finish_current()
        super().close()
