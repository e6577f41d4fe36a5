@harness.client
Feature: A server that dies in the middle of a call
  A client must tell "the tool said no" apart from "the server is gone". When the server
  process dies mid-call there is no answer at all: the scenario sees a transport failure
  that says how the process ended and what it last wrote, and the next scenario starts a
  fresh server.

  Background:
    Given the MCP server "stdio: {python} -m mcpbdd.examples.unreliable"

  Scenario: The server is up and answers
    When the client calls "status"
    Then the call succeeds
    And the result mentions "all systems nominal"

  Scenario: The server dies while answering
    When the client calls "crash" with {"reason": "the index is corrupt"}
    Then the outcome is "transport-failure"
    And the result mentions "exited with code 3"
    And the result mentions "fatal: the index is corrupt, giving up"

  Scenario: The next scenario gets a fresh server
    When the client calls "status"
    Then the call succeeds
