"""Which protocol era a conformance run's server speaks, and which of the official suite's scenarios need 2026-07-28.

The official suite runs its 2026-07-28 scenarios (`caching`, `server-stateless`, ...) against any
server: one that speaks only 2025-11-25 fails them (no caching hints, no `server/discover`; at a URL
"Server not initialized", since they skip the handshake), which says nothing about the rules a
2025-11-25 server must keep. The pack already knows the era: a 2026-07-28-only check
(`Check.modern_only`) run on the 2026-07-28 pass is not applicable, saying `LEGACY_SESSION`, when the
client's auto mode fell back to the 2025-11-25 handshake. So the era is read from the pack's verdicts
(no second probe), and the suite's scenarios that need 2026-07-28 from the suite's own scenario list
(`conformance list --server`, a spec version per scenario), not from a table of ours.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping

from mcpbdd.conformance.summary import SKIPPED, Verdict

__all__ = [
    "LEGACY",
    "LEGACY_SESSION",
    "MODERN",
    "NOT_THIS_ERA",
    "modern_only_scenarios",
    "not_applicable_on_legacy",
    "scenario_eras",
    "speaks_only_legacy",
]

MODERN, LEGACY = "2026-07-28", "2025-11-25"
LEGACY_SESSION = f"this session speaks {LEGACY}"
"""How a 2026-07-28-only pack check says it found a 2025-11-25 session (its not-applicable message ends so)."""
NOT_THIS_ERA = f"not applicable: the server speaks only {LEGACY}; this scenario checks the {MODERN} protocol"
"""The reason an official check of a 2026-07-28-only scenario gives on a server that speaks only 2025-11-25."""

_SCENARIO = re.compile(r"^\s*-\s+(?P<name>[\w.-]+)\s+\[(?P<versions>[^\]]*)\]\s*$")


def speaks_only_legacy(verdicts: Iterable[Verdict], modern_only: Iterable[str]) -> bool | None:
    """Whether the server speaks only 2025-11-25, as the pack's 2026-07-28 pass found it; None when it cannot tell.

    Only a check in `modern_only` (the ids of the 2026-07-28-only checks) asks the session its era: on the
    2026-07-28 pass it is not applicable with `LEGACY_SESSION` when the server answered the 2025-11-25
    handshake, and ran (whatever its verdict) when it spoke 2026-07-28. With none of them run (`--only`,
    `--skip`) the era is unknown, and the caller keeps every verdict as it is.
    """
    ids = set(modern_only)
    asked = [v for v in verdicts if v.era == MODERN and v.check in ids]
    if not asked:
        return None
    return all(v.status == SKIPPED and LEGACY_SESSION in v.message for v in asked)


def scenario_eras(listing: str) -> dict[str, frozenset[str]]:
    """The spec versions of each scenario in the suite's `list --server` output (`  - caching [2026-07-28]`)."""
    found: dict[str, frozenset[str]] = {}
    for line in listing.splitlines():
        match = _SCENARIO.match(line)
        if match:
            versions = (v.strip() for v in match["versions"].split(","))
            found[match["name"]] = frozenset(v for v in versions if v)
    return found


def modern_only_scenarios(eras: Mapping[str, frozenset[str]]) -> frozenset[str]:
    """The scenarios the suite lists for 2026-07-28 and no earlier revision (an `extension` is no revision)."""
    return frozenset(name for name, versions in eras.items() if versions == {MODERN})


def not_applicable_on_legacy(
    checks: Iterable[Mapping[str, object]], scenarios: Iterable[str]
) -> list[dict[str, object]]:
    """The suite's checks with those of the 2026-07-28-only `scenarios` not applicable, saying why, whatever they said.

    What the suite said is kept as `suite_status`, for the reader. A check already skipped for a reason of its
    own (over stdio, the bridge's HTTP layer) keeps it: it is not applicable either way, and that reason came first.
    """
    modern = set(scenarios)
    found: list[dict[str, object]] = []
    for check in checks:
        if check.get("scenario") in modern and not (check.get("status") == "SKIPPED" and check.get("reason")):
            check = {**check, "status": "SKIPPED", "reason": NOT_THIS_ERA, "suite_status": check.get("status")}
        found.append(dict(check))
    return found
