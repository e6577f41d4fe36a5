"""Load: many callers of many tenants at once, and what must hold while and after they call.

Who calls (`N callers in each of the tenants ...`: distinct users the server sees, each with its own session
and token), what they do (a profile table or one tool; `{caller}`, `{tenant}` and `{n}` in arguments name the
caller and its call), how much (a bound: `for 5 seconds`, `for 200 calls`, `3 times each`; a load never runs
without one), and what must hold: latency percentiles, throughput, errors by channel, and after the load
each tenant's storage holding only its own callers' writes, each acknowledged write stored once. The load
runs on the scenario's target (in-process, HTTP, stdio), or on Locust's master and workers against an HTTP
target (`When the load runs on Locust with 2 workers for 5 seconds`); `mcpbdd.load` and `mcpbdd.locust.scenario`
do the same from Python.
"""

from __future__ import annotations

import re
from typing import Any

import parse
from behave import given, register_type, then, when

from mcpbdd.steps._world import world
from mcpbdd.steps.arguments import SpecError, cell_value, json_doc_string, location, spec_errors

_BOUND = re.compile(
    r"for (?P<seconds>\d+(?:\.\d+)?) seconds?|for (?P<calls>\d+) calls?|(?P<iterations>\d+) times? each"
)


@parse.with_pattern(r"[A-Za-z]+")
def _http_method(text: str) -> str:
    return text.upper()


_BOUNDS = '"for 5 seconds", "for 200 calls" or "3 times each"'

register_type(
    # Any text, so a bound written another way fails naming the accepted ones instead of being undefined.
    LoadBound=lambda text: text,
    LoadChannel=lambda text: text,
    # The upstream steps register their own method type when imported, after this module: one of ours, alike.
    LoadMethod=_http_method,
)


def _bound(context: Any, text: str) -> Any:
    from mcpbdd.load.profile import LoadBound

    found = _BOUND.fullmatch(text.strip())
    if found is None:
        raise SpecError(f"{location(context)}: a load needs a bound it can reach, written {_BOUNDS}, not {text!r}")
    with spec_errors(context):
        return LoadBound(
            duration_s=float(found["seconds"]) if found["seconds"] else None,
            calls=int(found["calls"]) if found["calls"] else None,
            iterations=int(found["iterations"]) if found["iterations"] else None,
        )


def _run(context: Any, bound_text: str, steps: Any = None) -> None:
    from mcpbdd.load.scenario import load_of

    load = load_of(world(context))
    bound = _bound(context, bound_text)
    with spec_errors(context):
        profile = load.profile(bound, steps)
        run = load.run(profile)
    _attach(run)


def _attach(run: Any) -> None:
    """The run's charts and tables, on the step that ran the load (the Allure report; a no-op without it)."""
    import allure

    from mcpbdd.load import charts
    from mcpbdd.reporting.attachments import attach_text

    result = run.result
    attach_text(charts.percentiles_table(result), "load: latency percentiles")
    attach_text(charts.errors_table(result), "load: calls by channel")
    histogram = charts.latency_histogram(result)
    if histogram is not None:
        allure.attach(histogram, name="load: latency histogram", attachment_type=allure.attachment_type.SVG)
    throughput = charts.throughput_chart(result)
    allure.attach(throughput, name="load: throughput over time", attachment_type=allure.attachment_type.SVG)


def _attach_files(run: Any) -> None:
    """Locust's CSV files (its statistics, failures and history), on the step that ran it."""
    import allure

    for name, path in sorted(run.result.artifacts.items()):
        if path.suffix == ".csv" and path.is_file():
            allure.attach.file(str(path), name=f"locust: {name}", attachment_type=allure.attachment_type.CSV)


@given('{count:d} callers in each of the tenants "{tenants:Names}"')
def callers_in_each_tenant(context: Any, count: int, tenants: list[str]) -> None:
    """Given 3 callers in each of the tenants "acme, globex"  (users acme-caller-1 ... globex-caller-3)"""
    from mcpbdd.load.scenario import load_of

    with spec_errors(context):
        load_of(world(context)).add_callers(count, tenants)


@given('one caller in each of the tenants "{tenants:Names}"')
def one_caller_in_each_tenant(context: Any, tenants: list[str]) -> None:
    """Given one caller in each of the tenants "acme, globex"  (users acme-caller-1, globex-caller-1)"""
    callers_in_each_tenant(context, 1, tenants)


@given("the load profile:")
def the_load_profile(context: Any) -> None:
    """Given the load profile:  (a table tool | arguments | weight; arguments and weight may be left out)"""
    from mcpbdd.load.profile import LoadStep
    from mcpbdd.load.scenario import load_of

    table = getattr(context, "table", None)
    if table is None or "tool" not in [h.strip() for h in table.headings]:
        raise SpecError(f"{location(context)}: the load profile needs a table tool | arguments | weight")
    steps = []
    for row in table.rows:
        cells = {h.strip(): value for h, value in zip(table.headings, row.cells, strict=True)}
        arguments = cell_value(cells.get("arguments", "") or "{}", context, row.line)
        if not isinstance(arguments, dict):
            raise SpecError(f"{context.feature.filename}:{row.line}: the arguments must be a JSON object")
        weight_text = (cells.get("weight", "") or "1").strip()
        if not weight_text.isdigit() or int(weight_text) < 1:
            raise SpecError(f"{context.feature.filename}:{row.line}: the weight must be a whole number of at least 1")
        steps.append(LoadStep(cells["tool"].strip(), arguments, int(weight_text)))
    load_of(world(context)).steps = steps


@given("the callers arrive over {seconds:Amount} seconds")
def callers_arrive_over(context: Any, seconds: str) -> None:
    """Given the callers arrive over 2 seconds  (a ramp-up: the callers start evenly spread over it)"""
    from mcpbdd.load.scenario import load_of

    load_of(world(context)).ramp_up_s = float(seconds)


@when("the callers run the load profile {bound:LoadBound}")
def run_the_profile(context: Any, bound: str) -> None:
    """When the callers run the load profile for 5 seconds  (or: for 200 calls; 3 times each)"""
    _run(context, bound)


@when("the load runs on Locust with {workers:d} workers for {seconds:Amount} seconds")
def run_on_locust(context: Any, workers: int, seconds: str) -> None:
    """When the load runs on Locust with 2 workers for 5 seconds  (against the scenario's HTTP server)

    The profile and callers above, on Locust's master and workers; the Then steps read Locust's statistics.
    """
    from mcpbdd.load.scenario import load_of
    from mcpbdd.locust.runner import LocustSetupError
    from mcpbdd.locust.scenario import run_on_locust as locust_run

    with spec_errors(context):
        try:
            run = locust_run(load_of(world(context)), workers=workers, run_time_s=float(seconds))
        except LocustSetupError as error:
            raise SpecError(f"{location(context)}: the load could not run on Locust: {error}") from None
    _attach(run)
    _attach_files(run)


@when("the callers run the load profile")
def run_the_profile_unbounded(context: Any) -> None:
    """When the callers run the load profile  (broken: a load needs a bound, so it stops by itself)"""
    raise SpecError(f"{location(context)}: a load needs a bound so that it stops by itself: add {_BOUNDS}")


@when('the callers call "{tool:Text}" {bound:LoadBound} with:')
def callers_call_with(context: Any, tool: str, bound: str) -> None:
    """When the callers call "create_note" for 3 seconds with:  (a JSON doc string; {caller}, {tenant}, {n})"""
    from mcpbdd.load.profile import LoadStep

    arguments = json_doc_string(context)
    if not isinstance(arguments, dict):
        raise SpecError(f"{location(context)}: the arguments must be a JSON object")
    _run(context, bound, [LoadStep(tool, arguments)])


@when('the callers call "{tool:Text}" {bound:LoadBound}')
def callers_call(context: Any, tool: str, bound: str) -> None:
    """When the callers call "list_notes" for 200 calls"""
    from mcpbdd.load.profile import LoadStep

    if bound.endswith(" with:"):
        raise SpecError(f"{location(context)}: the arguments go below the step, in a JSON doc string")
    _run(context, bound, [LoadStep(tool)])


@then('the p{percentile:d} latency of "{tool:Text}" under load is under {limit:Amount} ms')
def latency_of_tool(context: Any, percentile: int, tool: str, limit: str) -> None:
    """Then the p95 latency of "create_note" under load is under 200 ms  (p50, p95 or p99)"""
    from mcpbdd.load.scenario import load_of

    with spec_errors(context):
        load_of(world(context)).check_latency(tool, percentile, float(limit))


@then("the p{percentile:d} latency of every tool under load is under {limit:Amount} ms")
def latency_of_every_tool(context: Any, percentile: int, limit: str) -> None:
    """Then the p99 latency of every tool under load is under 500 ms"""
    from mcpbdd.load.scenario import load_of

    with spec_errors(context):
        load_of(world(context)).check_latency(None, percentile, float(limit))


@then("the load made at least {rate:Amount} calls per second")
def throughput_at_least(context: Any, rate: str) -> None:
    """Then the load made at least 50 calls per second"""
    from mcpbdd.load.scenario import load_of

    with spec_errors(context):
        load_of(world(context)).check_throughput(float(rate))


@then("no call under load ended in a {channel:LoadChannel}")
def no_call_ended_in(context: Any, channel: str) -> None:
    """Then no call under load ended in a protocol error  (tool error, protocol error, transport error, timeout)"""
    from mcpbdd.load.scenario import load_of

    with spec_errors(context):
        load_of(world(context)).check_at_most(channel, 0)


@then('at most {percent:Amount}% of the calls under load ended in the tool error "{reason:Text}"')
def at_most_tool_error(context: Any, percent: str, reason: str) -> None:
    """Then at most 5% of the calls under load ended in the tool error "rate_limited"  (and no other tool error)"""
    from mcpbdd.load.scenario import load_of

    with spec_errors(context):
        load_of(world(context)).check_at_most("tool_error", float(percent), reason)


@then("at most {percent:Amount}% of the calls under load ended in a {channel:LoadChannel}")
def at_most_channel(context: Any, percent: str, channel: str) -> None:
    """Then at most 1% of the calls under load ended in a timeout"""
    from mcpbdd.load.scenario import load_of

    with spec_errors(context):
        load_of(world(context)).check_at_most(channel, float(percent))


@then("each tenant's storage holds only what its own callers wrote")
def storage_isolated(context: Any) -> None:
    """Then each tenant's storage holds only what its own callers wrote  (after the load)"""
    from mcpbdd.load.scenario import load_of

    with spec_errors(context):
        load_of(world(context)).check_storage_isolated()


@then('every acknowledged "{tool:Text}" is stored exactly once')
def written_once(context: Any, tool: str) -> None:
    """Then every acknowledged "create_note" is stored exactly once  (its {caller} {n} argument found once)"""
    from mcpbdd.load.scenario import load_of

    with spec_errors(context):
        load_of(world(context)).check_written_once(tool)


@then('the upstream "{base:Text}" received {method:LoadMethod} "{path:Text}" once for each call of "{tool:Text}"')
def upstream_once_per_call(context: Any, base: str, method: str, path: str, tool: str) -> None:
    """Then the upstream "https://docs.example.com" received GET "/d/1" once for each call of "import_note\""""
    from mcpbdd.load.scenario import load_of

    with spec_errors(context):
        load_of(world(context)).check_upstream_per_call(base, method, path, tool)


@then("no caller read another tenant's data under load")
def answers_isolated(context: Any) -> None:
    """Then no caller read another tenant's data under load  (no answer holds another tenant's write)"""
    from mcpbdd.load.scenario import load_of

    with spec_errors(context):
        load_of(world(context)).check_answers_isolated()


__all__: list[str] = []  # steps register themselves with behave on import; nothing here is imported by name
