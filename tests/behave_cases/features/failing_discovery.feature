Feature: Discovery checks fail saying how the server described itself
  Each scenario below is expected to FAIL; tests/spawning/test_failing_steps.py checks that each
  message names the part that differs and shows the whole description (or, for a description
  that names nothing a server could say, why the specification is broken and how to fix it).

  Background:
    Given the user "alice" of tenant "acme"

  Scenario: describes itself, but under another name
    Then the server describes itself with:
      """
      {"name": "todo"}
      """

  Scenario: describes itself, but without a capability
    Then the server describes itself with:
      """
      {"capabilities": {"logging": "#object"}}
      """

  Scenario: describes itself with nothing
    Then the server describes itself with:
      """
      {}
      """

  Scenario: describes itself with a part no description has
    Then the server describes itself with:
      """
      {"name": "notes", "homepage": "https://example.com"}
      """

  Scenario: describes itself with a list
    Then the server describes itself with:
      """
      ["notes"]
      """

  Scenario: describes itself with a misspelt marker
    Then the server describes itself with:
      """
      {"version": "#strin"}
      """
