Feature: Whose mistake it is
  Scenarios that do not pass on purpose: tests/spawning/test_allure_formatter.py reads their Allure
  results. Only the first is the server's fault (failed); the rest are mistakes in the
  specification or its set-up (broken).

  Background:
    Given the user "alice" of tenant "acme"

  Scenario: the server does not do what the specification expects
    When the client calls "create_note" with {"title": "Groceries", "body": "Milk"}
    Then the result mentions "Bread"

  Scenario: a malformed doc string
    When the client calls "create_note" with:
      """
      {"title": "Groceries",
      """

  Scenario: an unknown user
    When "mallory" calls "list_notes"

  Scenario: an unknown outcome word
    When the client calls "list_notes"
    Then the outcome is "splendid"

  Scenario: a bad setting
    Given the client declares the capabilities "telepathy"
    When the client calls "list_notes"

  Scenario: a check that checks nothing
    When the client calls "list_notes"
    Then the result mentions ""

  Scenario: a server that does not import
    Given the MCP server "mcpbdd.examples.no_such_server:mcp"
    When the client calls "list_notes"

  Scenario: a server process that ends before its first answer
    Given the MCP server "stdio: {python} tests/allure_cases/verdicts/no_licence.py"
    When the client calls "list_notes"

  Scenario: a project's own step finds the server wrong
    When the client calls "create_note" with {"title": "Groceries", "body": "Milk"}
    Then the note is about bread
