Feature: Every verdict a report must tell, per pass
  tests/spawning/test_report_consumers.py runs this with `mcpbdd run --harness all` and feeds every file the run
  writes to the tools teams read them with. Each scenario ends differently, on purpose.

  Background:
    Given the MCP server "servers:awkward"
    And the user "alice" of tenant "acme"

  Scenario: Who the caller is, passing everywhere
    When the client calls "whoami"
    Then the structured result contains:
      """
      {"subject": "alice"}
      """

  Scenario: A mid-call question <note>, which only the old handshake can *ask* | answer
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

  Scenario: A misspelt phrase
    When the client calls "whoami"
    Then the call succeed

  Scenario: A caller the scenario does not know
    When "mallory" calls "whoami"
    Then the call succeeds

  Scenario Outline: Who the caller is, as <user>
    When the client calls "whoami"
    Then the structured result contains:
      """
      {"subject": "<user>"}
      """

    Examples:
      | user  |
      | alice |
