Feature: Progress checks fail saying what the server reported
  Each scenario below is expected to FAIL; tests/spawning/test_failing_steps.py checks that each
  message names the call and every progress report that arrived (or, for a check that
  would compare nothing, why the specification is broken and how to fix it).

  Background:
    Given the user "alice" of tenant "acme"

  Scenario: reported progress, but another number of times
    When the client calls "import_notebook" with {"notes": [{"title": "Milk"}, {"title": "Eggs"}]}
    Then the call reported progress 3 times

  Scenario: the progress reached, but it stopped short
    Given the MCP server "event_server:mcp"
    When the client calls "stops_short"
    Then the progress reached 3 of 3

  Scenario: the progress went backwards
    Given the MCP server "event_server:mcp"
    When the client calls "backwards"
    Then the progress never went backwards

  Scenario: a progress message says, but none does
    Given the MCP server "event_server:mcp"
    When the client calls "mumbles"
    Then a progress message says "Imported"

  Scenario: never went backwards, with a single report
    Given the MCP server "event_server:mcp"
    When the client calls "mumbles"
    Then the progress never went backwards

  Scenario: the progress of a resource read
    Given the storage of tenant "acme" holds:
      | key       | value                                                                                                                 |
      | notes/n-1 | {"id": "n-1", "title": "Plan", "body": "Ship", "tags": [], "author": "alice", "created_at": "2026-01-01T00:00:00Z"} |
    When the client reads the resource "notes://n-1"
    Then the call reported progress 0 times

  Scenario: the progress reached a point beyond its total
    When the client calls "import_notebook" with {"notes": [{"title": "Milk"}]}
    Then the progress reached 2 of 1

  Scenario: a progress message says an empty text
    When the client calls "import_notebook" with {"notes": [{"title": "Milk"}]}
    Then a progress message says " "
