"""The entry points of generated calls: plan the inputs, make and judge every call, shrink what failed.

`check_generated_calls` is the Python API (either harness); `check_generated_calls_in_world`
is the synchronous form the step `Then "{tool}" survives {n} generated calls` uses.
"""

from __future__ import annotations

import contextlib
import logging
import time
import zlib
from collections.abc import Iterable, Iterator
from typing import Any, TypedDict, Unpack

from mcpbdd.checks.generated.adversarial import DEEP
from mcpbdd.checks.generated.calls import CallRunner, Snapshot
from mcpbdd.checks.generated.inputs import Generator, plan_inputs
from mcpbdd.checks.generated.limits import CLIENT_ARGUMENT_DEPTH, STDIO_ARGUMENT_DEPTH, TRANSPORT_LIMIT
from mcpbdd.checks.generated.report import FailedCall, GeneratedReport
from mcpbdd.checks.generated.shrinking import shrink
from mcpbdd.checks.generated.verdicts import HANG, LIMIT, Rules, leak_paths
from mcpbdd.checks.output_schema import find_tool
from mcpbdd.harness.base import Harness
from mcpbdd.kit.principals import Principal

__all__ = [
    "MAX_HANGS",
    "GeneratedOptions",
    "check_generated_calls",
    "check_generated_calls_in_world",
    "default_seed",
]

MAX_HANGS = 3
"""After this many hung calls the remaining ones are skipped: each would wait for the whole timeout."""


def default_seed(tool: str) -> int:
    """The stable seed of a tool: the same on every run and machine (CRC-32 of its name)."""
    return zlib.crc32(tool.encode("utf-8"))


async def check_generated_calls(
    harness: Harness,
    tool: str,
    n: int,
    *,
    caller: Principal | None = None,
    **options: Unpack[GeneratedOptions],
) -> GeneratedReport:
    """Call `tool` `n` times with generated and adversarial inputs and judge every answer (see the package doc).

    `caller` makes the calls (None: anonymous). `secrets` must appear in no answer. `seed`
    makes the run reproducible (default: `default_seed(tool)`). `timeout` bounds each call
    (default: the harness's own). `snapshot`, if given, is called (and awaited if it returns
    an awaitable) before and after every call; a rejected call (tool or protocol error) must
    leave it unchanged. `paths` are the server paths that must not leak (default:
    `server_paths(harness)`, plus any path under a common root in an error; given paths
    replace both). `generator` picks the schema generator: hypothesis-jsonschema with a
    fallback (`auto`), only hypothesis-jsonschema, or only mcpbdd's own (`builtin`).
    `depth` is how deep the nested adversarial values go (default `DEEP`, inside every
    transport's limit; a call the transport cannot carry is reported as its limit, not the
    tool's failure). Raises AssertionError if the server offers no such tool; never for a
    verdict (read the report). (The options are one `GeneratedOptions` so that the forms
    that pass them on name them once.)
    """
    seed, depth = options.get("seed"), options.get("depth", DEEP)
    if n < 1:
        raise ValueError(f"the number of generated calls must be at least 1, got {n}")
    started = time.perf_counter()
    chosen_seed = default_seed(tool) if seed is None else seed
    report = GeneratedReport(tool, chosen_seed, planned=n)
    advertised = find_tool(await harness.list_tools(caller), tool)
    schema: Any = advertised.input_schema
    plan, notes = plan_inputs(schema, n, chosen_seed, options.get("generator", "auto"), depth)
    report.notes.extend(notes)
    if any(f"nested {depth} deep" in source for source, _ in plan):
        report.notes.append(
            f"nested values go {depth} levels deep: the SDK carries at most {STDIO_ARGUMENT_DEPTH} levels of "
            f"arguments over stdio and {CLIENT_ARGUMENT_DEPTH} from its client (mcp 2.3.0); deeper is the "
            "transport's limit, not the tool's"
        )
    secrets = tuple(s for s in options.get("secrets", ()) if s)
    rules = Rules(tool, secrets, leak_paths(harness, options.get("paths")))
    runner = CallRunner(harness, caller, tool, options.get("timeout"), options.get("snapshot"), rules)
    with _sdk_log_quiet():
        await _make_calls(runner, plan, report, rules)
        for kind, calls in report.failures.items():
            if kind == HANG:
                report.notes.append("hanging inputs are not shrunk: every try would wait for the whole timeout")
                continue
            report.shrunk[kind] = await shrink(runner, calls[0])
    report.duration = time.perf_counter() - started
    return report


@contextlib.contextmanager
def _sdk_log_quiet() -> Iterator[None]:
    """The SDK logs every crash of an in-process tool with its traceback: hundreds of lines for a dozen crashes.

    The report already shows each distinct failure once, with its smallest input and the answer;
    the log would bury it. Only the SDK's logger (`mcp`), only while the calls run.
    """
    sdk = logging.getLogger("mcp")
    level = sdk.level
    sdk.setLevel(logging.CRITICAL + 1)
    try:
        yield
    finally:
        sdk.setLevel(level)


async def _make_calls(
    runner: CallRunner, plan: list[tuple[str, dict[str, Any]]], report: GeneratedReport, rules: Rules
) -> None:
    """Make and judge every planned call, recording what each came to in `report`."""
    for source, arguments in plan:
        if len(report.failures.get(HANG, ())) >= MAX_HANGS:
            report.notes.append(
                f"stopped after {MAX_HANGS} hung calls: {len(plan) - report.calls} call(s) were not made"
            )
            break
        outcome, found = await runner.attempt(arguments)
        report.calls += 1
        report.sources[source.split(":", 1)[0]] += 1
        limit = found.pop(LIMIT, None)
        if limit is not None:
            report.channels[TRANSPORT_LIMIT] += 1
            report.limits.append((source, limit))
            continue
        report.channels[outcome.channel.value if outcome is not None else "client-refused"] += 1
        answer = rules.redact(outcome.describe() if outcome is not None else runner.last_client_error)
        report.failed_calls += bool(found)
        for kind, detail in found.items():
            report.failures.setdefault(kind, []).append(
                FailedCall(kind, rules.redact(detail), arguments, source, answer)
            )


class GeneratedOptions(TypedDict, total=False):
    """`check_generated_calls`'s keyword options but the caller (their defaults are said there), named once."""

    secrets: Iterable[str]
    seed: int | None
    timeout: float | None
    snapshot: Snapshot | None
    paths: Iterable[str] | None
    generator: Generator
    depth: int


def check_generated_calls_in_world(
    world: Any, tool: str, n: int, **options: Unpack[GeneratedOptions]
) -> GeneratedReport:
    """The synchronous form the step uses: `check_generated_calls` on the scenario's harness, as its caller.

    `world` is a `mcpbdd.scenario.world.World`; `options` are `check_generated_calls`'s, with `secrets`
    by default the configured ones (`secrets` under `[tool.mcpbdd]`, or `-D mcpbdd.secrets=...`).
    The calls are not recorded in the scenario's trace.
    """
    if options.get("secrets") is None:
        options["secrets"] = getattr(world.settings, "secrets", ())
    names = world.tool_names()
    if tool not in names:
        raise AssertionError(f"The server offers no tool {tool!r}; it offers: {', '.join(names) or 'no tools'}")
    coro = check_generated_calls(world.harness, tool, n, caller=world.caller, **options)
    report: GeneratedReport = world.run(coro)
    return report
