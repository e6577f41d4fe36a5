Feature: Each company sees only its own notebook
  The notes server serves several companies (tenants). Colleagues share their
  company's notebook; nobody ever sees another company's notes. The tenant comes from
  the caller's sign-in, never from what the assistant sends.

  Background:
    Given the user "alice" of tenant "acme"
    And the user "bob" of tenant "acme"
    And the user "erin" of tenant "globex"

  Scenario: Colleagues share the company notebook
    When "alice" calls "create_note" with:
      """
      {"title": "Launch plan", "body": "Friday 10:00"}
      """
    And "bob" calls "list_notes"
    Then the structured result contains:
      """
      {"count": 1, "notes": [{"title": "Launch plan", "author": "alice"}]}
      """

  Scenario: Another company's notes stay invisible
    When "alice" calls "create_note" with {"title": "Salaries", "body": "confidential: 42k"}
    And "erin" calls "list_notes"
    Then the structured result contains:
      """
      {"count": 0, "notes": []}
      """
    When "erin" calls "get_note" with:
      | argument | value |
      | note_id  | n-1   |
    Then the call fails with a tool error mentioning "not found"
    When "erin" calls "export_notes" with {"format": "markdown"}
    Then the call succeeds
    And no response to "erin" mentions "confidential"

  Scenario: The caller can be switched for the rest of the scenario
    Given the caller is "erin"
    When the client calls "create_note" with {"title": "Globex roadmap", "body": "Q4"}
    Then the structured result contains:
      """
      {"author": "erin"}
      """

  Scenario: "The client" stays the first caller declared
    Given the user "frank" of tenant "initech"
    When the client calls "create_note" with {"title": "Launch plan", "body": "Friday"}
    Then the structured result contains:
      """
      {"author": "alice"}
      """

  Scenario: A tenant's default user is named after the tenant
    Given the tenant "initech"
    And the caller is "initech-user"
    When the client calls "create_note" with {"title": "TPS reports", "body": "New cover sheets"}
    Then the structured result contains:
      """
      {"author": "initech-user"}
      """

  Scenario: A colleague continues the list of notes where another stopped
    Given the storage of tenant "acme" holds:
      | key       | value                                                                                                                   |
      | notes/n-1 | {"id": "n-1", "title": "One", "body": "1", "tags": [], "author": "alice", "created_at": "2026-01-01T00:00:00Z"}   |
      | notes/n-2 | {"id": "n-2", "title": "Two", "body": "2", "tags": [], "author": "alice", "created_at": "2026-01-01T00:00:00Z"}   |
      | notes/n-3 | {"id": "n-3", "title": "Three", "body": "3", "tags": [], "author": "alice", "created_at": "2026-01-01T00:00:00Z"} |
    When "alice" calls "page_notes" with {"limit": 2}
    Then the result's "$.notes[1].title" is "Two"
    And the result's "$.next_cursor" is remembered as "where alice stopped"
    When "bob" calls "page_notes" with {"cursor": "${where alice stopped}"}
    Then the call succeeds
    And the result's "$.notes[0].title" is "Three"
    And the result's "$.next_cursor" is null
    When "erin" calls "page_notes" with {"cursor": "${where alice stopped}"}
    Then the call fails with a tool error mentioning "another tenant's listing"
