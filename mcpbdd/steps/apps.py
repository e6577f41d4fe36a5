"""Apps: a tool's `ui://` view, rendered in a headless host, and what the user sees and does in it.

Opening an app calls the tool as the current caller, reads its `ui://` resource and renders it
in Chromium (`mcpbdd.scenario.apps`, `mcpbdd.apps`). What the view then calls through the host
is an ordinary call of the scenario: `Then the call succeeds` and the storage phrases read it.
Without Chromium or Playwright the scenario is skipped, with the line that installs them; where the
project requires apps (`require = ["apps"]`, or any CI run that does not list them as optional) it is
broken instead (`mcpbdd.model.requirements`).
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from behave import given, step, then, when

from mcpbdd.steps._world import world
from mcpbdd.steps.arguments import call_arguments, inline_arguments, spec_errors

if TYPE_CHECKING:
    from mcpbdd.apps import AppView


@contextlib.contextmanager
def _shown(context: Any) -> Iterator[None]:
    """After the step (passed or failed), attach the view as the user sees it, with the host's records."""
    try:
        yield
    except BaseException:
        with contextlib.suppress(Exception):  # a view too broken to photograph must not hide why the step failed
            _attach(context)
        raise
    _attach(context)


def _attach(context: Any) -> None:
    from mcpbdd.reporting import attachments as report
    from mcpbdd.scenario import apps

    view = apps.app(world(context)) if apps.opened(world(context)) else None
    if view is not None:
        report.attach_app_view(view.screenshot(), view.collect().to_json())


def _open(context: Any, tool: str, arguments: dict[str, Any]) -> None:
    from mcpbdd.apps import AppsUnavailable
    from mcpbdd.scenario import apps

    try:
        with _shown(context):
            apps.open_app(world(context), tool, arguments)
    except AppsUnavailable as missing:
        from mcpbdd.model.requirements import skip_reason

        settings = world(context).settings
        context.scenario.skip(skip_reason(missing, settings.require, settings.optional))


def _app(context: Any) -> AppView:
    from mcpbdd.scenario import apps

    return apps.app(world(context))


@given('the app host uses the {setting:Text} "{value:Text}"')
def host_uses(context: Any, setting: str, value: str) -> None:
    """Given the app host uses the theme "dark" (theme, display mode or locale, for the apps opened next)"""
    from mcpbdd.scenario import apps

    with spec_errors(context):
        apps.set_host_setting(world(context), setting, value)


@step('the client opens the app of the tool "{tool:Text}"')
def client_opens_app(context: Any, tool: str) -> None:
    """When the client opens the app of the tool "show_note_card\""""
    _open(context, tool, {})


@step('the client opens the app of the tool "{tool:Text}" with:')
def client_opens_app_with(context: Any, tool: str) -> None:
    """When the client opens the app of the tool "show_note_card" with: (JSON, or an argument | value table)"""
    _open(context, tool, call_arguments(context))


@step('the client opens the app of the tool "{tool:Text}" with {arguments:JsonObject}')
def client_opens_app_with_inline(context: Any, tool: str, arguments: str) -> None:
    """When the client opens the app of the tool "show_note_card" with {"note_id": "n-1"}"""
    _open(context, tool, inline_arguments(arguments, context))


@when('the user clicks "{label:Text}" in the app')
def user_clicks(context: Any, label: str) -> None:
    """When the user clicks "Pin" in the app"""
    with _shown(context):
        _app(context).click(label)


@when('the user types "{text:Text}" into "{field:Text}" in the app')
def user_types(context: Any, text: str, field: str) -> None:
    """When the user types "for Monday" into "Reason" in the app"""
    with _shown(context):
        _app(context).type_into(text, field)


@then('the app shows "{text:Text}"')
def app_shows(context: Any, text: str) -> None:
    """Then the app shows "Groceries\""""
    from mcpbdd.checks import apps as check
    from mcpbdd.scenario import apps

    check.shows(apps.app(world(context)), text)


@then("the app shows no error")
def app_shows_no_error(context: Any) -> None:
    """Then the app shows no error"""
    from mcpbdd.checks import apps as check
    from mcpbdd.scenario import apps

    check.shows_no_error(apps.app(world(context)))


@then("the app breaks no content security rule")
def app_breaks_no_csp_rule(context: Any) -> None:
    """Then the app breaks no content security rule"""
    from mcpbdd.checks import apps as check
    from mcpbdd.scenario import apps

    check.breaks_no_rule(apps.app(world(context)))


@then('the app was refused "{url:Text}" by its content security policy')
def app_was_refused(context: Any, url: str) -> None:
    """Then the app was refused "https://widgets.example.net/embed.js" by its content security policy"""
    from mcpbdd.checks import apps as check
    from mcpbdd.scenario import apps

    check.was_refused(apps.app(world(context)), url)


@then('the app called the tool "{tool:Text}"')
def app_called(context: Any, tool: str) -> None:
    """Then the app called the tool "pin_note\""""
    from mcpbdd.checks import apps as check
    from mcpbdd.scenario import apps

    check.called(apps.app(world(context)), tool)


@then('the app asked to open "{url:Text}"')
def app_asked_to_open(context: Any, url: str) -> None:
    """Then the app asked to open "https://notes.example.com/n/n-1\""""
    from mcpbdd.checks import apps as check
    from mcpbdd.scenario import apps

    check.asked_to_open(apps.app(world(context)), url)


@then('the app matches the screenshot "{path:Text}"')
def app_matches_screenshot(context: Any, path: str) -> None:
    """Then the app matches the screenshot "features/screenshots/note-card.png\""""
    from mcpbdd.scenario import apps

    apps.match_screenshot(world(context), path)


__all__: list[str] = []
