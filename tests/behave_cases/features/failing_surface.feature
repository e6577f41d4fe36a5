Feature: Every tool-surface step fails when it should, naming each tool and what it hides
  Each scenario below is expected to FAIL, against tests/poisoned_server.py (a tool per defect);
  tests/spawning/test_lint_steps.py checks the messages.

  Scenario: lint rules, but the poisoned tools break them
    Given the MCP server "poisoned_server:poisoned"
    Then the tool surface passes the lint rules

  Scenario: lint rules, but the flawed tools break them
    Given the MCP server "poisoned_server:flawed"
    Then the tool surface passes the lint rules

  Scenario: a named lint rule, broken
    Given the MCP server "poisoned_server:flawed"
    Then the tool surface passes the lint rule "schema-unsatisfiable"

  Scenario: a lint rule that does not exist
    Given the MCP server "poisoned_server:clean"
    Then the tool surface passes the lint rule "descriptions-missing"

  Scenario: hides nothing, but the descriptions hide instructions
    Given the MCP server "poisoned_server:poisoned"
    Then no tool description hides instructions

  Scenario: hides nothing, of a server with no tools
    Given the MCP server "poisoned_server:empty"
    Then no tool description hides instructions

  Scenario: surface budget, exceeded
    Given the MCP server "poisoned_server:poisoned"
    Then the tool surface costs at most 100 tokens

  Scenario: description budget, exceeded
    Given the MCP server "poisoned_server:poisoned"
    Then the description of "add" costs at most 10 tokens

  Scenario: description budget, of a tool without a description
    Given the MCP server "poisoned_server:poisoned"
    Then the description of "ping" costs at most 10 tokens

  Scenario: description budget, of a tool the server does not offer
    Given the MCP server "poisoned_server:clean"
    Then the description of "multiply" costs at most 10 tokens

  Scenario: a budget of no tokens
    Given the MCP server "poisoned_server:clean"
    Then the tool surface costs at most 0 tokens
