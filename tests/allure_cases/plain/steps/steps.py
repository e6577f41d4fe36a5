"""Steps with no MCP in them: the formatter cases are about reporting only."""

from typing import Any

import allure
from behave import step


@step("a step")
def a_step(context: Any) -> None:
    """Given a step"""


@step("a step with a table")
def a_step_with_a_table(context: Any) -> None:
    """Given a step with a table"""
    assert context.table is not None and len(context.table.rows) == 2


@step('a step with "{value}"')
def a_step_with(context: Any, value: str) -> None:
    """Given a step with "x\""""


@step("the scenario sets its Allure metadata at run time")
def dynamic_metadata(context: Any) -> None:
    """Given the scenario sets its Allure metadata at run time"""
    allure.dynamic.title("A title set at run time")
    allure.dynamic.severity(allure.severity_level.CRITICAL)
    allure.dynamic.label("owner", "team-notes")
    allure.dynamic.tag("dynamic-tag")
    allure.dynamic.parameter("harness", "context")


@step('the step attaches a text mentioning "{value}"')
def attaches(context: Any, value: str) -> None:
    """When the step attaches a text mentioning "s3cr3t-token\""""
    allure.attach(f"the server answered with {value} inside", name="server answer")
    allure.attach('{"token": "' + value + '"}', name="json answer", attachment_type=allure.attachment_type.JSON)


@step('the step fails mentioning "{value}"')
def fails(context: Any, value: str) -> None:
    """Then the step fails mentioning "s3cr3t-token\""""
    raise AssertionError(f"the response leaked {value}")
