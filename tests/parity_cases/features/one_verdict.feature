Feature: One verdict in every file
  tests/spawning/test_reports_agree.py runs this once with `mcpbdd run --harness all` and reads every file the run
  writes: each scenario must have the same verdict, the same name and the same words in all of them.

  Background:
    Given the MCP server "servers:awkward"
    And the user "alice" of tenant "acme"

  Scenario: Who the caller is, passing everywhere
    When the client calls "whoami"
    Then the call succeeds

  Scenario: A mid-call question, failing where the client has no back-channel
    When the client calls "ask_mid_call"
    Then the server asks by elicitation

  Scenario: A model answer given in advance that no question used
    Given the model will answer "Weekly groceries"
    When the client calls "whoami"
    Then the call succeeds

  @era.modern
  Scenario: Needs the 2026-07-28 protocol, skipped as it runs on the old handshake
    When the client calls "whoami"
    Then the call succeeds

  Scenario: A doc string that is not JSON
    When the client calls "whoami"
    Then the structured result contains:
      """
      {"subject": alice
      """

  Scenario Outline: Who the caller is
    When the client calls "whoami"
    Then the structured result contains:
      """
      {"subject": "<user>"}
      """

    Examples:
      | user  |
      | alice |

  Rule: A rule's scenarios are reported too
    Scenario: Inside a rule
      When the client calls "whoami"
      Then the call succeeds
