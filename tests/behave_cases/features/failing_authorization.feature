@harness.client
Feature: Authorization steps that must fail, each with a message that says why
  Every scenario here fails on purpose (tests/spawning/test_failing_steps.py checks each message).

  Background:
    Given the MCP server "http: {python} -m mcpbdd.examples.notes --http 127.0.0.1:{port} --auth jwks"
    And the user "alice" of tenant "acme" with the scopes "notes:write"
    And the user "bob" of tenant "acme"

  Scenario: refused as unauthenticated, but the call succeeded
    Given the server requires a token
    When "alice" calls "list_notes"
    Then the call is refused as unauthenticated

  Scenario: refused as unauthenticated, but it was refused for a scope
    Given the server requires a token
    When "bob" calls "create_note" with {"title": "t", "body": "b"}
    Then the call is refused as unauthenticated

  Scenario: refused for a scope, but the call succeeded
    Given the server requires a token
    When "alice" calls "create_note" with {"title": "t", "body": "b"}
    Then the call is refused for lack of the scope "notes:write"

  Scenario: refused for a scope, but it was refused as unauthenticated
    Given the server requires a token
    When the client calls "create_note" without a token
    Then the call is refused for lack of the scope "notes:write"

  Scenario: refused for another scope than the one named
    Given the server requires a token
    When "bob" calls "create_note" with {"title": "t", "body": "b"}
    Then the call is refused for lack of the scope "notes:delete"

  Scenario: the protection described otherwise
    Given the server requires a token
    Then the server describes its protection with:
      """
      {"scopes_supported": ["notes:read"]}
      """

  Scenario: a token shaped before the scenario says the server requires one
    Given the token of "alice" has expired

  Scenario: a token required of a server mcpbdd did not start
    Given the MCP server "http://127.0.0.1:9/mcp"
    And the server requires a token
