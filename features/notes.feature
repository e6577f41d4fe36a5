Feature: Team notes
  Every member of a team keeps notes in the team's notebook. The notebook belongs to
  the tenant: colleagues share it, other companies never see it.

  Background:
    Given the user "alice" of tenant "acme"

  Scenario: The notes server offers its tools
    Then the server offers the tools:
      | name         |
      | create_note  |
      | get_note     |
      | list_notes   |
      | delete_note  |
    And the server offers the tool "export_notes"

  Scenario: A new note can be read back
    When the client calls "create_note" with:
      """
      {"title": "Groceries", "body": "Milk, eggs", "tags": ["home"]}
      """
    Then the call succeeds
    And the structured result contains:
      """
      {"title": "Groceries", "author": "alice", "tags": ["home"]}
      """
    When the client calls "get_note" with {"note_id": "n-1"}
    Then the structured result matches:
      """
      {"id": "n-1", "title": "Groceries", "body": "Milk, eggs", "tags": ["home"], "author": "alice"}
      """
