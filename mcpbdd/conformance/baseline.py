"""The expected-failures file: known failures turned into expected ones, and entries that now pass.

YAML, like the official conformance suite's baseline: a list of check ids, or a mapping whose
`server` key holds that list. An entry is a check id of the pack (expected to fail on both eras),
`id@era` (`unknown-resource@2025-11-25`: on that era only), or `official:id`, a check of the official
suite's (`--official`) by the id its `checks.json` and the summary give it. The pack's ids are
checked when the file is read; the suite's are known only once it ran, so an `official:` entry is
taken as written, and one whose check ran and passed is reported like any entry that now passes.

    server:
      - unknown-resource            # refused with -32002 until the SDK upgrade
      - caching-hints@2026-07-28
      - official:localhost-host-rebinding-rejected
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from mcpbdd._listed import read_listed
from mcpbdd.conformance.registry import check_named

__all__ = ["EXPECTED_FAILURE", "OFFICIAL", "Baseline", "expect_official", "load_baseline"]

OFFICIAL = "official:"
"""The prefix of an entry naming one of the official suite's checks."""


@dataclass(frozen=True)
class Baseline:
    """The entries of an expected-failures file, as (check id, era or None for both)."""

    entries: tuple[tuple[str, str | None], ...] = ()
    official: frozenset[str] = frozenset()
    """The official suite's check ids known to fail (`official:id` entries)."""

    def expects(self, check: str, era: str) -> bool:
        return any(name == check and where in (None, era) for name, where in self.entries)

    def entry(self, check: str, era: str) -> str | None:
        """The entry's text as written (`id` or `id@era`) that expects this failure, or None."""
        for name, where in self.entries:
            if name == check and where in (None, era):
                return name if where is None else f"{name}@{where}"
        return None


def load_baseline(path: Path | None) -> Baseline:
    """Read the expected-failures file (ValueError naming what is wrong with it; none given: an empty baseline)."""
    if path is None:
        return Baseline()
    listed = read_listed(
        path, key="server", what="the expected-failures file", shape="check ids (under `server:`, or at the top)"
    )
    entries: list[tuple[str, str | None]] = []
    official: set[str] = set()
    for entry in listed:
        if entry.startswith(OFFICIAL):
            check = entry.removeprefix(OFFICIAL).strip()
            if not check:
                raise ValueError(f"the expected-failures file {path} has an empty {OFFICIAL} entry: name the check")
            official.add(check)
            continue
        name, _, era = entry.partition("@")
        check_named(name)  # a ValueError naming the known checks
        entries.append((name, era or None))
    return Baseline(tuple(entries), frozenset(official))


EXPECTED_FAILURE = "EXPECTED FAILURE"
"""The status an official check the expected-failures file lists gets when it failed: reported, not failing the run."""


def expect_official(
    checks: list[dict[str, object]], expected: frozenset[str]
) -> tuple[list[dict[str, object]], list[str]]:
    """The suite's checks with each failure the file expects marked so (its message kept), and the entries that now
    pass (`official:id` whose check ran and succeeded: to be removed from the file, like any stale entry).

    An entry whose check did not run (the suite skipped, a scenario not applicable) is neither: nothing was learnt.
    """
    marked: list[dict[str, object]] = []
    for check in checks:
        if check.get("status") == "FAILURE" and check.get("id") in expected:
            check = {**check, "status": EXPECTED_FAILURE, "reason": f"expected: the file lists {OFFICIAL}{check['id']}"}
        marked.append(check)
    passing = {str(check.get("id")) for check in checks if check.get("status") == "SUCCESS"}
    failing = {str(check.get("id")) for check in checks if check.get("status") == "FAILURE"}
    stale = [f"{OFFICIAL}{check}" for check in sorted(expected) if check in passing and check not in failing]
    return marked, stale
