"""Seeded storage and the clock: what the server holds before, and what it must hold after.

"Unchanged" compares with a snapshot taken just before the scenario's first When step,
so a Given may seed freely and a Then proves that a failed call wrote nothing. A failing
storage assertion shows the diff (added, removed, changed keys) and attaches it to the
report.

A storage check that could not fail fails instead: a tenant the scenario never named and
whose storage holds nothing, "unchanged" before any When step, "every other tenant" when
there is no other tenant, a seed table with no rows.
Every step here works on the scenario's doubles, so it needs a server that took them
(`scenario_doubles()` in its lifespan, in-process or in a process mcpbdd started) or a
configured `storage_adapter`; against any other server it fails instead of checking
nothing (see `mcpbdd.harness.handover` for when that is decided).
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from behave import given, then, when

from mcpbdd.kit.clock import parse_duration, parse_instant
from mcpbdd.steps._world import world
from mcpbdd.steps.arguments import SpecError, cell_value, json_doc_string, location, spec_errors


def _seed_rows(context: Any) -> dict[float | None, dict[str, Any]]:
    """The `key | value [| ttl]` table, grouped by TTL (seconds; a duration like `15 minutes` is fine too)."""
    table = getattr(context, "table", None)
    headings = [h.strip() for h in table.headings] if table is not None else []
    if table is None or headings not in (["key", "value"], ["key", "value", "ttl"]):
        raise SpecError(
            f"{location(context)}: the storage table needs the columns key | value (and optionally | ttl), "
            f"got {' | '.join(headings) or 'no table'}"
        )
    if not table.rows:
        raise SpecError(
            f"{location(context)}: the storage table has a heading and no rows, so it seeds nothing: "
            "add a row per key, or remove the step"
        )
    groups: dict[float | None, dict[str, Any]] = defaultdict(dict)
    for row in table.rows:
        ttl_text = row["ttl"].strip() if "ttl" in headings else ""
        ttl: float | None = None
        if ttl_text:
            with spec_errors(context):
                ttl = _seconds(ttl_text)
        groups[ttl][row["key"].strip()] = cell_value(row["value"], context, row.line)
    return groups


def _filled(context: Any, value: Any) -> Any:
    """`value` (a key, a prefix, a seeded or expected JSON value) with every remembered `${name}` put in.

    A key the server built from a result (`notes/${note}`) is written the way an argument is; an
    unknown name is a broken step naming what is remembered.
    """
    with spec_errors(context):
        return world(context).remembered.fill(value)


def _seconds(text: str) -> float:
    """A ttl cell: plain seconds (`900`) or a duration (`15 minutes`, `2h`)."""
    try:
        return float(text)
    except ValueError:
        return parse_duration(text).total_seconds()


def _attach_diff(error: AssertionError) -> None:
    """The failing diff, on the step that asserted it (redacted like every attachment)."""
    from mcpbdd.reporting import attachments as report

    report.attach_text(str(error), "storage changes")


@given('the storage of tenant "{tenant:Text}" holds:')
def storage_holds_table(context: Any, tenant: str) -> None:
    """Given the storage of tenant "acme" holds: (a table key | value [| ttl]; values are JSON)"""
    groups = {ttl: _filled(context, mapping) for ttl, mapping in _seed_rows(context).items()}
    with spec_errors(context):
        world(context).seed_storage(tenant, groups)


@given('the storage of tenant "{tenant:Text}" holds "{key:Text}" equal to:')
def storage_seeded_with_key(context: Any, tenant: str, key: str) -> None:
    """Given the storage of tenant "acme" holds "notes/n-1" equal to: (a JSON doc string: one key, its value)"""
    key, value = _filled(context, key), _filled(context, json_doc_string(context))
    with spec_errors(context):
        world(context).seed_storage(tenant, {None: {key: value}})


@then('the storage of tenant "{tenant:Text}" holds "{key:Text}" equal to:')
def storage_holds_key(context: Any, tenant: str, key: str) -> None:
    """Then the storage of tenant "acme" holds "notes/n-1" equal to: (JSON; markers like #iso-datetime allowed)"""
    from mcpbdd.checks import storage as check
    from mcpbdd.storage import MISSING

    key, expected = _filled(context, key), _filled(context, json_doc_string(context))
    w = world(context)
    with spec_errors(context):
        value = w.read_storage(tenant, key)
    check.storage_holds(value, expected, tenant, key, held=w.storage_keys(tenant) if value is MISSING else ())


@then('the storage of tenant "{tenant:Text}" holds "{key:Text}" containing:')
def storage_holds_key_containing(context: Any, tenant: str, key: str) -> None:
    """Then the storage of tenant "acme" holds "notes/n-1" containing: (JSON; only the keys given, markers allowed)"""
    from mcpbdd.checks import storage as check
    from mcpbdd.storage import MISSING

    key, expected = _filled(context, key), _filled(context, json_doc_string(context))
    w = world(context)
    with spec_errors(context):
        value = w.read_storage(tenant, key)
    check.storage_contains(value, expected, tenant, key, held=w.storage_keys(tenant) if value is MISSING else ())


@then('the storage of tenant "{tenant:Text}" is empty')
def storage_is_empty(context: Any, tenant: str) -> None:
    """Then the storage of tenant "globex" is empty  (no key at all; a tenant the scenario knows)"""
    from mcpbdd.checks import storage as check

    w = world(context)
    w.relies_on_doubles(f'reading the storage of tenant "{tenant}"')
    check.storage_known(tenant, w.tenants_in_play(), "it is empty")
    with spec_errors(context):
        held = w.storage_keys(tenant)
    check.storage_empty(held, tenant)


@then('the storage of tenant "{tenant:Text}" has no key "{key:Text}"')
def storage_has_no_key(context: Any, tenant: str, key: str) -> None:
    """Then the storage of tenant "acme" has no key "notes/n-1"  (a tenant the scenario knows)"""
    from mcpbdd.checks import storage as check

    w = world(context)
    w.relies_on_doubles(f'reading the storage of tenant "{tenant}"')
    key = _filled(context, key)
    check.storage_known(tenant, w.tenants_in_play(), f"it has no key {key!r}")
    with spec_errors(context):
        value = w.read_storage(tenant, key)
    check.storage_lacks(value, tenant, key)


@then('the storage of tenant "{tenant:Text}" is unchanged')
def storage_unchanged(context: Any, tenant: str) -> None:
    """Then the storage of tenant "acme" is unchanged  (compared with just before the first When)"""
    from mcpbdd.checks import storage as check

    w = world(context)
    w.relies_on_doubles(f'comparing the storage of tenant "{tenant}" with before')
    check.storage_baseline_taken(w.baseline)
    check.storage_known(tenant, w.tenants_in_play(), "it is unchanged")
    with spec_errors(context):
        changes = {tenant: w.storage_changes(tenant)}
    try:
        check.storage_unchanged(changes)
    except AssertionError as error:
        _attach_diff(error)
        raise


@then('the storage of tenant "{tenant:Text}" is unchanged except under "{prefix:Text}"')
def storage_unchanged_except_under(context: Any, tenant: str, prefix: str) -> None:
    """Then the storage of tenant "acme" is unchanged except under "consent/"  (keys under the prefix may change)"""
    from mcpbdd.checks import storage as check

    w = world(context)
    w.relies_on_doubles(f'comparing the storage of tenant "{tenant}" with before')
    check.storage_baseline_taken(w.baseline)
    check.storage_known(tenant, w.tenants_in_play(), "it is unchanged")
    prefix = _filled(context, prefix)
    with spec_errors(context):
        changes = {tenant: w.storage_changes(tenant, except_under=prefix)}
    try:
        check.storage_unchanged(changes, except_under=prefix)
    except AssertionError as error:
        _attach_diff(error)
        raise


@then("the storage of every other tenant is unchanged")
def every_other_tenant_unchanged(context: Any) -> None:
    """Then the storage of every other tenant is unchanged  (every tenant but the last call's caller's; one at least)"""
    from mcpbdd.checks import storage as check

    w = world(context)
    w.relies_on_doubles("comparing the storage of every other tenant with before")
    check.storage_baseline_taken(w.baseline)
    others = w.other_tenants()
    check.other_tenants_exist(others, w.tenants_in_play())
    changes = {tenant: w.storage_changes(tenant) for tenant in others}
    try:
        check.storage_unchanged(changes)
    except AssertionError as error:
        _attach_diff(error)
        raise


@given('the clock reads "{instant:Text}"')
def clock_reads(context: Any, instant: str) -> None:
    """Given the clock reads "2026-03-01T09:00:00Z\""""
    with spec_errors(context):
        world(context).set_clock(parse_instant(instant))


@when("{amount:Amount} {unit:Unit} pass")
@when("{amount:Amount} {unit:Unit} passes")
def time_passes(context: Any, amount: str, unit: str) -> None:
    """When 2 hours pass  (or: When 1 day passes; seconds, minutes, hours, days)"""
    with spec_errors(context):
        world(context).advance_clock(f"{amount} {unit}")


@given("{amount:Amount} {unit:Unit} have passed")
@given("{amount:Amount} {unit:Unit} has passed")
def time_has_passed(context: Any, amount: str, unit: str) -> None:
    """Given 30 minutes have passed  (the clock moves forward before the first When: nothing is compared yet)"""
    with spec_errors(context):
        world(context).advance_clock(f"{amount} {unit}")


__all__: list[str] = []  # steps register themselves with behave on import; nothing here is imported by name
