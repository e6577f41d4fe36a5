Feature: The server asks, the user answers
  Some requests need a person (or the client's model) before they can go on: deleting a
  note needs the user's confirmation, a title suggestion needs the model, importing needs
  to know which folders the client shares. The scenario sees every question and gives
  every answer. The same specification holds for a 2026-07-28 server, which returns its
  questions, and a 2025-11-25 server, which asks in the middle of the call.

  Background:
    Given the user "alice" of tenant "acme"
    And the client calls "create_note" with {"title": "Old plan", "body": "Milk, eggs and bread"}

  Scenario: Confirming a delete removes the note
    When the client calls "delete_note" with {"note_id": "n-1"}
    Then the server asks by elicitation
    And the question says "delete the note"
    And the question says "cannot be undone"
    And the question requires the fields "confirm"
    When the user accepts with:
      """
      {"confirm": true}
      """
    Then the call succeeds
    And the structured result contains:
      """
      {"id": "n-1", "deleted": true}
      """
    And the call took 2 rounds
    When the client calls "get_note" with {"note_id": "n-1"}
    Then the call fails with a tool error mentioning "not found"

  Scenario: Answering "no" in the form keeps the note
    When the client calls "delete_note" with {"note_id": "n-1"}
    And the user accepts "elicitation-1" with:
      """
      {"confirm": false}
      """
    Then the call fails with a tool error mentioning "nothing was done"
    And the error reason is "consent_declined"
    When the client calls "get_note" with {"note_id": "n-1"}
    Then the call succeeds

  Scenario Outline: A user who <does> does not lose the note
    When the client calls "delete_note" with {"note_id": "n-1"}
    And the user <answer>
    Then the call fails with a tool error
    And the error reason is "consent_declined"
    When the client calls "get_note" with {"note_id": "n-1"}
    Then the call succeeds

    Examples:
      | does                  | answer   |
      | declines the question | declines |
      | cancels the question  | cancels  |

  Scenario: The note stays while the user has not answered
    When the client calls "delete_note" with {"note_id": "n-1"}
    And the client calls "get_note" with {"note_id": "n-1"}
    Then the call succeeds
    When the user accepts with:
      """
      {"confirm": true}
      """
    Then the structured result contains:
      """
      {"deleted": true}
      """

  Scenario: The client's model proposes a title
    When the client calls "suggest_title" with {"note_id": "n-1"}
    Then the server asks by sampling
    And the question says "Milk, eggs and bread"
    When the model answers with "Weekly groceries"
    Then the structured result contains:
      """
      {"id": "n-1", "suggested_title": "Weekly groceries"}
      """

  Scenario: The client shares its folders for an import
    When the client calls "list_import_folders"
    Then the server asks for the roots
    When the client answers with the roots:
      | uri                         | name      |
      | file:///home/alice/notes    | Notes     |
      | file:///home/alice/projects | Projects  |
    Then the structured result contains:
      """
      {"folders": ["file:///home/alice/notes", "file:///home/alice/projects"]}
      """

  Scenario: Answers given in advance are used when the questions come
    Given the user will accept "elicitation-1" with:
      """
      {"confirm": true}
      """
    And the model will answer "Weekly groceries"
    When the client calls "suggest_title" with {"note_id": "n-1"}
    Then the structured result contains:
      """
      {"suggested_title": "Weekly groceries"}
      """
    When the client calls "delete_note" with {"note_id": "n-1"}
    Then the call succeeds
    And the call took 2 rounds

  Scenario: A user who declines everything keeps every note
    Given the user will decline every question
    When the client calls "delete_note" with {"note_id": "n-1"}
    Then the error reason is "consent_declined"
    And the call took 2 rounds

  @harness.client.auto
  Scenario: A tampered request state is refused
    When the client calls "delete_note" with {"note_id": "n-1"}
    And the client retries with a tampered request state
    Then the call fails with the protocol error InvalidParams
    And the result mentions "Invalid or expired requestState"

  Scenario: A question asked by the server's code answers to that code's name on both eras
    When the client calls "suggest_title" with {"note_id": "n-1"}
    Then the server asks for "ask_model_for_title" by sampling
    When the model answers "ask_model_for_title" with "Weekly groceries"
    Then the structured result contains:
      """
      {"suggested_title": "Weekly groceries"}
      """
    When the client calls "list_import_folders"
    Then the server asks for "ask_for_roots" for the roots
    When the client answers "ask_for_roots" with the roots:
      | uri                      | name  |
      | file:///home/alice/notes | Notes |
    Then the structured result contains:
      """
      {"folders": ["file:///home/alice/notes"]}
      """
