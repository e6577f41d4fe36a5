"""JUnit properties per test case: the harness, the protocol era, the tools called and the tenants involved.

behave's JUnit reporter writes one `<testcase>` per scenario and no properties. CI tools that
read JUnit (GitLab, Jenkins, test-management imports) show a test case's `<properties>`, so
`mcpbdd run` adds them once its behave processes have ended, from the verdicts they recorded
(`mcpbdd.reporting.verdicts`):

    <testcase classname="features.notes.Notes" name="A note is created [client harness, legacy]" ...>
      <properties>
        <property name="harness" value="client, legacy"/>
        <property name="era" value="2025-11-25"/>
        <property name="tools" value="create_note,get_note"/>
        <property name="tenants" value="acme"/>
      </properties>
      ...

A test case is found by its feature file (behave's class name starts with the file's dotted
path, relative to behave's base folder) and its full scenario name; names repeated in one file
are matched in order.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from xml.etree import ElementTree

from mcpbdd.reporting.verdicts import Verdict

__all__ = ["add_junit_properties", "properties_of"]


def properties_of(verdict: Verdict) -> list[tuple[str, str]]:
    """The properties a scenario's test case carries (empty values included: "no tool called" is information)."""
    return [
        ("harness", verdict.harness),
        ("era", verdict.era),
        ("tools", ",".join(verdict.tools)),
        ("tenants", ",".join(verdict.tenants)),
        ("feature_file", f"{verdict.feature}:{verdict.line}"),
    ]


def _prefixes(feature: str) -> tuple[str, ...]:
    """behave's possible JUnit class name prefixes for a feature file: its dotted path, relative to behave's base
    folder (the one holding `steps/`), which may be any tail of the path: `a/features/x.feature` -> `a.features.x.`,
    `features.x.`, `x.`."""
    parts = feature.removesuffix(".feature").replace("\\", "/").strip("/").split("/")
    return tuple(".".join(parts[i:]) + "." for i in range(len(parts)))


def add_junit_properties(folder: Path, verdicts: Iterable[Verdict]) -> int:
    """Add properties to every test case of the `TESTS-*.xml` files under `folder`; returns how many got them."""
    pending: dict[str, list[Verdict]] = {}
    for verdict in verdicts:
        if verdict.harness or verdict.era:
            pending.setdefault(verdict.title, []).append(verdict)
    if not pending:
        return 0
    added = 0
    for path in sorted(folder.rglob("TESTS-*.xml")):
        try:
            tree = ElementTree.parse(path)
        except (ElementTree.ParseError, OSError):
            continue
        changed = False
        for case in tree.getroot().iter("testcase"):
            candidates = pending.get(case.get("name", ""), [])
            classname = case.get("classname", "")
            match = next((v for v in candidates if classname.startswith(_prefixes(v.feature))), None)
            if match is None:
                continue
            candidates.remove(match)
            for old in case.findall("properties"):
                case.remove(old)
            properties = ElementTree.Element("properties")
            for name, value in properties_of(match):
                ElementTree.SubElement(properties, "property", name=name, value=value)
            case.insert(0, properties)
            changed = True
            added += 1
        if changed:
            tree.write(path, encoding="utf-8", xml_declaration=True)
    return added
