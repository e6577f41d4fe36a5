"""`mcpbdd feature`: a recorded session as a feature file in mcpbdd's vocabulary.

The server goes into the Background, each call becomes a When step, its questions and the
answers given become the input-round steps, and its outcome becomes the outcome steps (success
and `the structured result matches:`, the tool error and its text, the protocol error by name).
Values that change from run to run are found by replaying the session against fresh server
processes (`replays` times) and written as matcher markers; prose that changes is left out.
A value one call returns and a later call sends back is remembered by JSON path
(`And the result's "$.id" is remembered as "note_id"`) and sent as `"${note_id}"`.

Every value comes from a cassette or a server: data a remote party chose. Each one is written
through `mcpbdd.record.gherkin_text`, so none can end its line, start a keyword or close a doc
string. A call whose name, URI, question key or answer a step cannot carry (a quote or a line
break in a quoted argument, a recorded `${...}` in its arguments) is left out, with a comment
saying why; a check that cannot be written (an error reason with a quote) is left out alone.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Unpack

from mcpbdd.kit.errors import CODES
from mcpbdd.model.kinds import CAPABILITIES
from mcpbdd.record.cassette import LEGACY, MODERN, Cassette, Exchange
from mcpbdd.record.compare import (
    INPUT_REQUIRED_CHANNEL,
    OK,
    PROTOCOL_ERROR,
    TOOL_ERROR,
    channel,
    observable,
    template,
    volatile,
)
from mcpbdd.record.gherkin_text import Unwritable, can_quote, cell, json_text, quoted, reference_free, visible
from mcpbdd.record.replay import Replayed, ReplayError, ReplayTarget, leaves, replay_runs

INDENT = "    "
SNIPPET = 80
_NAME = re.compile(r"[^A-Za-z0-9_-]+")
_UNQUOTABLE = re.compile('["\x00-\x1f\x7f-\x9f\u2028\u2029]')
"""What splits a text into the runs a quoted argument can hold (a quote, a line break, a control character)."""
_KIND = {"elicitation/create": "by elicitation", "sampling/createMessage": "by sampling", "roots/list": "for the roots"}


@dataclass
class _Carry:
    """A value exchange `source` returned at `path` that later arguments send back, under `name`."""

    source: int
    path: str
    name: str


@dataclass
class _Plan:
    carries: dict[Any, _Carry] = field(default_factory=dict)
    """Recorded value -> how it is carried."""


def _snippet(text: str) -> str | None:
    """A phrase of `text` a `"..."` step can quote: the first line's longest run without quotes or controls."""
    first = next((line.strip() for line in text.splitlines() if line.strip()), "")
    parts = sorted((p.strip() for p in _UNQUOTABLE.split(first)), key=len, reverse=True)
    best = parts[0] if parts else ""
    if len(best) > SNIPPET:
        best = best[:SNIPPET].rsplit(" ", 1)[0] or best[:SNIPPET]
    return best if len(best) >= 3 else None


def _structured(exchange: Exchange) -> Any:
    response = exchange.response or {}
    return (response.get("result") or {}).get("structuredContent")


def _argument_leaves(value: Any, key: str = "") -> list[tuple[str, Any]]:
    if isinstance(value, dict):
        return [leaf for k, v in value.items() for leaf in _argument_leaves(v, k)]
    if isinstance(value, list):
        return [leaf for v in value for leaf in _argument_leaves(v, key)]
    return [(key, value)]


def plan_carries(calls: Sequence[Exchange], left_out: Sequence[int] = ()) -> _Plan:
    """Which argument values came from an earlier result (and were never sent by the client before it).

    A value is carried from a call that is written (not in `left_out`), by a path a quoted
    argument can hold.
    """
    plan = _Plan()
    sent: set[Any] = set()
    names: set[str] = set()
    for index, exchange in enumerate(calls):
        values = [v for _, v in _argument_leaves(exchange.arguments)]
        for key, value in _argument_leaves(exchange.arguments):
            if not isinstance(value, str) or len(value) < 2 or value in plan.carries or value in sent:
                continue
            for source in range(index):  # where the value first appeared (a listing after it merely repeats it)
                if source in left_out:
                    continue
                structured = _structured(calls[source])
                found = [p for p, v in leaves(structured) if v == value and structured and can_quote(p)]
                if found:
                    name = _NAME.sub("_", key or "value").strip("_") or "value"
                    base, n = name, 1
                    while name in names:
                        n += 1
                        name = f"{base}_{n}"
                    names.add(name)
                    plan.carries[value] = _Carry(source, found[0], name)
                    break
        sent.update(v for v in values if isinstance(v, str))
    return plan


def _refer(value: Any, plan: _Plan) -> Any:
    if isinstance(value, dict):
        return {k: _refer(v, plan) for k, v in value.items()}
    if isinstance(value, list):
        return [_refer(v, plan) for v in value]
    if isinstance(value, str) and value in plan.carries:
        return "${" + plan.carries[value].name + "}"
    return value


def _doc_string(value: Any, indent: str = "  ") -> list[str]:
    text = json_text(value, indent=2)
    return [f'{indent}"""', *(f"{indent}{line}" for line in text.splitlines()), f'{indent}"""']


def _when(exchange: Exchange, plan: _Plan) -> list[str]:
    if exchange.method == "resources/read":
        uri = exchange.target
        reference_free(uri, "the resource URI")
        for value, carry in plan.carries.items():
            if len(value) >= 4 and value in uri:
                uri = uri.replace(value, "${" + carry.name + "}")
        return [f"When the client reads the resource {quoted(uri, 'the resource URI')}"]
    reference_free(exchange.arguments, "an argument")
    arguments = _refer(exchange.arguments, plan)
    if exchange.method == "prompts/get":
        name = quoted(exchange.target, "the prompt's name")
        if not arguments:
            return [f"When the client gets the prompt {name}"]
        return [f"When the client gets the prompt {name} with:", *_prompt_arguments(arguments)]
    tool = quoted(exchange.target, "the tool's name")
    if not arguments:
        return [f"When the client calls {tool}"]
    inline = json_text(arguments)
    if len(inline) <= 100 and "\n" not in inline:
        return [f"When the client calls {tool} with {inline}"]
    return [f"When the client calls {tool} with:", *_doc_string(arguments)]


def _prompt_arguments(arguments: dict[str, Any]) -> list[str]:
    """A prompt's arguments as an `argument | value` table, or a JSON doc string when a cell cannot hold one.

    A cell is read as JSON where it reads as JSON (`42`, `true`): such a string is written as a
    JSON string (`"42"`) so that it comes back a string.
    """
    try:
        rows = [(cell(k, "an argument name"), cell(_as_cell(v), "an argument")) for k, v in arguments.items()]
        return ["  | argument | value |", *(f"  | {k} | {v} |" for k, v in rows)]
    except Unwritable:
        return _doc_string(arguments)


def _as_cell(value: Any) -> str:
    """A prompt argument as its cell's text: a string the cell would read as JSON (or fail to) as a JSON string."""
    if not isinstance(value, str):
        return json.dumps(value)
    try:
        json.loads(value)
    except ValueError:
        if not value.lstrip().startswith(("{", "[")):
            return value
    return json.dumps(value, ensure_ascii=False)


def _questions(round_: dict[str, Any]) -> dict[str | None, dict[str, Any]]:
    """A round's questions by key (a 2025-11-25 request has no key: None)."""
    if round_.get("era") == MODERN:
        return dict((round_.get("asked") or {}).get("inputRequests") or {})
    asked = round_.get("asked") or {}
    return {None: {"method": asked.get("method"), "params": asked.get("params") or {}}}


def _answers(round_: dict[str, Any]) -> dict[str | None, Any] | None:
    if round_.get("era") == MODERN:
        retry = round_.get("retry")
        return None if retry is None else dict(retry.get("params", {}).get("inputResponses") or {})
    answer = round_.get("answer")
    return None if answer is None or "result" not in answer else {None: answer["result"]}


def _stable_message(key: str | None, index: int, message: str, replays: Sequence[Replayed | None]) -> bool:
    for run in replays:
        if run is None or index >= len(run.rounds):
            return False
        other = _questions(run.rounds[index])
        question = other.get(key) if key is not None else next(iter(other.values()), None)
        if question is None or (question.get("params") or {}).get("message") != message:
            return False
    return True


def _round_steps(exchange: Exchange, replays: Sequence[Replayed | None]) -> list[str]:
    steps: list[str] = []
    for index, round_ in enumerate(r for r in exchange.rounds if r.get("era") in (MODERN, LEGACY)):
        questions = _questions(round_)
        single = len(questions) == 1
        for key, question in questions.items():
            how = _KIND.get(str(question.get("method")), "")
            named = "" if single else f" {quoted(key, 'the question key')}"
            steps.append(f"Then the server asks{' for' + named if named else ''} {how}".rstrip())
            message = (question.get("params") or {}).get("message")
            snippet = _snippet(message) if isinstance(message, str) else None
            if snippet and isinstance(message, str) and _stable_message(key, index, message, replays):
                steps.append(f'And the question{named} says "{snippet}"')
        answers = _answers(round_)
        if answers is None:
            continue
        for key, question in questions.items():
            answer = answers.get(key) if key is not None else answers.get(None)
            if answer is None:
                continue
            named = "" if single else f" {quoted(key, 'the question key')}"
            steps.extend(_answer_steps(str(question.get("method")), named, answer))
    return steps


def _answer_steps(method: str, named: str, answer: dict[str, Any]) -> list[str]:
    if method == "elicitation/create":
        action = answer.get("action")
        if action == "accept":
            return [f"When the user accepts{named} with:", *_doc_string(answer.get("content") or {})]
        return [f"When the user {'declines' if action == 'decline' else 'cancels'}{named}"]
    if method == "sampling/createMessage":
        text = (answer.get("content") or {}).get("text", "")
        return [f"When the model answers{named} with {quoted(text, 'the model answer')}"]
    if method == "roots/list":
        rows = ["  | uri | name |"] + [
            f"  | {cell(r.get('uri', ''), 'a root URI')} | {cell(r.get('name', ''), 'a root name')} |"
            for r in answer.get("roots") or []
        ]
        return [f"When the client answers{named} with the roots:", *rows]
    return [f"# an answer to {visible(method)} is not in the vocabulary: {visible(json.dumps(answer)[:120])}"]


def _text_of(result: dict[str, Any]) -> str:
    """The first text of a result (a resource's contents, a prompt's messages, a tool's content); '' if none.

    Read defensively: a recorded result is data, and an item that is not an object is skipped.
    """

    def objects(key: str) -> list[dict[str, Any]]:
        items = result.get(key)
        return [item for item in items if isinstance(item, dict)] if isinstance(items, list) else []

    if "contents" in result:
        texts = [c.get("text") for c in objects("contents")]
    elif "messages" in result:
        texts = [m["content"].get("text") for m in objects("messages") if isinstance(m.get("content"), dict)][:1]
    else:
        texts = [c.get("text") for c in objects("content") if c.get("type") == "text"][:1]
    return next((text for text in texts if isinstance(text, str) and text), "")


def _outcome_steps(exchange: Exchange, replays: Sequence[Replayed | None]) -> list[str]:
    response = exchange.response
    kind = channel(response)
    seen = [observable(r.response) for r in replays if r is not None]
    markers = volatile(observable(response), seen)
    text_stable = not any(path.startswith(("$.content", "$.contents", "$.messages", "$.message")) for path in markers)
    result = (response or {}).get("result") or {}
    if kind == OK:
        steps = ["Then the call succeeds"]
        if exchange.method == "tools/call" and "structuredContent" in result:
            expected = template(observable(response), markers)["structuredContent"]
            steps += ["And the structured result matches:", *_doc_string(expected)]
        elif text_stable and (snippet := _snippet(_text_of(result))):
            steps.append(f'And the result mentions "{snippet}"')
        return steps
    if kind == TOOL_ERROR:
        snippet = _snippet(_text_of(result)) if text_stable else None
        steps = [f'Then the call fails with a tool error mentioning "{snippet}"' if snippet else ""]
        steps = [s for s in steps if s] or ["Then the call fails with a tool error"]
        reason = ((result.get("structuredContent") or {}).get("error") or {}).get("reason")
        if can_quote(reason):
            steps.append(f'And the error reason is "{reason}"')
        return steps
    if kind == PROTOCOL_ERROR:
        error = (response or {}).get("error") or {}
        code = error.get("code")
        if isinstance(code, int) and not isinstance(code, bool):
            name = next((n for n, c in CODES.items() if c == code), str(code))
            steps = [f"Then the call fails with the protocol error {name}"]
        else:  # not a JSON-RPC code: nothing the phrase can name
            steps = ["Then the call fails with a protocol error"]
        reason = (error.get("data") or {}).get("reason") if isinstance(error.get("data"), dict) else None
        if can_quote(reason):
            steps.append(f'And the error reason is "{reason}"')
        return steps
    if kind == INPUT_REQUIRED_CHANNEL:
        return []  # the question steps already say it; the recording ended with it open
    return ["# the session ended before the server answered this call"]


def server_target(command: Sequence[str]) -> str:
    """The Background's server for a command: `stdio: COMMAND` (this interpreter written `{python}`)."""
    argv = list(command)
    if argv and argv[0] == sys.executable:
        return "stdio: {python} " + shlex.join(argv[1:])
    return "stdio: " + shlex.join(argv)


def render(
    cassette: Cassette,
    replays: Sequence[Sequence[Replayed]],
    *,
    target: str,
    environment_caller: tuple[str, str] | None = None,
) -> str:
    """The feature text for `cassette`, with markers where `replays` (fresh runs) disagree with it.

    `target` is the server the user named (never the cassette's); an `Unwritable` if a step cannot quote it.
    `environment_caller` is the (user, tenant) a stdio server took from its environment, when the project's
    `env` setting says which variables carry them: declared, so the feature does not depend on the shell.
    """
    calls = cassette.calls()
    header = cassette.header
    client = header.client or {}
    info = header.server.get("info")
    name = (info.get("name") if isinstance(info, dict) else None) or target
    lines = [
        "@harness.client",
        f"Feature: A recorded session with the {visible(name)} server",
        f"  Recorded by mcpbdd record on {visible(header.started_at[:10])}: protocol "
        f"{visible(header.protocol_version)},",
        f"  client {visible(client.get('name'))} {visible(client.get('version'))}, over {visible(header.transport)}.",
        "",
        "  Background:",
        f"    Given the MCP server {quoted(target, 'the server target')}",
        *_capabilities(client.get("capabilities")),
        *(_callers(calls) or _environment_caller(environment_caller, header.transport)),
        "",
        "  Scenario: The recorded session",
        *_indent_steps(_scenario_steps(cassette, calls, replays)),
    ]
    return "\n".join(lines) + "\n"


def _scenario_steps(cassette: Cassette, calls: Sequence[Exchange], replays: Sequence[Sequence[Replayed]]) -> list[str]:
    """Every call's steps; a call a step cannot carry is a comment, and nothing is carried from it."""
    all_exchanges = [e for e in cassette.exchanges if e.origin == "client"]
    left_out: dict[int, str] = {}
    while True:  # each pass leaves out one more call, so this ends
        plan = plan_carries(calls, list(left_out))
        steps: list[str] = []
        try:
            for index, exchange in enumerate(calls):
                if index in left_out:
                    steps.append(f"# call #{exchange.seq} ({exchange.method}) is left out: {left_out[index]}")
                    continue
                try:
                    steps += _call_steps(index, exchange, plan, all_exchanges, replays)
                except Unwritable as exc:
                    left_out[index] = str(exc)
                    raise
        except Unwritable:
            continue
        return steps


def _call_steps(
    index: int, exchange: Exchange, plan: _Plan, all_exchanges: list[Exchange], replays: Sequence[Sequence[Replayed]]
) -> list[str]:
    position = all_exchanges.index(exchange)
    runs = [run[position] if position < len(run) else None for run in replays]
    steps = _when(exchange, plan)
    steps += _round_steps(exchange, runs)
    steps += _outcome_steps(exchange, runs)
    for carry in (c for c in plan.carries.values() if c.source == index):
        steps.append(f'And the result\'s "{carry.path}" is remembered as "{carry.name}"')
    return steps


def _capabilities(declared: Any) -> list[str]:
    """The client capabilities the recorded client declared, when not all of them: a server asks by what it sees.

    (The everything server asks a client that declares roots for them as soon as it connects; the
    recorded client did not declare them, so the scenario must not either.)
    """
    if not isinstance(declared, dict):
        return []
    known = [name for name in CAPABILITIES if name in declared]
    if len(known) == len(CAPABILITIES):
        return []
    if not known:
        return ["    And the client declares no capabilities"]
    return [f'    And the client declares the capabilities "{", ".join(known)}"']


def _callers(calls: Sequence[Exchange]) -> list[str]:
    """Over HTTP, the recorded callers (from their tokens) as users: the harness sends each one's token."""
    steps: list[str] = []
    seen: set[tuple[Any, Any]] = set()
    for exchange in calls:
        caller = exchange.caller or {}
        subject, tenant = caller.get("subject"), caller.get("tenant")
        if subject and tenant and (subject, tenant) not in seen:
            seen.add((subject, tenant))
            if not (can_quote(subject) and can_quote(tenant)):
                shown = visible(json.dumps([subject, tenant]))
                steps.append(f"    # the caller {shown} is left out: a quoted argument cannot hold it")
                continue
            keyword = "Given" if not any(not s.lstrip().startswith("#") for s in steps) else "And"
            steps.append(f'    {keyword} the user "{subject}" of tenant "{tenant}"')
    return steps


def _environment_caller(caller: tuple[str, str] | None, transport: str) -> list[str]:
    """Over stdio the caller came from the server's environment: declare it, or say that nothing was declared."""
    if caller is not None and can_quote(caller[0]) and can_quote(caller[1]):
        return [f'    And the user "{caller[0]}" of tenant "{caller[1]}"']
    if transport != "stdio":
        return []
    return [
        "    # No caller is declared: the server took its caller from the environment this session ran in.",
        '    # Add one (Given the user "..." of tenant "...") and map it in [tool.mcpbdd] env, or the',
        "    # feature passes only while the shell supplies the same identity.",
    ]


def caller_from_environment(env_setting: Mapping[str, str], environ: Mapping[str, str]) -> tuple[str, str] | None:
    """(user, tenant) from the variables the `env` setting maps to `{user}` and `{tenant}`, if both are set."""
    user_var = next((name for name, value in env_setting.items() if value == "{user}"), None)
    tenant_var = next((name for name, value in env_setting.items() if value == "{tenant}"), None)
    user = environ.get(user_var) if user_var else None
    tenant = environ.get(tenant_var) if tenant_var else None
    return (user, tenant) if user and tenant else None


def _indent_steps(steps: list[str]) -> list[str]:
    return [f"{INDENT}{s}" for s in steps]


def write_feature(cassette: Cassette, *, replays: int = 2, **target: Unpack[ReplayTarget]) -> str:
    """Replay the session `replays` times against fresh servers (or the server at `url`) and render the feature.

    The server is the one `target` names (a `command` or a `url`), never the cassette's.
    """
    url, command = target.get("url"), target.get("command")
    if not url and not command:
        raise ReplayError("no server to replay against: pass a command or a URL (the cassette's is never run)")
    runs = replay_runs(cassette, replays, target)
    caller = None if url else caller_from_environment(_env_setting(), os.environ)
    return render(cassette, runs, target=url or server_target(command or []), environment_caller=caller)


def _env_setting() -> Mapping[str, str]:
    """The project's `env` setting (`[tool.mcpbdd]`), or nothing when there is no project or it does not load."""
    from mcpbdd.model.config import load_settings

    try:
        return load_settings().env
    except (ValueError, OSError):
        return {}


__all__ = ["caller_from_environment", "plan_carries", "render", "server_target", "write_feature"]
