"""mcpbdd's Allure formatter for behave: allure-behave 2.16.2, with what it gets wrong fixed.

    behave --format mcpbdd.reporting.allure_formatter:AllureFormatter --outfile reports/allure-results

`mcpbdd run` uses it by default. It is a subclass of allure-behave's formatter and
listener, not a rewrite: allure-behave already does the hard, stable part (the Allure
result model, step timing, attachments through `allure.attach`, the test-plan
filter), and a subclass keeps that behaviour and its future fixes. What we override is
small and each override is a fix we rely on (each has a test in
`tests/spawning/test_allure_formatter.py` that fails on plain allure-behave):

- Scenarios inside `Rule:` are reported (allure-behave wraps only `feature.scenarios`,
  so a rule's scenarios are dropped, and a table in one crashes the formatter); the rule
  becomes the `story` (unless a tag names one), the sub-suite and part of the title path.
- `allure.dynamic.label/severity/title/parameter/tag/epic/story` are honoured (allure-behave's
  listener does not implement those hooks, so they were silently ignored).
- A failing `before_feature` (or `before_rule`/`before_tag`) hook no longer loses the
  feature's results: every scenario that never started is reported as *broken* with the
  hook's error; a failing `before_scenario`/`after_scenario` hook makes the scenario
  broken with its message instead of "skipped" or "passed".
- Labels from tags, on every level (feature, rule, outline, scenario): `@tool.<name>`,
  `@tenant.<id>`, `@severity.<level>` (or allure's `@critical` etc.), `@epic.<name>`,
  `@feature.<name>`, `@story.<name>`, `@owner.<name>` (an underscore in a tag reads as a space).
- The history id includes the parameters (Allure's own rule), so the same scenario run
  on two harnesses is two tests, not one test with a retry.
- Configured secrets (`secrets` under `[tool.mcpbdd]` or `-D mcpbdd.secrets=...`) are
  redacted, in every encoding `mcpbdd.model.redaction` knows, from every file written:
  results (step names, error messages, traces, parameters) and attachments, whoever
  attached them.
- *Failed* means the server did not meet an expectation; *broken* means the specification or
  its set-up is wrong (a malformed doc string, an unknown word, a bad setting, a check that
  would check nothing, a server that cannot start: `mcpbdd.model.errors.Broken`), as well as any
  other error. allure-behave calls every AssertionError failed. An expectation's or a
  mistake's failure text keeps only the frames of the project's own code: mcpbdd's and
  behave's frames say nothing about the server (an unexpected error keeps its whole trace).
- Results are serialised with one `json.dumps` and one write per file, which keeps this
  formatter's overhead per scenario at or under allure-behave's (see `bench/bench_formatter.py`).
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import sysconfig
import traceback
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import allure_commons
import behave
from allure_behave.formatter import AllureFormatter as _AllureBehaveFormatter
from allure_behave.listener import AllureListener as _AllureBehaveListener
from allure_behave.utils import (
    TEST_PLAN_SKIP_REASON,
    get_title_path,
    is_planned_scenario,
    scenario_parameters,
    step_status,
    step_status_details,
    step_table,
)
from allure_commons.logger import AllureFileLogger
from allure_commons.mapping import parse_tag
from allure_commons.model2 import Label, Link, Parameter, Status, StatusDetails, TestResult, TestStepResult
from allure_commons.types import ALLURE_UNIQUE_LABELS, AttachmentType, LabelType
from allure_commons.utils import format_traceback, md5, now, uuid4
from behave.formatter.base import Formatter
from behave.model import Feature, Rule, ScenarioOutline

from mcpbdd.model.config import JOB_ENV
from mcpbdd.model.redaction import Redactor, redactor_for
from mcpbdd.reporting.broken import is_expectation
from mcpbdd.reporting.names import outline_row_name
from mcpbdd.reporting.paths import short_paths

__all__ = ["AllureFormatter", "McpbddListener", "RedactingFileLogger", "outline_row_name", "tag_labels", "verdict"]

# Tag prefixes that become Allure labels: `@tool.create_note` -> label tool=create_note.
TAG_LABELS = {
    "tool": "tool",
    "tenant": "tenant",
    "severity": LabelType.SEVERITY,
    "epic": LabelType.EPIC,
    "feature": LabelType.FEATURE,
    "story": LabelType.STORY,
    "owner": "owner",
}
_SPACED = {LabelType.EPIC, LabelType.FEATURE, LabelType.STORY}


def tag_labels(tags: Iterable[str]) -> list[Label]:
    """The labels a scenario's tags give it (feature, rule, outline and scenario tags alike)."""
    labels: list[Label] = []
    for tag in tags:
        prefix, dot, value = tag.partition(".")
        if dot and value and prefix in TAG_LABELS:
            name = TAG_LABELS[prefix]
            labels.append(Label(name=name, value=value.replace("_", " ") if name in _SPACED else value))
            continue
        parsed = parse_tag(tag)  # allure's own: @critical, @allure.label.owner:x, ... (links are not labels)
        if isinstance(parsed, Label):
            labels.append(parsed)
    return labels


def _container(scenario: Any) -> tuple[Any | None, Any | None]:
    """(the Rule the scenario belongs to or None, the ScenarioOutline it came from or None)."""
    rule = outline = None
    parent = getattr(scenario, "parent", None)
    while parent is not None and not isinstance(parent, Feature):
        if isinstance(parent, Rule) and rule is None:
            rule = parent
        elif isinstance(parent, ScenarioOutline) and outline is None:
            outline = parent
        parent = getattr(parent, "parent", None)
    return rule, outline


def _merge_labels(labels: list[Label], new: Iterable[Label]) -> list[Label]:
    """Add labels; a unique label (severity, thread, host) replaces the earlier one; exact duplicates are dropped."""
    merged = list(labels)
    for label in new:
        if label.name in ALLURE_UNIQUE_LABELS:
            merged = [existing for existing in merged if existing.name != label.name]
        elif any(existing.name == label.name and existing.value == label.value for existing in merged):
            continue
        merged.append(label)
    return merged


class McpbddListener(_AllureBehaveListener):  # type: ignore[misc]  # allure-behave ships no types: its listener is Any
    """allure-behave's listener plus rules, dynamic metadata, hook failures and labels from tags."""

    def __init__(self, behave_config: Any) -> None:
        super().__init__(behave_config)
        self.started: set[int] = set()
        """ids of the scenarios whose result was started (the rest of a feature is reported at its end)."""
        job = os.environ.get(JOB_ENV)
        self.thread = f"job {job}" if job else f"pid {os.getpid()}"
        self.host = socket.gethostname()

    # scenarios ------------------------------------------------------------------------------------

    def start_scenario(self, scenario: Any) -> None:
        """allure-behave's test result, built once with our labels (its own are computed, then discarded)."""
        self.current_scenario_uuid = uuid4()
        self.group_context.enter()
        self.started.add(id(scenario))
        rule, _outline = _container(scenario)
        name = scenario.name or scenario.keyword
        feature_name = scenario.feature.name or scenario.feature.keyword
        case = name.rsplit(" -- ")[0]  # an outline's examples are one test case with parameters (as allure-behave)
        name = outline_row_name(scenario, name)
        full_name = f"{feature_name}: {rule.name}: {case}" if rule is not None else f"{feature_name}: {case}"
        labels, links = self._labels_and_links(scenario, rule, feature_name)
        title_path = get_title_path(scenario)
        test = TestResult(
            uuid=self.current_scenario_uuid,
            start=now(),
            name=name,
            fullName=full_name,
            testCaseId=md5(full_name),
            titlePath=[*title_path, rule.name] if rule is not None else title_path,
            description="\n".join(scenario.description),
            parameters=scenario_parameters(scenario) or [],
            labels=labels,
            links=links,
        )
        self.logger.schedule_test(self.current_scenario_uuid, test)

    def _labels_and_links(self, scenario: Any, rule: Any, feature_name: str) -> tuple[list[Label], list[Link]]:
        tags = sorted(scenario.effective_tags)
        labels: list[Label] = [Label(name=LabelType.SEVERITY, value="normal")]
        from_tags = tag_labels(tags)
        if not any(label.name == LabelType.FEATURE for label in from_tags):
            labels.append(Label(name=LabelType.FEATURE, value=feature_name))
        labels.append(Label(name=LabelType.SUITE, value=feature_name))
        if rule is not None:
            labels.append(Label(name=LabelType.SUB_SUITE, value=rule.name))
            if not any(label.name == LabelType.STORY for label in from_tags):
                labels.append(Label(name=LabelType.STORY, value=rule.name))
        labels = _merge_labels(labels, from_tags)
        labels += [
            Label(name=LabelType.FRAMEWORK, value="behave"),
            Label(name="language", value="python"),
            Label(name=LabelType.HOST, value=self.host),
            Label(name=LabelType.THREAD, value=self.thread),
        ]
        links: dict[str, Link] = {}
        for tag in tags:
            if tag.startswith("allure."):
                parsed = parse_tag(tag, issue_pattern=self.issue_pattern, link_pattern=self.link_pattern)
                if isinstance(parsed, Link):
                    links.setdefault(parsed.url, parsed)
        return labels, list(links.values())

    def stop_scenario(self, scenario: Any) -> None:
        tag_expression = self.behave_config.tag_expression
        should_run = scenario.should_run_with_tags(tag_expression) and scenario.should_run_with_name_select(
            self.behave_config
        )
        if scenario.should_skip and not scenario.skip_reason and scenario.status == "skipped":
            should_run = False  # left out by `file:line` locations (behave marks those skipped, with no reason)
        # --no-skipped drops what tags or names left out; a scenario skipped while running keeps its result
        drop_skipped = scenario.status == "skipped" and not self.behave_config.show_skipped and not should_run
        drop_excluded = self.hide_excluded and (scenario.skip_reason == TEST_PLAN_SKIP_REASON or not should_run)
        if (drop_skipped and not scenario.hook_failed) or drop_excluded:
            self.logger.drop_test(self.current_scenario_uuid)
            self.current_scenario_uuid = None
            return
        self.flush_steps()
        test: TestResult = self.logger.get_test(self.current_scenario_uuid)
        test.stop = now()
        if scenario.hook_failed:
            test.status = Status.BROKEN
            test.statusDetails = _hook_details(scenario)
        else:
            test.status, test.statusDetails = _scenario_verdict(scenario)
            if test.status == Status.SKIPPED:
                _skipped_because(test, scenario.skip_reason)
        self._finish(test, scenario)
        self.logger.close_test(self.current_scenario_uuid)
        self.current_step_uuid = None
        self.group_context.append_test(self.current_scenario_uuid)
        self.group_context.exit()
        self.current_scenario_uuid = None

    def _finish(self, test: TestResult, scenario: Any) -> None:
        """History id from feature, rule, name and every parameter that is not excluded."""
        rule, _outline = _container(scenario)
        parameters = sorted(f"{p.name}={p.value}" for p in test.parameters or [] if not p.excluded)
        test.historyId = md5(scenario.feature.name, rule.name if rule else "", scenario.name, *parameters)

    def report_unstarted(self, scenario: Any, details: StatusDetails) -> None:
        """A scenario that never ran because a hook above it failed: broken, with the hook's error and its steps."""
        self.start_scenario(scenario)
        for step in scenario.all_steps:
            self.start_behave_step(step)
            self.logger.stop_step(self.current_step_uuid, stop=now(), status=Status.SKIPPED)
        test: TestResult = self.logger.get_test(self.current_scenario_uuid)
        test.stop = now()
        test.status = Status.BROKEN
        test.statusDetails = details
        self._finish(test, scenario)
        self.logger.close_test(self.current_scenario_uuid)
        self.group_context.append_test(self.current_scenario_uuid)
        self.group_context.exit()
        self.current_scenario_uuid = None
        self.current_step_uuid = None

    def stop_behave_step(self, result: Any) -> None:
        """As allure-behave, with a mistake in the specification broken, not failed (see `verdict`)."""
        self.logger.stop_step(
            self.current_step_uuid, stop=now(), status=_step_status(result), statusDetails=_step_details(result)
        )

    def start_behave_step(self, step: Any) -> None:
        """As allure-behave, with the step's data named for a reader: `doc string`, `table` (not `.text`, `.table`)."""
        self.current_step_uuid = uuid4()
        self.logger.start_step(
            None, self.current_step_uuid, TestStepResult(name=f"{step.keyword} {step.name}", start=now())
        )
        if step.text:
            self.logger.attach_data(uuid4(), step.text, name="doc string", attachment_type=AttachmentType.TEXT)
        if step.table:
            self.logger.attach_data(uuid4(), step_table(step), name="table", attachment_type=AttachmentType.CSV)

    # dynamic metadata (allure.dynamic.*) ------------------------------------------------------------

    def _current(self) -> TestResult | None:
        if self.current_scenario_uuid is None:
            return None
        result: TestResult | None = self.logger.get_test(self.current_scenario_uuid)
        return result

    @allure_commons.hookimpl
    def add_title(self, test_title: str) -> None:
        test = self._current()
        if test is not None:
            test.name = test_title

    @allure_commons.hookimpl
    def add_label(self, label_type: Any, labels: Sequence[Any]) -> None:
        test = self._current()
        if test is not None:
            name = getattr(label_type, "value", label_type)
            values = [getattr(value, "value", value) for value in labels]
            test.labels = _merge_labels(test.labels, (Label(name=name, value=value) for value in values))

    @allure_commons.hookimpl
    def add_parameter(self, name: str, value: Any, excluded: bool | None, mode: Any) -> None:
        test = self._current()
        if test is not None:
            mode_value = getattr(mode, "value", mode)
            parameter = Parameter(name=name, value=str(value), excluded=excluded, mode=mode_value)
            test.parameters = [p for p in test.parameters or [] if p.name != name] + [parameter]


def verdict(exception: BaseException) -> str:
    """*failed* for an expectation the server did not meet; *broken* for a mistake in the specification or set-up.

    Allure's convention (an AssertionError fails, anything else breaks), except that
    `mcpbdd.model.errors.Broken` (an AssertionError so that behave prints no traceback for it) breaks.
    """
    return Status.FAILED if is_expectation(exception) else Status.BROKEN


def _step_status(result: Any) -> Any:
    return verdict(result.exception) if result.exception else step_status(result)


def _step_details(result: Any) -> StatusDetails | None:
    """allure-behave's details; for an expectation or a mistake, the trace without mcpbdd's and behave's frames."""
    details: StatusDetails | None = step_status_details(result)
    if (
        details is not None
        and isinstance(result.exception, AssertionError)
        and not isinstance(result.exc_traceback, list)
    ):
        details.trace = _project_frames(result.exc_traceback)
    if details is not None and details.trace:
        details.trace = short_paths(details.trace)
    return details


SKIPPED_BECAUSE = "Skipped: "
"""How a skipped scenario's description starts: the reason it was skipped, where the report shows it as such."""


def _skipped_because(test: TestResult, reason: str | None) -> None:
    """Why a scenario was skipped (a run-time skip, a hook's `skip()`) leads its description, not its status
    details: Allure 3 shows status details in a box titled "Error", and a skip is no error."""
    reason = reason or (test.statusDetails.message if test.statusDetails is not None else None)
    if not reason:
        return
    test.statusDetails = None
    test.description = f"{SKIPPED_BECAUSE}{reason}" + (f"\n\n{test.description}" if test.description else "")


def _scenario_verdict(scenario: Any) -> tuple[Any, StatusDetails | None]:
    """The first step that did not pass decides, as in allure-behave (with our verdict)."""
    for step in scenario.all_steps:
        status = _step_status(step)
        if status != Status.PASSED:
            return status, _step_details(step)
    return Status.PASSED, None


_RUNNER_FOLDERS = (
    str(Path(__file__).resolve().parent.parent) + os.sep,  # mcpbdd itself
    str(Path(behave.__file__).resolve().parent) + os.sep,
    str(Path(sysconfig.get_paths()["stdlib"]).resolve()) + os.sep,
)
"""Frames from here (mcpbdd, behave, the standard library) ran the step; they did not decide its outcome."""


def _project_frames(tb: Any) -> str | None:
    """The traceback's frames outside mcpbdd and behave (a project's own step code), or None when there are none."""
    kept = [
        frame
        for frame in traceback.extract_tb(tb)
        if not str(Path(frame.filename).resolve()).startswith(_RUNNER_FOLDERS)
    ]
    return "".join(traceback.format_list(kept)) or None


def _hook_details(entity: Any) -> StatusDetails:
    """The error a failed hook left on a feature, rule or scenario (behave keeps the first one), as status details."""
    message = getattr(entity, "error_message", None) or f"a hook of {entity.keyword} {entity.name!r} failed"
    trace = format_traceback(getattr(entity, "exc_traceback", None))
    return StatusDetails(message=short_paths(message), trace=short_paths(trace) if trace else trace)


def _failed_parent(scenario: Any) -> Any | None:
    parent = getattr(scenario, "parent", None)
    while parent is not None:
        if getattr(parent, "hook_failed", False):
            return parent
        parent = getattr(parent, "parent", None)
    return None


class RedactingFileLogger(AllureFileLogger):
    """allure-commons' file logger with every secret redacted, and one write per file.

    Redacting here, where files are written, covers everything: our attachments, the step
    text and tables allure-behave attaches, step names, error messages and tracebacks.
    """

    def __init__(self, report_dir: str | Path, redactor: Redactor) -> None:
        super().__init__(report_dir)  # type: ignore[no-untyped-call]  # allure-commons leaves it unannotated
        self.redactor = redactor
        self._folder = str(self._report_dir)

    def _report_item(self, item: Any) -> None:
        """A result or container: written to a temporary name, then renamed (a watcher never reads half a file)."""
        filename = item.file_pattern.format(prefix=uuid4())
        text = self.redactor.redact_json(json.dumps(_plain(item), ensure_ascii=False))
        temporary = f"{self._folder}/{filename}.tmp"
        _write(temporary, text.encode("utf-8"))
        os.replace(temporary, f"{self._folder}/{filename}")

    @allure_commons.hookimpl
    def report_attached_data(self, body: str | bytes, file_name: str) -> None:
        """An attachment: written in place (only a result file, written after it, makes a reader look for it)."""
        _write(f"{self._folder}/{file_name}", self.redactor.redact_bytes(body))

    @allure_commons.hookimpl
    def report_attached_file(self, source: str | Path, file_name: str) -> None:
        if not self.redactor:
            shutil.copy2(source, self._report_dir / file_name)
            return
        _write(f"{self._folder}/{file_name}", self.redactor.redact_bytes(Path(source).read_bytes()))


def _write(path: str, data: bytes) -> None:
    """One open, one write, one close (no buffered file object): a report writes thousands of small files."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view) :]
    finally:
        os.close(fd)


def _plain(item: Any) -> Any:
    """attrs model -> JSON-ready dict, dropping empty fields (what `attr.asdict(filter=...)` does, ~2x faster)."""
    fields = getattr(type(item), "__attrs_attrs__", None)
    if fields is not None:
        out = {}
        for field in fields:
            value = getattr(item, field.name)
            if value or value is False:
                out[field.name] = _plain(value)
        return out
    if isinstance(item, list | tuple):
        return [_plain(value) for value in item]
    if isinstance(item, dict):
        return {key: _plain(value) for key, value in item.items()}
    return getattr(item, "value", item) if not isinstance(item, str | int | float | bool) else item


class AllureFormatter(_AllureBehaveFormatter):  # type: ignore[misc]  # allure-behave ships no types: Any
    """`--format mcpbdd.reporting.allure_formatter:AllureFormatter --outfile <results dir>`."""

    name = "mcpbdd.reporting.allure_formatter"
    description = "Allure results (allure-behave, with rules, dynamic metadata, hook failures and redaction fixed)"

    def __init__(self, stream_opener: Any, config: Any) -> None:
        # Not super().__init__: that builds allure-behave's own listener and file logger.
        Formatter.__init__(self, stream_opener, config)
        self.listener = McpbddListener(config)
        self.file_logger = RedactingFileLogger(self.stream_opener.name, redactor_for(_secrets(config)))
        allure_commons.plugin_manager.register(self.listener)
        allure_commons.plugin_manager.register(self.file_logger)
        self.testplan = allure_commons.utils.get_testplan()
        self.feature_scenarios: list[Any] = []
        _write_environment(self.stream_opener.name, config)

    def feature(self, feature: Any) -> None:
        """Wrap every scenario, including those inside rules and outlines (allure-behave misses rules)."""
        self.feature_scenarios = feature.walk_scenarios()
        for scenario in self.feature_scenarios:
            scenario.run = allure_commons.test(scenario.run, context={"scenario": scenario})
            is_planned_scenario(scenario, self.testplan)

    def eof(self) -> None:
        """Before closing the feature: report the scenarios a failed hook above them kept from running."""
        for scenario in self.feature_scenarios:
            if id(scenario) in self.listener.started:
                continue
            failed = _failed_parent(scenario)
            if failed is not None:
                self.listener.report_unstarted(scenario, _hook_details(failed))
        self.feature_scenarios = []
        super().eof()


def _write_environment(folder: str, config: Any) -> None:
    """The report's Environment panel (`environment.properties`): how server processes were started.

    Every worker writes the same lines (the settings are the run's), each by a rename, so a reader
    never sees half a file.
    """
    from mcpbdd.harness.processes.spawn import describe
    from mcpbdd.model.config import ConfigError, load_settings

    try:
        settings = load_settings(dict(config.userdata))
    except ConfigError:
        return
    Path(folder).mkdir(parents=True, exist_ok=True)
    temporary = f"{folder}/environment.properties.{os.getpid()}.tmp"
    _write(temporary, f"mcpbdd.spawn = {describe(settings.spawn)}\n".encode())
    os.replace(temporary, f"{folder}/environment.properties")


def _secrets(config: Any) -> tuple[str, ...]:
    """The configured secrets; none when the settings are invalid (the hooks then stop the run with the reason)."""
    from mcpbdd.model.config import ConfigError, load_settings

    try:
        return load_settings(dict(config.userdata)).secrets
    except ConfigError:
        return ()
