"""Generated calls: does a tool survive inputs nobody wrote a scenario for?

`check_generated_calls(harness, tool, n)` makes `n` calls of `tool` with inputs generated
from the input schema the server advertises, plus adversarial values, and judges every
answer. The step `Then "{tool}" survives {n} generated calls` is its synchronous World
wrapper, `check_generated_calls_in_world(world, tool, n)`.

Inputs
  * From the schema: hypothesis with hypothesis-jsonschema, seeded, so a run is reproducible
    (the seed is printed; by default it is derived from the tool's name). If
    hypothesis-jsonschema cannot handle a schema (or does not work with the installed
    hypothesis), mcpbdd's own hypothesis strategy for the usual keywords (types,
    properties, required, items, enum, const, anyOf/oneOf/allOf, $ref, bounds, pattern)
    takes over and the report says so. Keys the schema does not name are left to the
    adversarial inputs rather than generated (see `generate_inputs`).
  * Adversarial values, mutating one top-level argument of a valid input at a time: very
    long strings, control characters, unicode edge cases (direction overrides, combining
    marks, zero-width and non-characters, emoji sequences, case-mapping surprises), format
    strings, wrong types, huge numbers, deep nesting, extra keys (`__class__`, `__proto__`,
    `constructor`, ...), missing required keys. Lone surrogates are left out on purpose: the
    SDK itself fails to serialise any result that echoes one (an SDK matter, not the
    server's), so every `MCPServer` tool that echoes its input would "crash" on them.

Verdicts (every call)
  * no crash: no internal error (-32603), no "Error executing tool NAME" result in exactly
    the form the SDK gives an unexpected exception (a deliberate `ToolError` reads "Error
    executing tool NAME: <message>" and is a legitimate answer), no transport failure;
  * no leak, after removing echoes of the input itself: no traceback header or stack frame
    (`File "...", line N`), no absolute path of the server's code or of the Python
    installation, no configured secret;
  * no hang: every call has a timeout (the harness's, or `timeout=`); after MAX_HANGS hung
    calls the rest are skipped, since each would wait for the whole timeout;
  * the client accepts the answer (the client harness's SDK client refuses, for instance,
    a result that breaks the advertised output schema);
  * optionally no mutation: with `snapshot=`, a call the server rejected must leave the
    snapshot unchanged (the hook the storage steps plug into).

The first failing input of each kind is shrunk (same verdict, fewer and shorter values:
keys and items dropped, strings bisected, numbers moved towards zero) and printed with the
seed that reproduces the run. Generated calls go straight to the harness, not through the
World, so they do not flood the scenario's trace; the failing ones are in the report.
"""

from __future__ import annotations

import asyncio
import contextlib
import copy
import importlib.metadata
import inspect
import json
import logging
import math
import re
import sys
import sysconfig
import time
import zlib
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from jsonschema.exceptions import SchemaError

from mcpbdd.checks import output_schema as contract
from mcpbdd.harness.base import CLIENT_REFUSED, Harness
from mcpbdd.outcome import Call, Channel, Outcome
from mcpbdd.principals import Principal

__all__ = [
    "CRASH",
    "HANG",
    "KINDS",
    "LEAK",
    "MAX_HANGS",
    "MUTATION",
    "REFUSED",
    "FailedCall",
    "GeneratedReport",
    "Generator",
    "Rules",
    "Shrunk",
    "adversarial_inputs",
    "check_generated_calls",
    "check_generated_calls_in_world",
    "default_seed",
    "generate_inputs",
    "judge",
    "plan_inputs",
    "render_input",
    "schema_strategy",
    "server_paths",
]

Generator = Literal["auto", "hypothesis-jsonschema", "builtin"]
Snapshot = Callable[[], Any]

CRASH = "crash"
LEAK = "leak"
HANG = "hang"
REFUSED = "refused"
MUTATION = "mutation"
KINDS = (CRASH, LEAK, HANG, REFUSED, MUTATION)
"""Verdict kinds, in the order a report lists them."""

_KIND_TITLES = {
    CRASH: "crashed",
    LEAK: "leaked",
    HANG: "hung",
    REFUSED: "got an answer the client refused",
    MUTATION: "changed state although rejected",
}

LONG = 10_000
DEEP = 200
"""Nesting depth of the deep adversarial values: below the ~250 levels the SDK client can serialise."""

SHRINK_BUDGET = 200
"""At most this many extra calls to shrink one failing input."""

MAX_HANGS = 3
"""After this many hung calls the remaining ones are skipped: each would wait for the whole timeout."""

_TIMEOUT_PREFIX = "no answer within"
_TRACEBACK = re.compile(r"Traceback \(most recent call last\)")
_FRAME = re.compile(r'File "[^"\n]+", line \d+')


# --------------------------------------------------------------------------- results


@dataclass(frozen=True)
class FailedCall:
    """One call that broke a verdict: what was sent (and why), what came back, and what is wrong with it."""

    kind: str
    detail: str
    arguments: dict[str, Any]
    source: str
    answer: str


@dataclass(frozen=True)
class Shrunk:
    """The smallest input found that still fails the same way, and how many calls shrinking took."""

    kind: str
    arguments: dict[str, Any]
    detail: str
    answer: str
    calls: int


@dataclass
class GeneratedReport:
    """What `check_generated_calls` found. `ok` when every call passed every verdict."""

    tool: str
    seed: int
    planned: int = 0
    calls: int = 0
    channels: Counter[str] = field(default_factory=Counter)
    sources: Counter[str] = field(default_factory=Counter)
    failures: dict[str, list[FailedCall]] = field(default_factory=dict)
    shrunk: dict[str, Shrunk] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    failed_calls: int = 0
    duration: float = 0.0

    @property
    def ok(self) -> bool:
        return not self.failures

    def describe(self) -> str:
        """The whole story in plain text: verdicts, failing inputs (shrunk), how calls ended, how to reproduce."""
        if self.ok:
            head = f"{self.tool!r} survived {self.calls} generated calls (seed {self.seed})."
        else:
            kinds = ", ".join(f"{len(self.failures[k])} {_KIND_TITLES[k]}" for k in KINDS if k in self.failures)
            head = (
                f"{self.tool!r} did not survive {self.planned or self.calls} generated calls (seed {self.seed}): "
                f"{self.failed_calls} call(s) failed ({kinds})."
            )
        lines = [head]
        for kind in KINDS:
            calls = self.failures.get(kind)
            if not calls:
                continue
            first = calls[0]
            lines.append(f"  {kind} in {len(calls)} call(s): {first.detail}")
            lines.append(f"    input ({first.source}): {render_input(first.arguments)}")
            shrunk = self.shrunk.get(kind)
            if shrunk is not None and shrunk.arguments != first.arguments:
                lines.append(f"    shrunk to (in {shrunk.calls} calls): {render_input(shrunk.arguments)}")
                if shrunk.detail != first.detail:
                    lines.append(f"      which {shrunk.detail}")
                lines.append(f"    answer: {_clip(shrunk.answer, 400)}")
            else:
                if shrunk is not None:
                    tries = f"{shrunk.calls} call{'s' if shrunk.calls != 1 else ''}"
                    lines.append(f"    shrinking ({tries}) found nothing smaller that fails this way")
                lines.append(f"    answer: {_clip(first.answer, 400)}")
            others = sorted(calls[1:], key=lambda call: not call.source.startswith("adversarial"))
            if others:
                also = "; ".join(f"{render_input(call.arguments, 80)} ({call.source})" for call in others[:2])
                more = f" and {len(others) - 2} more" if len(others) > 2 else ""
                lines.append(f"    also: {also}{more}")
        endings = ", ".join(f"{count} {channel}" for channel, count in self.channels.most_common())
        sources = ", ".join(f"{count} {source}" for source, count in self.sources.most_common())
        lines.append(f"How the calls ended: {endings or 'no calls'}. Inputs: {sources or 'none'}.")
        lines.extend(f"Note: {note}" for note in self.notes)
        if not self.ok:
            lines.append(
                "Reproduce: await mcpbdd.checks.generated.check_generated_calls("
                f"harness, {self.tool!r}, {self.planned}, seed={self.seed})"
            )
        return "\n".join(lines)

    def assert_ok(self) -> None:
        """Raise AssertionError with `describe()` unless the tool survived every call."""
        if not self.ok:
            raise AssertionError(self.describe())


# --------------------------------------------------------------------------- entry points


def default_seed(tool: str) -> int:
    """The stable seed of a tool: the same on every run and machine (CRC-32 of its name)."""
    return zlib.crc32(tool.encode("utf-8"))


async def check_generated_calls(
    harness: Harness,
    tool: str,
    n: int,
    *,
    caller: Principal | None = None,
    secrets: Iterable[str] = (),
    seed: int | None = None,
    timeout: float | None = None,
    snapshot: Snapshot | None = None,
    paths: Iterable[str] | None = None,
    generator: Generator = "auto",
) -> GeneratedReport:
    """Call `tool` `n` times with generated and adversarial inputs and judge every answer (see the module doc).

    `caller` makes the calls (None: anonymous). `secrets` must appear in no answer. `seed`
    makes the run reproducible (default: `default_seed(tool)`). `timeout` bounds each call
    (default: the harness's own). `snapshot`, if given, is called (and awaited if it returns
    an awaitable) before and after every call; a rejected call (tool or protocol error) must
    leave it unchanged. `paths` are the server paths that must not leak (default:
    `server_paths(harness)`). `generator` picks the schema generator: hypothesis-jsonschema
    with a fallback (`auto`), only hypothesis-jsonschema, or only mcpbdd's own (`builtin`).
    Raises AssertionError if the server offers no such tool; never for a verdict (read the report).
    """
    if n < 1:
        raise ValueError(f"the number of generated calls must be at least 1, got {n}")
    started = time.perf_counter()
    chosen_seed = default_seed(tool) if seed is None else seed
    report = GeneratedReport(tool, chosen_seed, planned=n)
    advertised = contract.find_tool(await harness.list_tools(caller), tool)
    schema: Any = advertised.input_schema
    plan, notes = plan_inputs(schema, n, chosen_seed, generator)
    report.notes.extend(notes)
    rules = Rules(tool, tuple(s for s in secrets if s), _leak_paths(harness, paths))
    runner = _Runner(harness, caller, tool, timeout, snapshot, rules)
    for source, arguments in plan:
        if len(report.failures.get(HANG, ())) >= MAX_HANGS:
            report.notes.append(
                f"stopped after {MAX_HANGS} hung calls: {len(plan) - report.calls} call(s) were not made"
            )
            break
        outcome, found = await runner.attempt(arguments)
        report.calls += 1
        report.channels[outcome.channel.value if outcome is not None else "client-refused"] += 1
        report.sources[source.split(":", 1)[0]] += 1
        answer = rules.redact(outcome.describe() if outcome is not None else runner.last_client_error)
        report.failed_calls += bool(found)
        for kind, detail in found.items():
            report.failures.setdefault(kind, []).append(
                FailedCall(kind, rules.redact(detail), arguments, source, answer)
            )
    for kind, calls in report.failures.items():
        if kind == HANG:
            report.notes.append("hanging inputs are not shrunk: every try would wait for the whole timeout")
            continue
        with _quiet_sdk_logs():  # shrinking repeats the same crash: its log adds nothing but noise
            report.shrunk[kind] = await _shrink(runner, calls[0])
    report.duration = time.perf_counter() - started
    return report


def check_generated_calls_in_world(
    world: Any,
    tool: str,
    n: int,
    *,
    secrets: Iterable[str] | None = None,
    seed: int | None = None,
    timeout: float | None = None,
    snapshot: Snapshot | None = None,
) -> GeneratedReport:
    """The synchronous form the step uses: `check_generated_calls` on the scenario's harness, as its caller.

    `world` is a `mcpbdd.world.World`; `secrets` default to the configured ones (`secrets`
    under `[tool.mcpbdd]`, or `-D mcpbdd.secrets=...`). The calls are not recorded in the
    scenario's trace.
    """
    if secrets is None:
        secrets = getattr(world.settings, "secrets", ())
    names = world.tool_names()
    if tool not in names:
        raise AssertionError(f"The server offers no tool {tool!r}; it offers: {', '.join(names) or 'no tools'}")
    coro = check_generated_calls(
        world.harness, tool, n, caller=world.caller, secrets=secrets, seed=seed, timeout=timeout, snapshot=snapshot
    )
    report: GeneratedReport = world.run(coro)
    return report


# --------------------------------------------------------------------------- calling and judging


class Rules:
    """What the verdicts look for, for one tool: its crash form, the server paths and secrets (compiled once)."""

    def __init__(self, tool: str, secrets: tuple[str, ...], paths: Sequence[str]) -> None:
        self.tool = tool
        self.secrets = secrets
        self.crash_form = re.compile(
            rf"Error executing tool {re.escape(tool)}"
            r"(?:: Error (?:executing tool|reading resource|creating resource from template) \S+)*"
        )
        self.paths = (
            re.compile(r"(?<![\w.~:/-])(?:" + "|".join(re.escape(p) for p in paths) + r")(?=[/\\\"'\s:,)]|$)")
            if paths
            else None
        )

    def redact(self, text: str) -> str:
        """The text with every configured secret replaced by its number, so the report does not repeat the leak."""
        for number, secret in enumerate(self.secrets, start=1):
            text = text.replace(secret, f"«secret #{number}»")
        return text


def judge(outcome: Outcome, arguments: Mapping[str, Any], rules: Rules) -> dict[str, str]:
    """The verdicts one answer breaks, by kind (crash, leak, hang), each with a sentence saying what is wrong."""
    found: dict[str, str] = {}
    channel = outcome.channel
    if channel is Channel.TRANSPORT_FAILURE:
        failure = outcome.failure or ""
        if failure.startswith(_TIMEOUT_PREFIX):
            found[HANG] = failure
        else:
            found[CRASH] = f"no answer at all: {failure}"
    elif channel is Channel.PROTOCOL_ERROR and outcome.error is not None and outcome.error.code == -32603:
        found[CRASH] = f"the internal error -32603 {outcome.error.message!r}"
    elif channel is Channel.TOOL_ERROR and rules.crash_form.fullmatch(outcome.text.strip()):
        found[CRASH] = (
            f'the SDK\'s crash result "{outcome.text.strip()}" (an unexpected exception in the tool; '
            "its details stay in the server's log)"
        )
    leak = _leak(outcome, arguments, rules)
    if leak is not None:
        found[LEAK] = leak
    return found


def _leak(outcome: Outcome, arguments: Mapping[str, Any], rules: Rules) -> str | None:
    text = outcome.text
    structured = outcome.structured
    if structured is not None:
        text = f"{text}\n{json.dumps(structured, ensure_ascii=False, default=str)}"
    if not text:
        return None
    text = _without_echoes(text, arguments)
    if match := _TRACEBACK.search(text):
        return f"a traceback ({_excerpt(text, match)})"
    if match := _FRAME.search(text):
        return f"a stack frame ({_excerpt(text, match)})"
    if rules.paths is not None and (match := rules.paths.search(text)):
        return f"a path of the server's installation ({_excerpt(text, match)})"
    for number, secret in enumerate(rules.secrets, start=1):
        if secret in text:
            return f"configured secret #{number} ({_mask(secret)})"
    return None


def _without_echoes(text: str, arguments: Mapping[str, Any]) -> str:
    """The text with every string of the input (keys and values, raw and JSON- or repr-escaped) cut out."""
    fragments: set[str] = set()
    for value in _strings(arguments):
        if len(value) < 3:
            continue
        fragments.add(value)
        fragments.add(json.dumps(value, ensure_ascii=False)[1:-1])
        fragments.add(json.dumps(value)[1:-1])
        fragments.add(repr(value)[1:-1])
    for fragment in sorted(fragments, key=len, reverse=True):
        if fragment and fragment in text:
            text = text.replace(fragment, " ")
    return text


def _strings(value: Any, depth: int = 0) -> Iterator[str]:
    if depth > DEEP + 10:
        return
    if isinstance(value, str):
        yield value
    elif isinstance(value, Mapping):
        for key, item in value.items():
            yield str(key)
            yield from _strings(item, depth + 1)
    elif isinstance(value, list | tuple):
        for item in value:
            yield from _strings(item, depth + 1)


class _Runner:
    """Makes one call (with the per-call timeout and the snapshot hook) and judges it."""

    def __init__(
        self,
        harness: Harness,
        caller: Principal | None,
        tool: str,
        timeout: float | None,
        snapshot: Snapshot | None,
        rules: Rules,
    ) -> None:
        self.harness = harness
        self.caller = caller
        self.tool = tool
        self.timeout = timeout
        self.snapshot = snapshot
        self.rules = rules
        self.last_client_error = ""

    async def _snapshot(self) -> Any:
        assert self.snapshot is not None
        value = self.snapshot()
        if inspect.isawaitable(value):
            value = await value
        return value

    async def call(self, arguments: dict[str, Any]) -> Outcome | None:
        """The call's Outcome, or None when the client itself refused the answer (`last_client_error` says why)."""
        started = time.perf_counter()
        try:
            if self.timeout is None:
                outcome: Outcome = await self.harness.call_tool(self.caller, self.tool, arguments)
            else:
                async with asyncio.timeout(self.timeout):
                    outcome = await self.harness.call_tool(self.caller, self.tool, arguments)
        except TimeoutError:
            return Outcome(
                Channel.TRANSPORT_FAILURE,
                Call.tool(self.tool, arguments),
                failure=f"{_TIMEOUT_PREFIX} the generated-call timeout of {self.timeout:g} s",
                duration=time.perf_counter() - started,
            )
        except Exception as exc:  # a harness that lets the SDK client's refusal escape
            self.last_client_error = f"the client refused the answer: {type(exc).__name__}: {_clip(str(exc), 400)}"
            return None
        if outcome.failure and outcome.failure.startswith(CLIENT_REFUSED):
            refusal = outcome.failure[len(CLIENT_REFUSED) :]
            self.last_client_error = f"the client refused the answer: {_clip(refusal, 400)}"
            return None
        return outcome

    async def attempt(self, arguments: dict[str, Any]) -> tuple[Outcome | None, dict[str, str]]:
        before = await self._snapshot() if self.snapshot is not None else None
        outcome = await self.call(arguments)
        if outcome is None:
            return None, {REFUSED: self.last_client_error}
        found = judge(outcome, arguments, self.rules)
        if self.snapshot is not None and outcome.channel in (Channel.TOOL_ERROR, Channel.PROTOCOL_ERROR):
            after = await self._snapshot()
            if after != before:
                found[MUTATION] = (
                    f"the call was rejected ({outcome.channel.value}) but the state changed: "
                    f"before {_clip(repr(before), 150)}, after {_clip(repr(after), 150)}"
                )
        return outcome, found


# --------------------------------------------------------------------------- shrinking


@contextlib.contextmanager
def _quiet_sdk_logs() -> Iterator[None]:
    """Silence the SDK's own loggers (not the server's) for a while: each crash logs a full traceback."""
    sdk = logging.getLogger("mcp")
    level = sdk.level
    sdk.setLevel(logging.CRITICAL)
    try:
        yield
    finally:
        sdk.setLevel(level)


async def _shrink(runner: _Runner, failed: FailedCall) -> Shrunk:
    """The smallest variant of a failing input found (within SHRINK_BUDGET calls) that still fails the same way."""
    state = _ShrinkState(runner, failed, SHRINK_BUDGET)
    current = copy.deepcopy(failed.arguments)
    progress = True
    while progress and state.budget > 0:
        progress = False
        for candidate in _structural_candidates(current):
            if await state.fails(candidate):
                current, progress = candidate, True
                break
        if progress:
            continue
        for path in list(_leaf_paths(current)):
            shrunk = await _shrink_leaf(state, current, path)
            if shrunk is not None:
                current, progress = shrunk, True
    return Shrunk(failed.kind, current, state.detail, state.answer, state.used)


class _ShrinkState:
    """Counts the calls shrinking spends and remembers what the last still-failing candidate got back."""

    def __init__(self, runner: _Runner, failed: FailedCall, budget: int) -> None:
        self.runner = runner
        self.kind = failed.kind
        self.budget = budget
        self.used = 0
        self.detail = failed.detail
        self.answer = failed.answer

    async def fails(self, candidate: dict[str, Any]) -> bool:
        if self.budget <= 0:
            return False
        self.budget -= 1
        self.used += 1
        outcome, found = await self.runner.attempt(candidate)
        if self.kind in found:
            self.detail = self.runner.rules.redact(found[self.kind])
            answer = outcome.describe() if outcome is not None else self.runner.last_client_error
            self.answer = self.runner.rules.redact(answer)
            return True
        return False


def _structural_candidates(value: dict[str, Any]) -> Iterator[dict[str, Any]]:
    """Smaller documents: one key or item dropped, an array emptied or halved (outermost first)."""
    for path, node in _nodes(value):
        if isinstance(node, dict):
            for key in list(node):
                yield _replace(value, path, {k: v for k, v in node.items() if k != key})
        elif isinstance(node, list) and node:
            yield _replace(value, path, [])
            if len(node) > 2:
                yield _replace(value, path, node[: len(node) // 2])
            for index in range(min(len(node), 8)):
                yield _replace(value, path, node[:index] + node[index + 1 :])


async def _shrink_leaf(state: _ShrinkState, value: dict[str, Any], path: tuple[Any, ...]) -> dict[str, Any] | None:
    """Bisect a string to its shortest failing prefix and simplify its characters; move a number towards zero."""
    leaf = _get(value, path)
    best: dict[str, Any] | None = None
    if isinstance(leaf, str) and leaf:
        if await state.fails(_replace(value, path, "")):
            return _replace(value, path, "")
        low, high = 0, len(leaf)  # s[:low] passes, s[:high] fails
        while high - low > 1 and state.budget > 0:
            middle = (low + high) // 2
            if await state.fails(_replace(value, path, leaf[:middle])):
                high = middle
            else:
                low = middle
        shortest = leaf[:high]
        if high < len(leaf):
            best = _replace(value, path, shortest)
        plain = "a" * len(shortest)
        if shortest != plain and await state.fails(_replace(value, path, plain)):
            best = _replace(value, path, plain)
    elif isinstance(leaf, bool):
        if leaf and await state.fails(_replace(value, path, False)):
            best = _replace(value, path, False)
    elif isinstance(leaf, int | float) and leaf != 0:
        if await state.fails(_replace(value, path, 0)):
            return _replace(value, path, 0)
        current = leaf
        while state.budget > 0:
            smaller = int(current / 2) if isinstance(current, int) or abs(current) > 1 else 0
            if smaller == current or smaller == 0:
                break
            if not await state.fails(_replace(value, path, smaller)):
                break
            current = smaller
            best = _replace(value, path, current)
    return best


def _nodes(value: Any, path: tuple[Any, ...] = ()) -> Iterator[tuple[tuple[Any, ...], Any]]:
    yield path, value
    if len(path) > DEEP + 10:
        return
    if isinstance(value, dict):
        for key, item in value.items():
            yield from _nodes(item, (*path, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from _nodes(item, (*path, index))


def _leaf_paths(value: Any) -> Iterator[tuple[Any, ...]]:
    for path, node in _nodes(value):
        if not isinstance(node, dict | list) and node is not None:
            yield path


def _get(value: Any, path: tuple[Any, ...]) -> Any:
    for part in path:
        value = value[part]
    return value


def _replace(value: dict[str, Any], path: tuple[Any, ...], new: Any) -> dict[str, Any]:
    """A copy of `value` with the node at `path` replaced (only the nodes along the path are copied)."""
    if not path:
        return new  # type: ignore[no-any-return]
    head, rest = path[0], path[1:]
    if isinstance(value, dict):
        copied: Any = dict(value)
    else:
        copied = list(value)
    copied[head] = _replace(value[head], rest, new)
    return copied  # type: ignore[no-any-return]


# --------------------------------------------------------------------------- inputs


def plan_inputs(
    schema: Any, n: int, seed: int, generator: Generator = "auto"
) -> tuple[list[tuple[str, dict[str, Any]]], list[str]]:
    """The `n` inputs to send, each with its source, and notes on how they were made.

    About half are adversarial (round-robin over the kinds of adversarial value, so a small
    `n` still tries each kind), the rest are generated from the schema; when the schema
    allows fewer distinct inputs than asked for, the list is filled up by repeating it.
    """
    adversarial = adversarial_inputs(schema)
    wanted_generated = n - min(len(adversarial), (n + 1) // 2)
    generated, notes = generate_inputs(schema, wanted_generated, seed, generator)
    plan: list[tuple[str, dict[str, Any]]] = [("generated from the input schema", value) for value in generated]
    plan.extend(adversarial[: n - len(plan)])
    if not plan:
        plan = [("generated from the input schema", {})]
    repeated = 0
    while len(plan) < n:
        plan.append(plan[repeated % len(plan)])
        repeated += 1
    if repeated:
        notes.append(f"the schema allows few distinct inputs: {repeated} of the {n} calls repeat earlier inputs")
    return plan, notes


def generate_inputs(schema: Any, count: int, seed: int, generator: Generator = "auto") -> tuple[list[Any], list[str]]:
    """Up to `count` distinct inputs drawn from `schema` by hypothesis (seeded), and notes on how.

    Duplicates are dropped, so a schema with few possible inputs yields fewer than `count`.
    Keys the schema does not name are not generated at the top level (the adversarial
    inputs add those): arbitrary extra keys with arbitrary JSON values made up most of
    the generation time and reach no tool code, since the SDK drops unknown arguments.
    """
    if count <= 0:
        return [], []
    notes: list[str] = []
    valid = _validity(schema, notes)
    closed = _closed(schema)
    if generator in ("auto", "hypothesis-jsonschema"):
        problem = _hypothesis_jsonschema_problem()
        if problem is None:
            try:
                from hypothesis_jsonschema import from_schema

                return _distinct(_collect(from_schema(closed), count, seed)), notes
            except Exception as exc:
                problem = f"cannot generate from this input schema ({_error(exc)})"
        if generator == "hypothesis-jsonschema":
            raise RuntimeError(f"hypothesis-jsonschema is not usable: {problem}")
        notes.append(f"inputs from mcpbdd's own schema strategy: hypothesis-jsonschema {problem}")
    strategy = schema_strategy(closed)
    if valid is not None:
        strategy = strategy.filter(valid)
    try:
        return _distinct(_collect(strategy, count, seed)), notes
    except Exception as exc:
        notes.append(f"no inputs could be generated from the input schema ({_error(exc)}); only adversarial ones")
        return [], notes


def _closed(schema: Any) -> Any:
    """The schema with `additionalProperties: false` at the top level when it says nothing about extra keys."""
    if isinstance(schema, Mapping) and schema.get("type") == "object" and "additionalProperties" not in schema:
        return {**schema, "additionalProperties": False}
    return schema


def _error(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {_clip(str(exc), 200)}" if str(exc) else repr(exc)


def _validity(schema: Any, notes: list[str]) -> Callable[[Any], bool] | None:
    problems = contract.schema_problems(schema)
    if problems:
        notes.append(
            "the input schema is not valid JSON Schema (" + "; ".join(str(p) for p in problems[:3]) + "): "
            "inputs were generated from what could be read of it"
        )
        return None
    try:
        return contract.validator(schema).is_valid
    except SchemaError:
        return None


_HJ_PROBLEM: list[str | None] = []


def _hypothesis_jsonschema_problem() -> str | None:
    """Why hypothesis-jsonschema cannot be used here (None if it can): probed once per process on a tiny schema."""
    if not _HJ_PROBLEM:
        try:
            from hypothesis_jsonschema import from_schema

            probe = {"type": "object", "properties": {"a": {"type": "integer"}}, "required": ["a"]}
            _collect(from_schema(probe), 2, 0)
            _HJ_PROBLEM.append(None)
        except ImportError:
            _HJ_PROBLEM.append("is not installed (pip install hypothesis-jsonschema)")
        except Exception as exc:
            _HJ_PROBLEM.append(
                f"{_version('hypothesis-jsonschema')} does not work with hypothesis {_version('hypothesis')} "
                f"({type(exc).__name__}: {_clip(str(exc), 100)}; 0.23.1 needs hypothesis < 6.170.10)"
            )
    return _HJ_PROBLEM[0]


def _version(name: str) -> str:
    try:
        return importlib.metadata.version(name)
    except importlib.metadata.PackageNotFoundError:
        return "not installed"


def _collect(strategy: Any, count: int, seed: int) -> list[Any]:
    """Draw `count` examples with hypothesis's engine, seeded (generation only: nothing is tested here)."""
    from hypothesis import HealthCheck, Phase, Verbosity, given, settings
    from hypothesis import seed as with_seed

    drawn: list[Any] = []

    @with_seed(seed)
    @settings(
        max_examples=count,
        database=None,
        deadline=None,
        phases=[Phase.generate],
        suppress_health_check=list(HealthCheck),
        verbosity=Verbosity.quiet,
        derandomize=False,
        print_blob=False,
    )
    @given(strategy)
    def draw(value: Any) -> None:
        drawn.append(value)

    draw()
    return drawn


def _distinct(values: list[Any]) -> list[Any]:
    seen: set[str] = set()
    unique: list[Any] = []
    for value in values:
        key = json.dumps(value, sort_keys=True, default=str)
        if key not in seen:
            seen.add(key)
            unique.append(value)
    return unique


# adversarial values ------------------------------------------------------------------------

ADVERSARIAL_STRINGS: tuple[tuple[str, str], ...] = (
    ("a 10,000-character string", "x" * LONG),
    ("5,000 emoji (4 bytes each in UTF-8, 2 units in UTF-16)", "\U0001f600" * 5000),
    ("control characters", "\x00\x01\x07\x08\x1b[2J\x7f\r\n\t"),
    ("a NUL character", "a\x00b"),
    ("a right-to-left override", "\u202eevil.exe\u202c"),
    ("zero-width characters and a BOM", "\ufeff\u200b\u200c\u200d\u2060"),
    ("1,000 combining marks", "e" + "\u0301" * 1000),
    ("an emoji ZWJ sequence", "\U0001f469\U0001f3fd\u200d\U0001f4bb\U0001f3f3\ufe0f\u200d\U0001f308"),
    ("non-characters and the last code point", "\ufffe\uffff\U0010ffff"),
    ("characters whose case mapping changes length", "\u0130\u0131\u017f\u212a\u00df\ufb01"),
    ("a character NFKC expands to 18", "\ufdfa"),
    ("format strings", "%s%n%x {0} {0.__class__} ${x} {{7*7}}"),
    ("a path traversal", "../../../../etc/passwd"),
    ("only whitespace", " \t\n "),
)

WRONG_TYPES: tuple[tuple[str, Any], ...] = (
    ("null", None),
    ("true", True),
    ("the number 2^64", 2**64),
    ("the number -1e308", -1e308),
    ("an empty array", []),
    ("an object", {"__proto__": {"polluted": True}}),
    ("a string", "not the expected type"),
)

EXTRA_KEYS: tuple[tuple[str, dict[str, Any]], ...] = (
    (
        "Python dunder keys",
        {"__class__": "str", "__init__": None, "__dict__": {}, "__globals__": {}, "__builtins__": {}},
    ),
    ("prototype-pollution keys", {"__proto__": {"polluted": True}, "constructor": {"prototype": {"polluted": True}}}),
    ("an empty key and a 1,000-character key", {"": "", "k" * 1000: 1}),
)


def adversarial_inputs(schema: Any) -> list[tuple[str, dict[str, Any]]]:
    """Adversarial inputs for a tool's input schema, each labelled with what makes it adversarial.

    Each mutates one top-level argument of a minimal valid input (so the value reaches the
    tool's code, not just the validation), or adds or removes keys. Ordered round-robin over
    the kinds (long strings, control characters, unicode, wrong types, nesting, extra keys,
    missing keys, extremes), so the first few already try every kind.
    """
    properties = schema.get("properties", {}) if isinstance(schema, Mapping) else {}
    properties = properties if isinstance(properties, Mapping) else {}
    required = schema.get("required", []) if isinstance(schema, Mapping) else []
    base = _minimal(schema)
    if not isinstance(base, dict):
        base = {}
    names = list(properties) or ["value"]
    string_names = [name for name in properties if _accepts(properties[name], schema, "string")] or names

    groups: list[list[tuple[str, dict[str, Any]]]] = []
    long_values = ADVERSARIAL_STRINGS[:2]
    control = ADVERSARIAL_STRINGS[2:4]
    unicode = ADVERSARIAL_STRINGS[4:11]
    tricky = ADVERSARIAL_STRINGS[11:]
    for strings in (long_values, control, unicode, tricky):
        groups.append(
            [
                (f"adversarial: {label} in $.{name}", {**base, name: value})
                for label, value in strings
                for name in string_names
            ]
        )
    groups.append(
        [
            (f"adversarial: {label} as $.{name}", {**base, name: value})
            for label, value in WRONG_TYPES
            for name in names
            if not _schema_allows(properties.get(name), schema, value)
        ]
    )
    groups.append(
        [(f"adversarial: arrays nested {DEEP} deep in $.{name}", {**base, name: _nested([], DEEP)}) for name in names]
        + [
            (f"adversarial: objects nested {DEEP} deep in $.{name}", {**base, name: _nested({}, DEEP)})
            for name in names
        ]
    )
    groups.append([(f"adversarial: {label}", {**base, **extra}) for label, extra in EXTRA_KEYS])
    missing = [("adversarial: no arguments at all", {})] if base else []
    missing += [
        (f"adversarial: the required $.{name} left out", {k: v for k, v in base.items() if k != name})
        for name in required
        if isinstance(name, str) and name in base and len(required) > 1
    ]
    groups.append(missing)
    groups.append(_extremes(properties, schema, base))
    return _round_robin(groups)


def _round_robin(groups: list[list[tuple[str, dict[str, Any]]]]) -> list[tuple[str, dict[str, Any]]]:
    ordered: list[tuple[str, dict[str, Any]]] = []
    index = 0
    while any(index < len(group) for group in groups):
        ordered.extend(group[index] for group in groups if index < len(group))
        index += 1
    return ordered


def _extremes(properties: Mapping[str, Any], root: Any, base: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    """Values of the right type at its edges: huge and tiny numbers, an empty string, a 10,000-item array."""
    found: list[tuple[str, dict[str, Any]]] = []
    for name, prop in properties.items():
        if _accepts(prop, root, "integer"):
            found += [(f"adversarial: 2^63 in $.{name}", {**base, name: 2**63})]
            found += [(f"adversarial: -2^63-1 in $.{name}", {**base, name: -(2**63) - 1})]
            found += [(f"adversarial: 10^30 in $.{name}", {**base, name: 10**30})]
        if _accepts(prop, root, "number"):
            found += [(f"adversarial: 1e308 in $.{name}", {**base, name: 1e308})]
            found += [(f"adversarial: 5e-324 in $.{name}", {**base, name: 5e-324})]
        if _accepts(prop, root, "string"):
            found += [(f"adversarial: an empty string in $.{name}", {**base, name: ""})]
        if _accepts(prop, root, "array"):
            found += [(f"adversarial: a 10,000-item array in $.{name}", {**base, name: [""] * LONG})]
    return found


def _nested(leaf: Any, depth: int) -> Any:
    value: Any = leaf
    for _ in range(depth):
        value = [value] if isinstance(leaf, list) else {"a": value}
    return value


def _schema_allows(prop: Any, root: Any, value: Any) -> bool:
    if prop is None:
        return False
    try:
        return contract.validator({**_defs_of(root), **prop} if isinstance(prop, Mapping) else prop).is_valid(value)
    except Exception:
        return False


def _defs_of(root: Any) -> dict[str, Any]:
    if not isinstance(root, Mapping):
        return {}
    return {key: root[key] for key in ("$defs", "definitions") if key in root}


def _accepts(prop: Any, root: Any, kind: str) -> bool:
    """Whether a property schema allows values of a JSON type (looking through $ref and anyOf/oneOf)."""
    prop = _deref(prop, root)
    if not isinstance(prop, Mapping):
        return prop is True
    types = prop.get("type")
    if types == kind:
        return True
    if isinstance(types, list) and kind in types:
        return True
    options = list(prop.get("anyOf", [])) + list(prop.get("oneOf", []))
    if any(_accepts(option, root, kind) for option in options):
        return True
    return types is None and not options and not any(k in prop for k in ("enum", "const", "$ref"))


def _deref(schema: Any, root: Any, depth: int = 0) -> Any:
    while isinstance(schema, Mapping) and "$ref" in schema and depth < 10:
        target = _resolve_ref(root, schema["$ref"])
        if target is None:
            return schema
        schema = {**target, **{k: v for k, v in schema.items() if k != "$ref"}}
        depth += 1
    return schema


def _resolve_ref(root: Any, ref: Any) -> Any:
    """A `#/...` JSON pointer inside the root schema (None for anything else)."""
    if not isinstance(ref, str) or not ref.startswith("#"):
        return None
    node = root
    for raw in ref[1:].split("/")[1:] if ref != "#" else []:
        part = raw.replace("~1", "/").replace("~0", "~")
        if isinstance(node, Mapping) and part in node:
            node = node[part]
        elif isinstance(node, list) and part.isdigit() and int(part) < len(node):
            node = node[int(part)]
        else:
            return None
    return node


def _minimal(schema: Any, root: Any = None, depth: int = 0) -> Any:
    """A small valid instance: required keys only, the first enum value, the lower bound, "a" for strings."""
    root = schema if root is None else root
    schema = _deref(schema, root)
    if depth > 12 or not isinstance(schema, Mapping):
        return None
    if "const" in schema:
        return schema["const"]
    if schema.get("enum"):
        return schema["enum"][0]
    if "default" in schema:
        return schema["default"]
    for key in ("anyOf", "oneOf"):
        options = schema.get(key)
        if options:
            non_null = [o for o in options if not (isinstance(o, Mapping) and o.get("type") == "null")]
            return _minimal((non_null or options)[0], root, depth + 1)
    if schema.get("allOf"):
        merged: dict[str, Any] = {k: v for k, v in schema.items() if k != "allOf"}
        for part in schema["allOf"]:
            part = _deref(part, root)
            if isinstance(part, Mapping):
                merged.update(part)
        return _minimal(merged, root, depth + 1)
    kind = schema.get("type")
    if isinstance(kind, list):
        kind = next((k for k in kind if k != "null"), kind[0] if kind else None)
    if kind == "object" or (kind is None and "properties" in schema):
        properties = schema.get("properties", {})
        return {
            name: _minimal(properties.get(name, {}), root, depth + 1)
            for name in schema.get("required", [])
            if isinstance(name, str)
        }
    if kind == "array":
        items = schema.get("items")
        minimum = int(schema.get("minItems", 0))
        return [_minimal(items, root, depth + 1) for _ in range(minimum)] if isinstance(items, Mapping) else []
    if kind == "string":
        return "a" * max(1, int(schema.get("minLength", 1)))
    if kind in ("integer", "number"):
        low = schema.get("minimum", schema.get("exclusiveMinimum"))
        if isinstance(low, int | float) and not isinstance(low, bool):
            return int(low) + 1 if kind == "integer" else low + 1
        return 1
    if kind == "boolean":
        return True
    return None


# the builtin strategy ------------------------------------------------------------------------

_MAX_REF_DEPTH = 4


def schema_strategy(schema: Any) -> Any:
    """A hypothesis strategy for a JSON Schema's usual keywords; the fallback when hypothesis-jsonschema fails.

    Covers type (and type lists), properties/required/additionalProperties, items/prefixItems
    and their bounds, enum, const, anyOf/oneOf/allOf, `#/...` `$ref`s (recursion cut after a
    few levels), numeric bounds and multipleOf, string lengths, pattern and common formats.
    Values it gets wrong are filtered out by validating against the schema.
    """
    return _strategy(schema, schema, 0)


def _scalars() -> Any:
    from hypothesis import strategies as st

    return st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text()


def _any_json() -> Any:
    from hypothesis import strategies as st

    return st.recursive(
        _scalars(),
        lambda children: st.lists(children, max_size=3) | st.dictionaries(st.text(), children, max_size=3),
        max_leaves=6,
    )


def _strategy(schema: Any, root: Any, depth: int) -> Any:
    from hypothesis import strategies as st

    if schema is True or schema == {} or not isinstance(schema, Mapping | bool):
        return _any_json()
    if schema is False:
        return st.nothing()
    if "$ref" in schema:
        if depth >= _MAX_REF_DEPTH:
            return st.nothing()
        target = _resolve_ref(root, schema["$ref"])
        if not isinstance(target, Mapping):
            return _any_json()
        return _strategy({**target, **{k: v for k, v in schema.items() if k != "$ref"}}, root, depth + 1)
    if "const" in schema:
        return st.just(schema["const"])
    if "enum" in schema:
        values = list(schema["enum"])
        return st.sampled_from(values) if values else st.nothing()
    for key in ("anyOf", "oneOf"):
        options = schema.get(key)
        if isinstance(options, list) and options:
            rest = {k: v for k, v in schema.items() if k != key}
            return st.one_of([_strategy(_merge(rest, option), root, depth) for option in options])
    if isinstance(schema.get("allOf"), list):
        merged: dict[str, Any] = {k: v for k, v in schema.items() if k != "allOf"}
        for part in schema["allOf"]:
            merged = _merge(merged, _deref(part, root))
        return _strategy(merged, root, depth)
    kind = schema.get("type")
    if isinstance(kind, list):
        return st.one_of([_strategy({**schema, "type": k}, root, depth) for k in kind]) if kind else _any_json()
    if kind is None:
        kind = _implied_type(schema)
    builder = _BUILDERS.get(kind) if isinstance(kind, str) else None
    return builder(schema, root, depth) if builder is not None else _any_json()


def _merge(base: Mapping[str, Any], extra: Any) -> dict[str, Any]:
    if not isinstance(extra, Mapping):
        return dict(base)
    merged = dict(base)
    for key, value in extra.items():
        if key == "properties" and isinstance(merged.get(key), Mapping) and isinstance(value, Mapping):
            merged[key] = {**merged[key], **value}
        elif key == "required" and isinstance(merged.get(key), list) and isinstance(value, list):
            merged[key] = list(dict.fromkeys([*merged[key], *value]))
        else:
            merged[key] = value
    return merged


def _implied_type(schema: Mapping[str, Any]) -> str | None:
    if any(k in schema for k in ("properties", "required", "additionalProperties")):
        return "object"
    if any(k in schema for k in ("items", "prefixItems", "minItems", "maxItems")):
        return "array"
    if any(k in schema for k in ("minLength", "maxLength", "pattern", "format")):
        return "string"
    if any(k in schema for k in ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf")):
        return "number"
    return None


def _string(schema: Mapping[str, Any], root: Any, depth: int) -> Any:
    from hypothesis import strategies as st

    low = int(schema.get("minLength", 0))
    high = schema.get("maxLength")
    fmt = schema.get("format")
    if isinstance(schema.get("pattern"), str):
        strategy = st.from_regex(schema["pattern"])
    elif fmt == "date-time":
        strategy = st.datetimes().map(lambda d: d.isoformat() + "Z")
    elif fmt == "date":
        strategy = st.dates().map(lambda d: d.isoformat())
    elif fmt == "email":
        strategy = st.emails()
    elif fmt == "uuid":
        strategy = st.uuids().map(str)
    elif fmt in ("uri", "url", "iri"):
        strategy = st.sampled_from(["https://example.com/", "https://example.org/a?b=c#d", "urn:isbn:0451450523"])
    else:
        return st.text(min_size=low, max_size=int(high) if isinstance(high, int) else None)
    return strategy.filter(lambda s: len(s) >= low and (not isinstance(high, int) or len(s) <= high))


def _number(schema: Mapping[str, Any], root: Any, depth: int, *, integer: bool = False) -> Any:
    from hypothesis import strategies as st

    def bound(key: str) -> float | None:
        value = schema.get(key)
        return value if isinstance(value, int | float) and not isinstance(value, bool) else None

    low, high = bound("minimum"), bound("maximum")
    exclusive_low, exclusive_high = bound("exclusiveMinimum"), bound("exclusiveMaximum")
    step = bound("multipleOf")
    if integer or (step is not None and float(step).is_integer()):
        lo = math.ceil(low) if low is not None else None
        hi = math.floor(high) if high is not None else None
        if exclusive_low is not None:
            lo = max(lo, math.floor(exclusive_low) + 1) if lo is not None else math.floor(exclusive_low) + 1
        if exclusive_high is not None:
            hi = min(hi, math.ceil(exclusive_high) - 1) if hi is not None else math.ceil(exclusive_high) - 1
        if step is not None and step > 0:
            unit = int(step)
            return st.integers(
                min_value=None if lo is None else -(-lo // unit), max_value=None if hi is None else hi // unit
            ).map(lambda k: k * unit)
        return st.integers(min_value=lo, max_value=hi)
    floats = st.floats(
        min_value=low if low is not None else exclusive_low,
        max_value=high if high is not None else exclusive_high,
        exclude_min=low is None and exclusive_low is not None,
        exclude_max=high is None and exclusive_high is not None,
        allow_nan=False,
        allow_infinity=False,
    )
    return floats


def _array(schema: Mapping[str, Any], root: Any, depth: int) -> Any:
    from hypothesis import strategies as st

    low = int(schema.get("minItems", 0))
    high = schema.get("maxItems")
    high = int(high) if isinstance(high, int) else low + 5
    prefix = schema.get("prefixItems")
    items = schema.get("items", True)
    if isinstance(items, list):  # draft 4-2019 tuple form
        prefix, items = items, schema.get("additionalItems", True)
    element = _strategy(items, root, depth + 1) if items is not False else st.nothing()
    unique = bool(schema.get("uniqueItems"))
    rest = st.lists(
        element,
        min_size=max(0, low - len(prefix or [])),
        max_size=max(0, high - len(prefix or [])),
        unique_by=(lambda v: json.dumps(v, sort_keys=True)) if unique else None,
    )
    if prefix:
        head = st.tuples(*[_strategy(p, root, depth + 1) for p in prefix]).map(list)
        return st.tuples(head, rest).map(lambda pair: pair[0] + pair[1])
    return rest


def _object(schema: Mapping[str, Any], root: Any, depth: int) -> Any:
    from hypothesis import strategies as st

    properties = schema.get("properties") or {}
    required = [name for name in schema.get("required", []) if isinstance(name, str)]
    fixed = {name: _strategy(properties.get(name, True), root, depth + 1) for name in required}
    optional = {name: _strategy(sub, root, depth + 1) for name, sub in properties.items() if name not in fixed}
    known = st.fixed_dictionaries(fixed, optional=optional)
    additional = schema.get("additionalProperties", True)
    if additional is False or depth > 2:
        return known
    extra_values = _strategy(additional, root, depth + 1) if isinstance(additional, Mapping) else _scalars()
    extra = st.dictionaries(st.text(min_size=1).filter(lambda k: k not in properties), extra_values, max_size=1)
    return st.tuples(known, extra).map(lambda pair: {**pair[1], **pair[0]})


def _integer(schema: Mapping[str, Any], root: Any, depth: int) -> Any:
    return _number(schema, root, depth, integer=True)


def _boolean(schema: Mapping[str, Any], root: Any, depth: int) -> Any:
    from hypothesis import strategies as st

    return st.booleans()


def _null(schema: Mapping[str, Any], root: Any, depth: int) -> Any:
    from hypothesis import strategies as st

    return st.none()


_BUILDERS: dict[str, Callable[[Mapping[str, Any], Any, int], Any]] = {
    "string": _string,
    "integer": _integer,
    "number": _number,
    "boolean": _boolean,
    "null": _null,
    "array": _array,
    "object": _object,
}


# --------------------------------------------------------------------------- server paths


def server_paths(harness: Harness) -> list[str]:
    """Absolute paths that must not appear in answers: the server's code and the Python installation.

    The folders of the modules defining the server's tools (and the import root above
    them), the standard library and site-packages. Longest first. For a server in another
    process (stdio, HTTP) only this interpreter's own paths are known: pass `paths=` to
    `check_generated_calls` to name the server's.
    """
    found: set[str] = set()
    server = getattr(harness, "server", None) or getattr(getattr(harness, "connector", None), "server", None)
    manager = getattr(server, "_tool_manager", None)  # the SDK keeps its tool registry private
    tools = manager.list_tools() if manager is not None and hasattr(manager, "list_tools") else []
    for tool in tools:
        fn = inspect.unwrap(getattr(tool, "fn", None) or (lambda: None))
        module = sys.modules.get(getattr(fn, "__module__", "") or "")
        filename = getattr(module, "__file__", None)
        if not filename:
            continue
        folder = Path(filename).resolve().parent
        found.add(str(folder))
        root = folder
        for _ in range(max(0, len((module.__name__ if module else "").split(".")) - 1)):
            root = root.parent
        if len(root.parts) >= 3:
            found.add(str(root))
    for key in ("stdlib", "platstdlib", "purelib", "platlib"):
        path = sysconfig.get_paths().get(key)
        if path:
            found.add(path)
    return sorted((p for p in found if len(Path(p).parts) >= 3), key=len, reverse=True)


def _leak_paths(harness: Harness, paths: Iterable[str] | None) -> list[str]:
    if paths is not None:
        return sorted((p for p in paths if p), key=len, reverse=True)
    return server_paths(harness)


# --------------------------------------------------------------------------- rendering


def render_input(value: Any, limit: int = 400) -> str:
    """An input as compact JSON a reader can take in: long strings and deep nesting summarised."""
    text = _render(value, 0)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _render(value: Any, depth: int) -> str:
    if depth > 6 and isinstance(value, list | dict) and value:
        inner = value
        levels = 0
        while isinstance(inner, list | dict) and len(inner) == 1 and levels < DEEP + 10:
            inner = next(iter(inner.values())) if isinstance(inner, dict) else inner[0]
            levels += 1
        opening, closing = ("[", "]") if isinstance(value, list) else ("{", "}")
        return f"{opening}… {levels} more levels of nesting …{closing}"
    if isinstance(value, str):
        if len(value) > 60:
            if value == value[0] * len(value):
                return f"{_quote(value[0])} * {len(value)}"
            return f'{_quote(value[:24])[:-1]}…" ({len(value)} characters)'
        return _quote(value)
    if isinstance(value, dict):
        return "{" + ", ".join(f"{_render(str(k), depth)}: {_render(v, depth + 1)}" for k, v in value.items()) + "}"
    if isinstance(value, list):
        if len(value) > 10 and all(item == value[0] for item in value):
            return f"[{_render(value[0], depth + 1)}] * {len(value)}"
        return "[" + ", ".join(_render(v, depth + 1) for v in value[:10]) + (", …" if len(value) > 10 else "") + "]"
    return json.dumps(value, default=str)


def _quote(text: str) -> str:
    """A JSON string literal that shows printable characters as they are and escapes the rest (\\u0000, \\u202e)."""
    parts: list[str] = []
    for char in text:
        if char in '"\\':
            parts.append("\\" + char)
        elif char.isprintable():
            parts.append(char)
        elif ord(char) > 0xFFFF:
            parts.append(f"\\U{ord(char):08x}")
        else:
            parts.append(f"\\u{ord(char):04x}")
    return '"' + "".join(parts) + '"'


def _excerpt(text: str, match: re.Match[str], width: int = 60) -> str:
    start = max(0, match.start() - 10)
    return repr(" ".join(text[start : match.end() + width].split()))


def _mask(secret: str) -> str:
    shown = secret[:3] if len(secret) > 8 else ""
    return f"{shown}… {len(secret)} characters"


def _clip(text: str, limit: int = 300) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"
