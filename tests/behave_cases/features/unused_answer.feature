Feature: An answer given in advance that no question used fails the scenario
  Each scenario below is expected to FAIL at its end; tests/spawning/test_behave_runs.py checks the message.

  Scenario: an answer for a question the server never asks
    Given the user "rita" of tenant "northside"
    And the user will accept "confirm_cancel" with:
      """
      {"confirm": true}
      """
    When the client calls "list_notes"
    Then the call succeeds

  Scenario: an answer under a name the server does not use
    Given the user "rita" of tenant "northside"
    And the storage of tenant "northside" holds "notes/n-1" equal to:
      """
      {"id": "n-1", "title": "Old plan", "body": "", "tags": [], "author": "rita",
       "created_at": "2026-03-01T09:00:00+00:00"}
      """
    And the user will accept "confirm_archive" with:
      """
      {"confirm": true}
      """
    When the client calls "delete_note" with {"note_id": "n-1"}
    Then the server asks for consent

  Scenario: a model answer for a server that never asks the model
    Given the user "rita" of tenant "northside"
    And the model will answer "Weekly groceries"
    When the client calls "list_notes"
    Then the call succeeds

  Scenario: more model answers than the server asked for
    Given the user "rita" of tenant "northside"
    And the model will answer "Weekly groceries"
    And the model will answer "Monthly groceries"
    When the client calls "create_note" with {"title": "Old plan", "body": "Milk"}
    And the client calls "suggest_title" with {"note_id": "n-1"}
    Then the structured result contains:
      """
      {"suggested_title": "Weekly groceries"}
      """
