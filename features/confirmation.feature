Feature: Deleting a note asks the user first
  A deleted note is gone for good, so the server asks the user to confirm before it
  deletes anything. A client that cannot show the user a question cannot delete.

  Background:
    Given the user "alice" of tenant "acme"

  Scenario: Deleting a note needs the user's answer
    When the client calls "create_note" with {"title": "Old plan", "body": "Scrapped"}
    And the client calls "delete_note" with {"note_id": "n-1"}
    Then the outcome is "input-required"
    And the result mentions "delete the note"
    And the result mentions "Old plan"

  Scenario: A client that cannot ask its user is refused
    Given the client declares no capabilities
    When the client calls "create_note" with {"title": "Old plan", "body": "Scrapped"}
    And the client calls "delete_note" with {"note_id": "n-1"}
    Then the call fails with the protocol error MissingRequiredClientCapability
    And the result mentions "elicitation"

  Scenario: The note stays until the user has answered
    When the client calls "create_note" with {"title": "Old plan", "body": "Scrapped"}
    And the client calls "delete_note" with {"note_id": "n-1"}
    And the client calls "get_note" with {"note_id": "n-1"}
    Then the call succeeds
