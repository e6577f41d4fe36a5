"""What a project's specifications need from the machine, and whether a missing one skips or breaks a scenario.

A scenario that needs something the machine lacks (a browser to render an app in, the official conformance
suite) cannot run. Skipping it is honest on a developer's laptop, but a skip is not a verdict: a CI job that
skipped every app scenario is green about nothing. So a project says what its specifications need:

    [tool.mcpbdd]
    require = ["apps"]        # a missing one breaks the scenario, naming what to install
    optional = ["official"]   # may be skipped even in CI (CI=true), always saying why

and `mcpbdd run --require apps` adds to `require` for one run. Under `CI=true` (set by GitHub Actions,
GitLab CI and most others) every capability is required unless the project lists it as optional. A
skip always says why, in one short reason with its install line (`no Chromium (apt-get install
chromium)`): the run's summary counts the skipped scenarios per reason.
"""

from __future__ import annotations

import os
from collections.abc import Collection, Mapping

from mcpbdd.model.errors import Broken

__all__ = [
    "MACHINE_CAPABILITIES",
    "CapabilityMissing",
    "check_capability_names",
    "in_ci",
    "is_required",
    "skip_reason",
]

MACHINE_CAPABILITIES: dict[str, str] = {
    "apps": "rendering MCP Apps views: Chromium and Playwright for Python",
    "official": "the official conformance suite (@modelcontextprotocol/conformance): npm and Node.js >= 22",
}
"""Every capability a project may require or call optional, and what it stands for."""


class CapabilityMissing(RuntimeError):
    """`capability` is missing on this machine: `reason` says what is missing, `install` how to add it."""

    def __init__(self, capability: str, reason: str, install: str) -> None:
        super().__init__(f"{reason} ({install})")
        self.capability = capability
        self.reason = reason
        self.install = install


def check_capability_names(names: Collection[str]) -> tuple[str, ...]:
    """`names` as given, or a ValueError naming the unknown ones and the known ones."""
    unknown = [name for name in names if name not in MACHINE_CAPABILITIES]
    if unknown:
        known = ", ".join(MACHINE_CAPABILITIES)
        raise ValueError(f"unknown capability {', '.join(map(repr, unknown))}: use one of {known}")
    return tuple(names)


def in_ci(environ: Mapping[str, str] | None = None) -> bool:
    """Whether this run is a CI job: `CI` set (CI services set it to true), as the snapshot steps read it too."""
    value = (os.environ if environ is None else environ).get("CI", "")
    return value.strip().lower() not in ("", "0", "false", "no")


def is_required(
    capability: str, require: Collection[str], optional: Collection[str], environ: Mapping[str, str] | None = None
) -> bool:
    """Whether a missing `capability` breaks the scenario: required by the project, or in CI and not optional."""
    return capability in require or (in_ci(environ) and capability not in optional)


def skip_reason(
    missing: CapabilityMissing,
    require: Collection[str],
    optional: Collection[str],
    environ: Mapping[str, str] | None = None,
) -> str:
    """The reason to skip a scenario for `missing` (`no Chromium (apt-get install chromium)`), or `Broken` when the
    capability is required: the message names what is missing, why it is required and what to install."""
    if not is_required(missing.capability, require, optional, environ):
        return str(missing)
    if missing.capability in require:
        why = f"the project requires {missing.capability!r} ([tool.mcpbdd] require, or mcpbdd run --require)"
    else:
        why = (
            "this is a CI run (CI is set), where a missing capability fails the scenario unless [tool.mcpbdd] "
            f"optional lists {missing.capability!r}"
        )
    raise Broken(f"{missing.reason} on this machine, and {why}: install it: {missing.install}")
