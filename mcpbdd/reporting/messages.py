"""Cucumber Messages from a behave run: the NDJSON envelope stream every Cucumber tool reads.

    behave --format mcpbdd.reporting.messages:MessagesFormatter --outfile run.ndjson
    mcpbdd run --messages reports/cucumber-messages.ndjson

behave has no such formatter. This one writes, per scenario, the envelopes of the Cucumber
Messages standard: `source`, `gherkinDocument` and `pickle` (from the official Gherkin parser,
`gherkin-official`, so ids, AST and pickles are exactly what Cucumber itself would produce),
`stepDefinition` (behave's step functions), `testCase`, `testCaseStarted`,
`testStepStarted`/`testStepFinished` and `testCaseFinished`, built as the typed dataclasses of
the `cucumber-messages` package and serialised by its converter. Every MCP exchange, input
round, upstream request and trace mcpbdd attaches to a step (through `allure.attach`, which
this formatter also listens to) becomes an `attachment` envelope on that step, so
`@cucumber/html-formatter` shows the exchanges under the steps that made them.

One behave process writes one such file; `mcpbdd run` merges its processes' files into one
stream (`merge_streams`) with a single `meta`, `testRunStarted` and `testRunFinished`. For
that, the ids of a Gherkin document are derived from its path (the same in every process, so
one document serves every pass), and the ids of pickles, test cases and steps are random.

A scenario's envelopes are written when it ends (its steps' matches are known then); the
attachments made during a step keep the step's id and their own time.
"""

from __future__ import annotations

import base64
import contextlib
import importlib.metadata
import importlib.util
import json
import os
import platform
import re
import sys
import time
import uuid
import zlib
from collections.abc import Callable, Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any

import allure_commons
import cucumber_messages as cm
from gherkin.ast_builder import AstBuilder
from gherkin.parser import Parser
from gherkin.pickles.compiler import Compiler, GherkinDocumentWithURI
from gherkin.stream.id_generator import IdGenerator

from mcpbdd.reporting.broken import worded
from mcpbdd.reporting.ci_environment import ci_of
from mcpbdd.reporting.names import display_name
from mcpbdd.reporting.paths import short_paths
from mcpbdd.reporting.per_scenario import PerScenarioFormatter

__all__ = ["MessagesFormatter", "envelope", "hook_failures", "lost_case_envelopes", "merge_streams", "read_envelopes"]

_STATUS = {
    "passed": cm.TestStepResultStatus.passed,
    "failed": cm.TestStepResultStatus.failed,
    "error": cm.TestStepResultStatus.failed,
    "skipped": cm.TestStepResultStatus.skipped,
    "untested": cm.TestStepResultStatus.skipped,
    "undefined": cm.TestStepResultStatus.undefined,
    "pending": cm.TestStepResultStatus.pending,
    "pending_warn": cm.TestStepResultStatus.pending,
    "hook_error": cm.TestStepResultStatus.failed,
}


def envelope(**message: Any) -> dict[str, Any]:
    """One envelope as JSON-ready data (camelCase, empty fields left out), from `cucumber-messages` dataclasses."""
    data: dict[str, Any] = cm.message_converter.to_dict(cm.Envelope(**message))
    return data


def _timestamp(seconds: float | None = None) -> cm.Timestamp:
    seconds = time.time() if seconds is None else seconds
    whole = int(seconds)
    return cm.Timestamp(seconds=whole, nanos=int((seconds - whole) * 1e9))


def _duration(seconds: float) -> cm.Duration:
    whole = int(seconds)
    return cm.Duration(seconds=whole, nanos=int((seconds - whole) * 1e9))


class _PathIds(IdGenerator):
    """Gherkin ids derived from the document's path: the same document parsed in two processes has the same ids."""

    def __init__(self, uri: str) -> None:
        super().__init__()
        self.uri = uri
        self.next = 0

    def get_next_id(self) -> str:
        value = f"{self.uri}#{self.next}"
        self.next += 1
        return value


class _Document:
    """A feature file parsed by the official Gherkin parser: its envelopes and its pickles by line."""

    def __init__(self, uri: str) -> None:
        data = Path(uri).read_text(encoding="utf-8")
        ids = _PathIds(uri)
        document: GherkinDocumentWithURI = {**Parser(ast_builder=AstBuilder(ids)).parse(data), "uri": uri}
        self.source = {"source": {"uri": uri, "data": data, "mediaType": "text/x.cucumber.gherkin+plain"}}
        self.document = {"gherkinDocument": document}
        self.pickles = {pickle["location"]["line"]: pickle for pickle in Compiler(ids).compile(document)}
        self.written = False


class _Attachments:
    """An allure-commons plugin: every `allure.attach` made while a scenario runs, with the step it belongs to."""

    def __init__(self, formatter: MessagesFormatter) -> None:
        self.formatter = formatter

    @allure_commons.hookimpl
    def attach_data(self, body: Any, name: str, attachment_type: Any, extension: Any) -> None:
        self._keep(lambda: body, name, attachment_type)

    @allure_commons.hookimpl
    def attach_file(self, source: Any, name: str, attachment_type: Any, extension: Any) -> None:
        self._keep(lambda: Path(source).read_bytes(), name, attachment_type)

    def _keep(self, body: Callable[[], Any], name: str, attachment_type: Any) -> None:
        try:
            self.formatter.attach(body(), name, _media_type(attachment_type))
        except Exception as exc:  # a report must never fail the step that made the attachment
            print(f"mcpbdd: the Cucumber Messages formatter lost the attachment {name!r}: {exc!r}", file=sys.stderr)


AFTER_SCENARIO_HOOK = "mcpbdd.behave:after_scenario"
"""The hook a scenario's own attachments (not made during a step) belong to: mcpbdd's `after_scenario`."""
BEFORE_SCENARIO_HOOK = "mcpbdd.behave:before_scenario"
"""The hook a failure before the first step belongs to (behave's `before_scenario` or `before_tag`)."""

_HOOKS = {
    AFTER_SCENARIO_HOOK: (
        "after_scenario",
        "mcpbdd: after scenario (trace, input rounds)",
        cm.HookType.after_test_case,
    ),
    BEFORE_SCENARIO_HOOK: ("before_scenario", "mcpbdd: before scenario (the harness)", cm.HookType.before_test_case),
}


def _defined_at(source: Path, function: str) -> int | None:
    """The line of `def function(` at the top level of `source`; None when it defines no such function."""
    try:
        lines = source.read_text(encoding="utf-8").splitlines()
    except OSError:
        return None
    return next((number for number, text in enumerate(lines, 1) if text.startswith(f"def {function}(")), None)


def _hook(hook_id: str, environment: Path | None = None) -> cm.Hook:
    """The `hook` envelope of a scenario hook: the project's own when its environment.py defines one (it runs
    mcpbdd's, or replaces it), else mcpbdd's function in `mcpbdd/behave.py` (what `from mcpbdd.behave import *`
    installs)."""
    function, name, kind = _HOOKS[hook_id]
    line = _defined_at(environment, function) if environment is not None else None
    if environment is not None and line is not None:
        source, name = str(environment), f"{function} ({_relative(str(environment))})"
    else:
        # Found, not imported: the hooks are a higher layer than the reports (and every run has loaded them anyway).
        spec = importlib.util.find_spec("mcpbdd.behave")
        source = spec.origin if spec is not None and spec.origin else "mcpbdd/behave.py"
        line = _defined_at(Path(source), function) or 1
    return cm.Hook(
        id=hook_id,
        name=name,
        type=kind,
        source_reference=cm.SourceReference(uri=_relative(source), location=cm.Location(line=line)),
    )


def hook_failures(scenario: Any) -> tuple[str | None, str | None]:
    """The messages of a failed hook before the steps and of one after them (None where the hooks passed).

    behave marks the scenario `hook_failed` and keeps each hook's `HOOK-ERROR in <hook>: ...`
    in its `error_message` (the first one, then the others appended), which says which hook it was.
    """
    if not getattr(scenario, "hook_failed", False):
        return None, None
    message = str(getattr(scenario, "error_message", None) or "").strip()
    before = message if "HOOK-ERROR in before_" in message else None
    after = message if "HOOK-ERROR in after_" in message or before is None else None
    return before, after or (None if before else "a hook of the scenario failed")


def _relative(path: str) -> str:
    try:
        return str(Path(path).resolve().relative_to(Path.cwd()))
    except ValueError:
        return path


def _regular_expression(matcher: Any) -> str:
    """The step definition's pattern as the anchored regular expression behave matches with.

    behave's patterns are `parse` syntax (`"{user}" calls "{tool}"`), which is not a Cucumber Expression
    (there `{user}` would name an undefined parameter type): a consumer reading them as Cucumber
    Expressions would misread every one. The regular expression parse compiles is exact for both.
    """
    regex = getattr(matcher, "regex_pattern", None)
    return f"^{regex}$" if regex else f"^{re.escape(str(matcher.pattern))}$"


def _step_registry() -> Any:
    """The registry behave's runner matched the steps with.

    behave's runner keeps the registry that existed when `behave.runner` was imported
    (`the_step_registry`), and `behave.runner_util.reset_runtime()` rebinds
    `behave.step_registry.registry` to a new, empty one: the steps are in whichever has them.
    """
    import behave.runner
    import behave.step_registry

    for candidate in (getattr(behave.runner, "the_step_registry", None), behave.step_registry.registry):
        if candidate is not None and any(candidate.steps.values()):
            return candidate
    return behave.step_registry.registry


def _media_type(attachment_type: Any) -> str:
    if attachment_type is None:
        return "text/plain"
    return str(getattr(attachment_type, "mime_type", attachment_type))


class MessagesFormatter(PerScenarioFormatter):
    """`--format mcpbdd.reporting.messages:MessagesFormatter --outfile FILE.ndjson`."""

    name = "mcpbdd.reporting.messages"
    description = "Cucumber Messages (NDJSON), with each MCP exchange attached to its step"

    def __init__(self, stream_opener: Any, config: Any) -> None:
        super().__init__(stream_opener, config)
        self.documents: dict[str, _Document] = {}
        self.definitions: set[str] = set()
        self.patterns: dict[Any, str] | None = None
        self.hooks_written: set[str] = set()
        self.hook_exception = "AssertionError"
        self.scope = uuid.uuid4().hex[:12]
        self.started_at = 0.0
        self.steps: list[Any] = []
        self.matches: list[Any] = []
        self.step_started: list[float] = []
        self.attachments: list[tuple[int | None, dict[str, Any]]] = []
        self.results = 0  # how many steps of the current scenario behave reported the result of (`result`)
        self.plugin = _Attachments(self)
        allure_commons.plugin_manager.register(self.plugin)
        self._write([envelope(test_run_started=cm.TestRunStarted(timestamp=_timestamp(), id=self.scope))])

    # behave's callbacks ------------------------------------------------------------------------------

    def feature(self, feature: Any) -> None:
        uri = str(feature.filename)
        if uri not in self.documents:
            self.documents[uri] = _Document(uri)

    def follows(self, scenario: Any) -> bool:
        if not scenario.should_run_with_tags(self.config.tag_expression):
            return False  # left out by tags: no test case
        self.started_at = time.time()
        self.steps, self.matches, self.step_started, self.attachments = list(scenario.all_steps), [], [], []
        self.results = 0
        return True

    def match(self, match: Any) -> None:
        if self.current is not None:
            self.matches.append(match)
            self.step_started.append(time.time())

    def close(self) -> None:
        self._finish_current()
        with contextlib.suppress(ValueError):
            allure_commons.plugin_manager.unregister(self.plugin)
        super().close()

    def attach(self, body: Any, name: str, media_type: str) -> None:
        """An attachment made now: on the running step (the last matched one), else on the scenario."""
        if self.current is None:
            return
        if isinstance(body, bytes):
            try:
                text, encoding = body.decode("utf-8"), cm.AttachmentContentEncoding.identity
            except UnicodeDecodeError:
                text, encoding = base64.b64encode(body).decode("ascii"), cm.AttachmentContentEncoding.base64
        else:
            text, encoding = str(body), cm.AttachmentContentEncoding.identity
        step = len(self.matches) - 1 if self.matches and not self._step_done() else None
        message = {"body": text, "content_encoding": encoding, "media_type": media_type, "file_name": name}
        self.attachments.append((step, {**message, "timestamp": _timestamp()}))

    def result(self, step: Any) -> None:
        """behave reports a step's result (after its `after_step` hook, whose attachments are still the step's)."""
        if self.current is not None:
            self.results += 1

    def _step_done(self) -> bool:
        """True once behave reported the last matched step's result (an attachment now belongs to the scenario, e.g.
        a hook's); the status is set before `after_step`, whose attachments (what the step heard) are the step's."""
        index = len(self.matches) - 1
        return index >= len(self.steps) or self.results > index

    # the envelopes of one scenario --------------------------------------------------------------------

    def finished(self, scenario: Any) -> None:
        document = self.documents.get(str(scenario.feature.filename))
        pickle: Mapping[str, Any] | None = document.pickles.get(int(scenario.line)) if document is not None else None
        if document is None or pickle is None:
            return  # behave ran something the Gherkin parser does not see as a scenario: nothing to map it to
        out: list[dict[str, Any]] = []
        if not document.written:
            out += [document.source, document.document]
            document.written = True
        pickle = self._own_pickle(pickle, scenario)
        out.append({"pickle": pickle})
        steps = list(scenario.all_steps)
        definitions = [self._definition(step, index, out) for index, step in enumerate(steps)]
        test_steps = [
            cm.TestStep(
                id=f"{pickle['id']}/step-{index}",
                pickle_step_id=pickle_step["id"],
                step_definition_ids=[definitions[index]] if definitions[index] else [],
                step_match_arguments_lists=[cm.StepMatchArgumentsList(step_match_arguments=self._arguments(index))]
                if definitions[index]
                else None,
            )
            for index, pickle_step in enumerate(pickle["steps"][: len(steps)])
        ]
        after = [message for at, message in self.attachments if at is None]
        failed_before, failed_after = hook_failures(scenario)
        self.hook_exception = type(getattr(scenario, "exception", None) or AssertionError()).__name__
        before_step = cm.TestStep(id=f"{pickle['id']}/before", hook_id=BEFORE_SCENARIO_HOOK) if failed_before else None
        after_step = (
            cm.TestStep(id=f"{pickle['id']}/after", hook_id=AFTER_SCENARIO_HOOK) if after or failed_after else None
        )
        for hook_step in (before_step, after_step):
            if hook_step is not None and hook_step.hook_id not in self.hooks_written:
                self.hooks_written.add(str(hook_step.hook_id))
                out.append(envelope(hook=_hook(str(hook_step.hook_id), self._environment())))
        case_steps = [s for s in (before_step, *test_steps, after_step) if s is not None]
        case_id, started_id = f"{pickle['id']}/case", f"{pickle['id']}/started"
        out.append(envelope(test_case=cm.TestCase(id=case_id, pickle_id=pickle["id"], test_steps=case_steps)))
        out.append(
            envelope(
                test_case_started=cm.TestCaseStarted(
                    attempt=0, id=started_id, test_case_id=case_id, timestamp=_timestamp(self.started_at)
                )
            )
        )
        clock = self.started_at
        if before_step is not None:  # the hook that kept the steps from running
            out += self._hook_run(before_step.id, started_id, clock, [], failed_before)
        skip_reason = str(getattr(scenario, "skip_reason", None) or "") or None
        for index, test_step in enumerate(test_steps):
            step = steps[index]
            began = self.step_started[index] if index < len(self.step_started) else clock
            took = float(getattr(step, "duration", 0.0) or 0.0)
            out.append(
                envelope(
                    test_step_started=cm.TestStepStarted(
                        test_case_started_id=started_id, test_step_id=test_step.id, timestamp=_timestamp(began)
                    )
                )
            )
            out += [
                self._attachment(message, started_id, test_step.id) for at, message in self.attachments if at == index
            ]
            finished = self._finished(step, started_id, test_step.id, began + took, skip_reason)
            out.append(envelope(test_step_finished=finished))
            clock = began + took
        if after_step is not None:  # the after_scenario hook: what it attached (a failed scenario's trace), its failure
            out += self._hook_run(after_step.id, started_id, max(clock, time.time()), after, failed_after)
        out.append(
            envelope(
                test_case_finished=cm.TestCaseFinished(
                    test_case_started_id=started_id,
                    timestamp=_timestamp(max(clock, time.time())),
                    will_be_retried=False,
                )
            )
        )
        self._write(out)

    def _own_pickle(self, pickle: Mapping[str, Any], scenario: Any) -> dict[str, Any]:
        """The pickle with ids of this process (one pass of several may run the same scenario) and the scenario's
        one name (`mcpbdd.reporting.names`: an Outline row by its values, then the pass), as every format has it."""
        own = f"{self.scope}:{pickle['id']}"
        steps = [{**step, "id": f"{own}/{step['id']}"} for step in pickle["steps"]]
        return {**pickle, "id": own, "name": display_name(scenario), "steps": steps}

    def _arguments(self, index: int) -> list[cm.StepMatchArgument]:
        """The values the step definition took from the step's text, where they are in it (consumers highlight them)."""
        match = self.matches[index] if index < len(self.matches) else None
        arguments = []
        for argument in getattr(match, "arguments", None) or []:
            start, original = getattr(argument, "start", None), getattr(argument, "original", None)
            if start is None or original is None:
                continue
            group = cm.Group(start=int(start), value=str(original), children=[])
            arguments.append(cm.StepMatchArgument(group=group))
        return arguments

    def _definition(self, step: Any, index: int, out: list[dict[str, Any]]) -> str | None:
        """The id of the step definition that ran (or would have run) the step; its envelope the first time."""
        from behave.matchers import Match

        registry = _step_registry()
        match = self.matches[index] if index < len(self.matches) else None
        func = getattr(match, "func", None)
        if func is None:  # not run (a step before it failed): the definition it would have run
            definition = registry.find_step_definition(step)
            if definition is None:
                return None
            func = definition.func
        location = Match.make_location(func)
        if self.patterns is None:
            self.patterns = {m.func: _regular_expression(m) for ms in registry.steps.values() for m in ms}
        source = self.patterns.get(func, f"^{re.escape(func.__name__)}$")
        # Phrasings registered from one table share their function's line: the pattern tells them apart
        # (and is the same in every process, so the merged run keeps each definition once).
        key = f"{location.filename}:{location.line}:{zlib.crc32(source.encode()):08x}"
        if key not in self.definitions:
            self.definitions.add(key)
            pattern = cm.StepDefinitionPattern(source=source, type=cm.StepDefinitionPatternType.regular_expression)
            uri = _relative(os.path.abspath(str(location.filename)))
            reference = cm.SourceReference(uri=uri, location=cm.Location(line=int(location.line)))
            out.append(envelope(step_definition=cm.StepDefinition(id=key, pattern=pattern, source_reference=reference)))
        return key

    def _environment(self) -> Path | None:
        """The project's environment.py, where its hooks are (behave's base folder, once behave has found it)."""
        base = getattr(self.config, "base_dir", None)
        if not base:
            return None
        path = Path(base) / str(getattr(self.config, "environment_file", None) or "environment.py")
        return path if path.is_file() else None

    def _hook_run(
        self, step_id: str, started_id: str, at: float, attachments: list[dict[str, Any]], failure: str | None
    ) -> list[dict[str, Any]]:
        """A hook's step: started, its attachments, finished (failed with behave's message when the hook failed)."""
        stamp = _timestamp(at)
        started = cm.TestStepStarted(test_case_started_id=started_id, test_step_id=step_id, timestamp=stamp)
        status = cm.TestStepResultStatus.failed if failure else cm.TestStepResultStatus.passed
        failure = short_paths(failure) if failure else failure
        raised = cm.Exception(type=self.hook_exception, message=failure[:2000]) if failure else None
        result = cm.TestStepResult(duration=_duration(0.0), status=status, message=failure, exception=raised)
        finished = cm.TestStepFinished(
            test_case_started_id=started_id, test_step_id=step_id, test_step_result=result, timestamp=stamp
        )
        return [
            envelope(test_step_started=started),
            *(self._attachment(message, started_id, step_id) for message in attachments),
            envelope(test_step_finished=finished),
        ]

    def _attachment(self, message: dict[str, Any], started_id: str, step_id: str | None) -> dict[str, Any]:
        return envelope(attachment=cm.Attachment(**message, test_case_started_id=started_id, test_step_id=step_id))

    def _finished(
        self, step: Any, started_id: str, step_id: str, at: float, skip_reason: str | None = None
    ) -> cm.TestStepFinished:
        status = str(getattr(step.status, "name", step.status))
        message = None
        exception = None
        if status in ("skipped", "untested"):
            message = skip_reason  # why the scenario was skipped as it ran (a pass that cannot run it)
        elif status in ("failed", "error"):
            message = worded(step)
            raised = getattr(step, "exception", None)
            if raised is not None:
                exception = cm.Exception(type=type(raised).__name__, message=str(raised)[:2000] or None)
        result = cm.TestStepResult(
            duration=_duration(float(getattr(step, "duration", 0.0) or 0.0)),
            status=_STATUS.get(status, cm.TestStepResultStatus.unknown),
            message=message,
            exception=exception,
        )
        return cm.TestStepFinished(
            test_case_started_id=started_id, test_step_id=step_id, test_step_result=result, timestamp=_timestamp(at)
        )

    def _write(self, envelopes: Iterable[dict[str, Any]]) -> None:
        self.stream.write("".join(json.dumps(e, ensure_ascii=False, separators=(",", ":")) + "\n" for e in envelopes))
        self.stream.flush()


def lost_case_envelopes(uri: str, line: int, title: str, message: str) -> list[dict[str, Any]]:
    """A scenario whose process ended before it reported (`mcpbdd.reporting.lost`): its document, its pickle and
    a test case whose first step failed with `message`, the rest skipped. Empty when no pickle is at `line`."""
    document = _Document(uri)
    compiled = document.pickles.get(line)
    if compiled is None:
        return []
    own = f"lost-{uuid.uuid4().hex[:12]}:{compiled['id']}"
    steps = [{**step, "id": f"{own}/{step['id']}"} for step in compiled["steps"]]
    pickle: dict[str, Any] = {**compiled, "id": own, "name": title, "steps": steps}
    test_steps = [cm.TestStep(id=f"{own}/step-{i}", pickle_step_id=step["id"]) for i, step in enumerate(steps)]
    case_id, started_id, at = f"{own}/case", f"{own}/started", _timestamp()
    out: list[dict[str, Any]] = [document.source, document.document, {"pickle": pickle}]
    out.append(envelope(test_case=cm.TestCase(id=case_id, pickle_id=own, test_steps=test_steps)))
    started = cm.TestCaseStarted(attempt=0, id=started_id, test_case_id=case_id, timestamp=at)
    out.append(envelope(test_case_started=started))
    for index, test_step in enumerate(test_steps):
        status = cm.TestStepResultStatus.failed if index == 0 else cm.TestStepResultStatus.skipped
        result = cm.TestStepResult(duration=_duration(0.0), status=status, message=message if index == 0 else None)
        ids = {"test_case_started_id": started_id, "test_step_id": test_step.id, "timestamp": at}
        out.append(envelope(test_step_started=cm.TestStepStarted(**ids)))
        out.append(envelope(test_step_finished=cm.TestStepFinished(**ids, test_step_result=result)))
    finished = cm.TestCaseFinished(test_case_started_id=started_id, timestamp=at, will_be_retried=False)
    out.append(envelope(test_case_finished=finished))
    return out


# merging the processes' streams --------------------------------------------------------------------


def read_envelopes(path: Path) -> Iterator[dict[str, Any]]:
    try:
        handle = path.open(encoding="utf-8")
    except FileNotFoundError:
        return
    with handle:
        for line in handle:
            if line.strip():
                yield json.loads(line)


def _meta() -> dict[str, Any]:
    from mcpbdd._version import __version__

    return envelope(
        meta=cm.Meta(
            protocol_version=importlib.metadata.version("cucumber-messages"),
            implementation=cm.Product(name="mcpbdd", version=__version__),
            runtime=cm.Product(name=platform.python_implementation(), version=platform.python_version()),
            os=cm.Product(name=sys.platform, version=platform.release()),
            cpu=cm.Product(name=platform.machine() or "unknown"),
            ci=ci_of(os.environ),
        )
    )


def _once_key(item: dict[str, Any]) -> str | None:
    """What may appear once in a run: a document's source and AST (by path), a step definition, a hook (by id)."""
    if "source" in item:
        return f"source:{item['source']['uri']}"
    if "gherkinDocument" in item:
        return f"document:{item['gherkinDocument']['uri']}"
    for kind in ("stepDefinition", "hook"):
        if kind in item:
            return f"{kind}:{item[kind]['id']}"
    return None


def merge_streams(parts: Iterable[Path], output: Path, *, success: bool) -> int:
    """The processes' streams as one run: one meta, testRunStarted (the earliest), every document once, every
    test case, one testRunFinished. Returns the number of envelopes written."""
    run_id = uuid.uuid4().hex
    started: dict[str, Any] | None = None
    body: list[str] = []
    seen: set[str] = set()
    for part in parts:
        for item in read_envelopes(part):
            if "testRunStarted" in item:
                stamp = item["testRunStarted"]["timestamp"]
                if started is None or (stamp["seconds"], stamp["nanos"]) < (started["seconds"], started["nanos"]):
                    started = stamp
                continue
            if "testRunFinished" in item or "meta" in item:
                continue
            once = _once_key(item)
            if once is not None:
                if once in seen:
                    continue  # a document, step definition or hook another process wrote already
                seen.add(once)
            if "testCase" in item:
                item["testCase"]["testRunStartedId"] = run_id
            body.append(json.dumps(item, ensure_ascii=False, separators=(",", ":")))
    first = envelope(test_run_started=cm.TestRunStarted(timestamp=_timestamp(), id=run_id))
    if started is not None:
        first["testRunStarted"]["timestamp"] = started
    last = envelope(
        test_run_finished=cm.TestRunFinished(success=success, timestamp=_timestamp(), test_run_started_id=run_id)
    )
    lines = [json.dumps(_meta()), json.dumps(first), *body, json.dumps(last)]
    output.parent.mkdir(parents=True, exist_ok=True)
    output.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return len(lines)
