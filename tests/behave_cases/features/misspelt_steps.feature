Feature: A misspelt step is answered with the nearest phrases of the vocabulary
  Each scenario below is expected to be UNDEFINED; tests/spawning/test_behave_runs.py checks the suggestions.

  Background:
    Given the user "alice" of tenant "acme"

  Scenario: a verb without its s
    When the client calls "list_notes"
    Then the call succeed

  Scenario: a word too many
    When the client calls the tool "list_notes"
    Then the call succeeds

  Scenario: nothing like the vocabulary
    Then the moon is made of cheese

  Scenario: a check misspelt like its seeding step
    When the client calls "list_notes"
    Then the storage of tenant "acme" holds "notes/n-1" equals to:
      """
      {"title": "Plan"}
      """
