Feature: A secret in every place a report shows
  Every scenario FAILS on purpose, so that each report carries everything it can: the
  scenario name, the steps and their doc strings, exchanges, upstream requests, the
  failure message, captured output and a stdio server's stderr. The secrets are
  hunt"er2 p@ss/é (a quote, a space, an at sign, a slash and an accent: each encoding
  writes it differently) and p@ss w0rd (the one in the upstream route).

  Background:
    Given the user "alice" of tenant "acme"

  Scenario: echoing hunt"er2 p@ss/é back, named in the scenario's title
    When the client calls "echo" with:
      """
      {"text": "hunt\"er2 p@ss/é"}
      """
    Then the result mentions "something else"

  Scenario: the secret in structured content, JSON text and base64
    When the client calls "leak" with:
      """
      {"secret": "hunt\"er2 p@ss/é"}
      """
    Then the structured result contains:
      """
      {"secret": "not the secret"}
      """

  Scenario: the secret sent upstream in a path, a query and a bearer token
    Given the upstream "https://vault.example.com" answers GET "/keys/p@ss w0rd" with status 200 and:
      """
      {"key": "p@ss w0rd"}
      """
    When the client calls "lookup" with {"secret": "p@ss w0rd"}
    Then the result mentions "p@ss w0rd"

  Scenario: a request no route matches names the secret in its URL
    When the client calls "lookup" with:
      """
      {"secret": "hunt\"er2 p@ss/é"}
      """
    Then the call succeeds

  @harness.client
  Scenario: a stdio server writes the secret to its stderr
    Given the MCP server "stdio: {python} leaky_server.py"
    When the client calls "complain" with:
      """
      {"secret": "hunt\"er2 p@ss/é"}
      """
    Then the result mentions "something else"
