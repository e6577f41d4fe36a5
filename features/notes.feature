Feature: Team notes
  Every member of a team keeps notes in the team's notebook, through an MCP server
  an assistant can call. A note has a title, a body and tags; the server gives it an id
  and remembers who wrote it.

  Background:
    Given the user "alice" of tenant "acme"

  Scenario: The server offers exactly the notes tools
    Then the server offers exactly the tools:
      | name                    |
      | create_note             |
      | get_note                |
      | list_notes              |
      | delete_note             |
      | export_notes            |
      | suggest_title           |
      | list_import_folders     |
      | import_note             |
      | share_note              |
      | page_notes              |
      | import_notebook         |
      | set_archiving           |
      | archive_note            |
      | edit_note               |
      | show_note_card          |
      | show_note_card_embedded |
      | pin_note                |

  Scenario: A new note can be read back by its id
    When the client calls "create_note" with:
      """
      {"title": "Groceries", "body": "Milk, eggs", "tags": ["home"]}
      """
    Then the call succeeds
    And the structured result contains:
      """
      {"id": "n-1", "title": "Groceries", "author": "alice"}
      """
    When the client calls "get_note" with {"note_id": "n-1"}
    Then the structured result matches:
      """
      {"id": "#regex n-\\d+", "title": "Groceries", "body": "Milk, eggs", "tags": ["home"], "author": "alice",
       "created_at": "#iso-datetime"}
      """

  Scenario: A new note never replaces an existing one
    Replacing a note would destroy it without the consent that deleting asks for.
    Given the storage of tenant "acme" holds:
      | key        | value                                                                                                          |
      | notes/plan | {"id": "plan", "title": "Q3 plan", "body": "Ship it", "tags": [], "author": "bob", "created_at": "2026-01-01T00:00:00Z"} |
    When the client calls "create_note" with {"title": "Board minutes", "body": "Approved", "slug": "plan"}
    Then the call fails with a tool error
    And the error reason is "note_exists"
    And the error suggests "delete it first"
    And the storage of tenant "acme" is unchanged

  Scenario: A new note gets an id no other note has
    Given the storage of tenant "acme" holds:
      | key       | value                                                                                                          |
      | notes/n-1 | {"id": "n-1", "title": "Q3 plan", "body": "Ship it", "tags": [], "author": "bob", "created_at": "2026-01-01T00:00:00Z"} |
    When the client calls "create_note" with {"title": "Groceries", "body": "Milk"}
    Then the structured result contains:
      """
      {"id": "n-2", "title": "Groceries"}
      """
    And the storage of tenant "acme" holds "notes/n-1" equal to:
      """
      {"id": "n-1", "title": "Q3 plan", "body": "Ship it", "tags": [], "author": "bob", "created_at": "2026-01-01T00:00:00Z"}
      """

  Scenario: Notes can be created from a table of arguments
    When the client calls "create_note" with:
      | argument | value              |
      | title    | Sprint goals       |
      | body     | Ship the exporter  |
      | tags     | ["work", "q3"]     |
    Then the call succeeds
    And the result mentions "Sprint goals"

  Scenario: Listing filters notes by tag
    Given the user "alice" of tenant "acme"
    When the client calls "create_note" with {"title": "Groceries", "body": "Milk", "tags": ["home"]}
    And the client calls "create_note" with {"title": "Standup", "body": "Blocked on review", "tags": ["work"]}
    And the client calls "list_notes" with {"tag": "work"}
    Then the structured result matches:
      """
      {"notes": [{"id": "#string", "title": "Standup", "body": "Blocked on review", "tags": ["work"], "author": "alice",
                  "created_at": "#iso-datetime"}],
       "count": 1}
      """

  Scenario: A note is also a readable resource
    When the client calls "create_note" with {"title": "Groceries", "body": "Milk, eggs"}
    And the client reads the resource "notes://n-1"
    Then the call succeeds
    And the result mentions "# Groceries"

  Scenario: A resource that does not exist is refused with the note's address
    When the client reads the resource "notes://n-404"
    Then the call fails with the protocol error InvalidParams
    And the result mentions "notes://n-404"

  Scenario: The summary prompt quotes the notes with a tag
    When the client calls "create_note" with {"title": "Retro", "body": "Fewer meetings", "tags": ["team"]}
    And the client gets the prompt "summarize_notes" with:
      | argument | value |
      | tag      | team  |
    Then the call succeeds
    And the result mentions "Retro: Fewer meetings"
