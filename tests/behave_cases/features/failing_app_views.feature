Feature: An app that goes wrong fails the app steps, each failure named
  Each scenario below is expected to FAIL, against tests/broken_apps.py (a view that throws, one
  that never initializes, one that loads a script its policy does not list);
  tests/spawning/test_behave_apps.py checks the messages.

  Background:
    Given the MCP server "broken_apps:mcp"

  Scenario: no error, but the view throws and logs one
    When the client opens the app of the tool "throwing"
    Then the app shows no error

  Scenario: no error, but the view never initializes
    When the client opens the app of the tool "silent"
    Then the app shows no error

  Scenario: no content security rule broken, but the view loads a tracker
    When the client opens the app of the tool "tracking"
    Then the app breaks no content security rule

  Scenario: opens the app of a tool added to the app after the server was built
    When the client opens the app of the tool "late"
