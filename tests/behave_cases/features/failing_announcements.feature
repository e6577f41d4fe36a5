Feature: Announcement checks fail saying what arrived
  Each scenario below is expected to FAIL; tests/spawning/test_failing_steps.py checks that each
  message names every frame the listen received (or, for a check that would check nothing, why
  the specification is broken and how to fix it). The servers that break the 2026-07-28 listen
  stream are tests/announcing_server.py's; a 2025-11-25 pass skips their scenarios.

  Background:
    Given the user "alice" of tenant "acme"

  @era.modern
  Scenario: a kind the client did not ask for
    Given the MCP server "announcing_server:unrequested"
    When the client listens for changes to the prompts list
    And the client calls "change"
    Then the server announces nothing

  @era.modern
  Scenario: a frame tagged with another id than the listen's
    Given the MCP server "announcing_server:mistagged"
    When the client listens for changes to the tools list
    And the client calls "change"
    Then the server announces that the tools list changed

  @era.modern
  Scenario: an announcement before the acknowledgement
    Given the MCP server "announcing_server:eager"
    When the client listens for changes to the tools list
    And the client calls "change"
    Then the server announces that the tools list changed

  Scenario: an update of a resource the client did not listen to
    Given the MCP server "announcing_server:unrequested"
    When the client listens for changes to the resource "notes://n-1"
    And the client calls "touch"
    Then the server announces nothing

  Scenario: an announcement that never comes
    When the client listens for changes to the tools list
    And the client calls "set_archiving" with {"enabled": false}
    Then the server announces that the tools list changed

  Scenario: announces nothing, but something came
    When the client listens for changes to the tools list
    And the client calls "set_archiving" with {"enabled": true}
    Then the server announces nothing

  Scenario: announces, with no listen open
    When the client calls "set_archiving" with {"enabled": true}
    Then the server announces that the tools list changed

  Scenario: announces nothing, with no call after the listen
    When the client calls "set_archiving" with {"enabled": true}
    And the client listens for changes to the tools list
    Then the server announces nothing

  Scenario: announces nothing, with no listen open
    When the client calls "set_archiving" with {"enabled": true}
    Then the server announces nothing

  Scenario: listens for a list there is none of
    When the client listens for changes to the templates list
