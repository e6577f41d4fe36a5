Feature: The server named by the settings, in every column of the matrix, stdio included
  tests/spawning/test_parity.py runs this with `-D mcpbdd.parity_stdio=...`: the stdio column starts the server as a process.

  Scenario: A tool that reports progress answers the same everywhere
    Given the user "alice" of tenant "acme"
    When the client calls "report"
    Then the result mentions "reported"
