Feature: A server echoes its caller's token cut and escaped
  The scenario FAILS on purpose, like token_echo.feature's: the server logs the signature of its
  caller's token alone (the rest cut off) and returns the token with its dots escaped as JSON
  escapes them. The signature, masked on its own, shows nowhere.

  @harness.client
  Scenario: the caller's token comes back cut and escaped
    Given the MCP server "http: {python} token_echo_server.py {port}"
    And the server requires a token
    And the user "alice" of tenant "acme"
    When "alice" calls "whoami_cut"
    Then the result mentions "something else"
