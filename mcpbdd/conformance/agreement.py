"""Which check of the official suite checks the same rule as a check of the pack, and whether their verdicts agree.

`mcpbdd conformance --official` runs both: the pack (a verdict per check and era) and the generic
scenarios of `@modelcontextprotocol/conformance` (a status per check of its `checks.json`). Where
they check one rule they must agree, or one of them is wrong; `COUNTERPARTS` is the one place that
says which checks those are (docs/reference/conformance.md shows it as a table), and
`disagreements` compares a run's verdicts.

Agreement is judged per pack check: the pack passed (on every era it applied to) exactly when each
of its counterparts the suite reported is `SUCCESS`; a `FAILURE` or a `WARNING` (the suite's word
for a broken SHOULD, which the pack fails) is a failure. A pack check that applied to no era
checked nothing and is not compared, nor is a counterpart the suite skipped (`SKIPPED`, `INFO`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from mcpbdd.conformance.summary import Verdict

__all__ = ["COUNTERPARTS", "Counterpart", "disagreements", "pack_verdicts"]


@dataclass(frozen=True)
class Counterpart:
    """The official suite's checks (in one scenario of its) that check a pack check's rule."""

    scenario: str
    checks: tuple[str, ...]
    note: str
    """Where the two differ in reach (what one looks at that the other does not)."""


COUNTERPARTS: dict[str, Counterpart] = {
    "tool-names": Counterpart(
        "tools-list",
        ("tools-name-format",),
        "the same SEP-986 pattern; the pack also fails a name offered twice",
    ),
    "unknown-resource": Counterpart(
        "sep-2164-resource-not-found",
        ("sep-2164-no-empty-contents", "sep-2164-error-code", "sep-2164-data-uri"),
        "-32602 and data.uri are a SHOULD: a WARNING in the suite, a failure in the pack",
    ),
    "caching-hints": Counterpart(
        "caching",
        (
            "sep-2549-tools-list-caching-hints",
            "sep-2549-prompts-list-caching-hints",
            "sep-2549-resources-list-caching-hints",
            "sep-2549-resources-templates-list-caching-hints",
        ),
        "both are 2026-07-28 rules, not applicable to a 2025-11-25 server; the suite also lists prompts and "
        "resources a server did not declare",
    ),
    "sep-2575-server-identifies-in-result-meta": Counterpart(
        "server-stateless",
        ("sep-2575-server-identifies-in-result-meta",),
        "a SHOULD in both (a warning, a failure under --strict in the pack); the suite reads server/discover, the "
        "pack the list results",
    ),
}
"""Pack check -> the official suite's checks of the same rule. The suite's other generic checks (HTTP headers,
DNS rebinding, statelessness) look at the HTTP transport, which the pack does not check; its `tools-list` check
asks every tool for a description, which the spec leaves optional (so it is no counterpart of `tool-schemas`)."""

_FAILED = {"FAILURE", "WARNING"}
_SKIPPED = {"SKIPPED", "INFO"}


def disagreements(
    pack: Mapping[str, Iterable[str]], official: Iterable[Mapping[str, object]], *, passed: str = "passed"
) -> list[str]:
    """Where the pack and the suite disagree: a sentence per pack check, or [] when they agree.

    `pack` maps a check id to its verdicts on the eras it ran (`passed`, `failed`, `expected failure`, `not
    applicable`); `official` is the suite's checks (`scenario`, `id`, `status`), as `checks.json` has them.
    """
    statuses: dict[tuple[str, str], list[str]] = {}
    for check in official:
        statuses.setdefault((str(check.get("scenario")), str(check.get("id"))), []).append(str(check.get("status")))
    found: list[str] = []
    for name, counterpart in COUNTERPARTS.items():
        verdicts = [v for v in pack.get(name, ()) if v != "not applicable"]
        theirs = [
            (check, status)
            for check in counterpart.checks
            for status in statuses.get((counterpart.scenario, check), [])
            if status not in _SKIPPED
        ]
        if not verdicts or not theirs:
            continue
        pack_passed = all(v == passed for v in verdicts)
        suite_passed = not any(status in _FAILED for _, status in theirs)
        if pack_passed != suite_passed:
            said = ", ".join(f"{check} {status}" for check, status in theirs)
            found.append(f"{name} {'passed' if pack_passed else 'failed'} in the pack, the suite said: {said}")
    return found


def pack_verdicts(verdicts: Iterable[Verdict]) -> dict[str, list[str]]:
    """The pack's verdicts as `disagreements` takes them: check id -> its status on each era it ran."""
    found: dict[str, list[str]] = {}
    for verdict in verdicts:
        found.setdefault(verdict.check, []).append(verdict.status)
    return found
