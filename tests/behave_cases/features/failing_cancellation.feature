Feature: Cancellation checks fail saying what the client saw after its cancel
  Each scenario below is expected to FAIL; tests/spawning/test_failing_steps.py checks that each
  message names the call, when the client cancelled it and what came after (or, for a cancel that
  could never be sent, why the specification is broken and how to fix it).

  Background:
    Given the user "alice" of tenant "acme"

  Scenario: cancelled in-process, but the server stores its work anyway
    Given the MCP server "stubborn_server:mcp"
    And the client cancels its next call after 1 progress report
    When the client calls "stubborn_import" with {"titles": ["Milk", "Eggs"]}
    Then the call was cancelled
    And the storage of tenant "acme" is unchanged

  @harness.client
  Scenario: cancelled over stdio, but the server stores its work anyway
    Given the MCP server "stdio: {python} -m stubborn_server"
    And the client cancels its next call after 1 progress report
    When the client calls "stubborn_import" with {"titles": ["Milk", "Eggs"]}
    Then the call was cancelled
    And the storage of tenant "acme" is unchanged

  Scenario: cancelled after more progress reports than the call makes
    Given the client cancels its next call after 5 progress reports
    When the client calls "import_notebook" with {"notes": [{"title": "Milk"}, {"title": "Eggs"}]}
    Then the call was cancelled

  Scenario: cancelled after the call had finished
    Given the client cancels its next call after 2000 milliseconds
    When the client calls "list_notes"
    Then the call was cancelled

  Scenario: cancelled, with no cancel arranged
    When the client calls "list_notes"
    Then the call was cancelled

  Scenario: a cancelled call does not succeed
    Given the client cancels its next call after 1 progress report
    When the client calls "import_notebook" with {"notes": [{"title": "Milk"}, {"title": "Eggs"}], "pace_ms": 100}
    Then the call succeeds

  Scenario: cancelled after no progress report at all
    Given the client cancels its next call after 0 progress reports
    When the client calls "list_notes"
