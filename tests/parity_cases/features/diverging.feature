Feature: Scenarios whose verdict depends on the harness or the era, on purpose
  tests/spawning/test_parity.py runs this with `mcpbdd run --harness all` and reads the parity matrix.
  A mid-call `ctx.elicit()` needs the 2025-11-25 back-channel: it is asked only on the legacy pass.

  Background:
    Given the MCP server "servers:awkward"
    And the user "alice" of tenant "acme"

  Scenario: A mid-call question, nothing saying it needs the old handshake
    When the client calls "ask_mid_call"
    Then the server asks by elicitation

  @parity.back_channel
  Scenario: A mid-call question, documented as needing the old handshake
    When the client calls "ask_mid_call"
    Then the server asks by elicitation

  Scenario: Who the caller is, the same everywhere
    When the client calls "whoami"
    Then the structured result contains:
      """
      {"subject": "alice"}
      """

  @harness.client
  Scenario: Pinned to the client harness
    When the client calls "whoami"
    Then the call succeeds
