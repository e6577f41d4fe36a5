Feature: Storage and clock steps against servers that cannot see them fail (meant to fail)
  Every scenario here must fail with the message tests/spawning/test_failing_steps.py expects: a
  storage or clock step never passes against a server that did not take the scenario's
  doubles, and over stdio the storage steps see what the server process wrote.

  Scenario: over stdio, unchanged, but the server wrote a note
    Given the MCP server "stdio: {python} -m mcpbdd.examples.notes"
    And the user "alice" of tenant "acme"
    When the client calls "create_note" with {"title": "T", "body": "B"}
    Then the call succeeds
    And the storage of tenant "acme" is unchanged

  Scenario: over stdio, no key, but the server wrote it
    Given the MCP server "stdio: {python} -m mcpbdd.examples.notes"
    And the user "alice" of tenant "acme"
    When the client calls "create_note" with {"title": "T", "body": "B"}
    Then the storage of tenant "acme" has no key "notes/n-1"

  Scenario: seeded storage for an in-process server that keeps its own state
    Given the MCP server "servers:awkward"
    And the storage of tenant "acme" holds:
      | key       | value |
      | notes/n-1 | {}    |
    When the client calls "whoami"

  Scenario: a storage check after a call to a server that keeps its own state
    Given the MCP server "servers:awkward"
    When the client calls "whoami"
    Then the storage of tenant "acme" is unchanged

  Scenario: the clock moved for a server that reads its own clock
    Given the MCP server "servers:awkward"
    When the client calls "whoami"
    And 2 hours pass

  Scenario: the clock set for a server process that keeps its own state
    Given the MCP server "stdio: {python} -m servers"
    And the clock reads "2026-03-01T09:00:00Z"
    When the client calls "whoami"
