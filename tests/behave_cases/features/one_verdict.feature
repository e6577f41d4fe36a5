Feature: One scenario, one verdict, on every target
  tests/spawning/test_one_verdict.py runs this feature against tests/verdict_server.py on the context
  harness, the client harness in-process on 2026-07-28 and 2025-11-25, over stdio and over HTTP, and
  checks that each scenario gets the same verdict everywhere (the server is named by -D mcpbdd.server).
  The first five pass; the others fail, each naming what the server declared or the request it failed.

  Background:
    Given the user "alice" of tenant "acme"

  Scenario: a tool adds a tool to the server
    When the client calls "grow"
    Then the call succeeds

  Scenario: the tool added in the scenario before is gone
    When the client calls "grown"
    Then the call does not succeed

  Scenario: a tool removes a tool from the server
    When the client calls "shrink"
    Then the call succeeds

  Scenario: the tool removed in the scenario before is back
    When the client calls "doomed"
    Then the call succeeds

  Scenario: a save inside a shield finishes although the call is cancelled
    Given the client cancels its next call after 1 progress report
    When the client calls "shielded_save"
    Then the call was cancelled
    And the storage of tenant "acme" holds "saved" equal to:
      """
      {"done": true}
      """

  Scenario: listens for the tools list of a server that declared no announcements
    When the client listens for changes to the tools list
    And the client calls "touch"
    Then the server announces that the tools list changed

  Scenario: listens for a resource of a server that declared no subscriptions
    When the client listens for changes to the resource "verdict://status"
    And the client calls "touch"
    Then the server announces that the resource "verdict://status" changed

  Scenario: asks for completions the server fails to give
    When the client asks to complete the argument "name" of the prompt "greet" from "a"
    Then the completions include "alice"

  Scenario: gets a prompt the server fails to render
    When the client gets the prompt "broken_prompt"
    Then the call succeeds

  Scenario: reads a resource the server fails to read
    When the client reads the resource "verdict://broken"
    Then the call succeeds

  Scenario: reads a resource of a template the server fails to read
    When the client reads the resource "verdict://broken/milk"
    Then the call succeeds
