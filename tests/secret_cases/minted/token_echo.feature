Feature: A server echoes the token the fake authorization server minted for its caller
  The scenario FAILS on purpose, so that every report carries everything it can: the result, the
  log message and the server's stderr, each holding the caller's token. No project lists a minted
  token under `secrets`; mcpbdd masks it anyway, in every file.

  @harness.client
  Scenario: the caller's token comes back in the result, a log message and on stderr
    Given the MCP server "http: {python} token_echo_server.py {port}"
    And the server requires a token
    And the user "alice" of tenant "acme"
    When "alice" calls "whoami"
    Then the result mentions "something else"
