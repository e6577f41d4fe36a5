@harness.client
Feature: The notes server run as its own process, over stdio
  A team ships the notes server as a program that a desktop assistant starts and talks to
  over stdio. These are the storage, clock and company rules again, with the server
  started as that program: whatever is put in storage beforehand, the time the clock
  reads and what the server writes are the same ones the server process sees. Each user
  gets a server process of their own, started as them, and they all share one storage,
  as users of one deployment would.

  These scenarios run on the client harness, the only one that reaches a server process.

  Background:
    Given the MCP server "stdio: {python} -m mcpbdd.examples.notes"
    And the user "alice" of tenant "acme"
    And the user "bob" of tenant "acme"
    And the user "erin" of tenant "globex"
    And the storage of tenant "globex" holds:
      | key       | value                                                                                                                      |
      | notes/n-1 | {"id": "n-1", "title": "Globex roadmap", "body": "Q4", "tags": [], "author": "erin", "created_at": "2026-01-01T00:00:00Z"} |

  Scenario: A new note is stored in the caller's company only
    When "alice" calls "create_note" with {"title": "Launch plan", "body": "Friday"}
    Then the call succeeds
    And the storage of tenant "acme" holds "notes/n-1" equal to:
      """
      {"id": "n-1", "title": "Launch plan", "body": "Friday", "tags": [], "author": "alice",
       "created_at": "2026-01-01T00:00:00Z"}
      """
    And the storage of every other tenant is unchanged

  Scenario: A refused note changes nothing
    When "alice" calls "create_note" with {"title": "  ", "body": "no title"}
    Then the call fails with a tool error mentioning "needs a title"
    And the storage of tenant "acme" is unchanged
    And the storage of tenant "globex" is unchanged

  Scenario: Colleagues share the company notebook, another company sees none of it
    When "alice" calls "create_note" with {"title": "Salaries", "body": "confidential: 42k"}
    And "bob" calls "list_notes"
    Then the structured result contains:
      """
      {"count": 1, "notes": [{"title": "Salaries", "author": "alice"}]}
      """
    When "erin" calls "list_notes"
    Then the structured result contains:
      """
      {"count": 1, "notes": [{"title": "Globex roadmap", "author": "erin"}]}
      """
    When "erin" calls "get_note" with {"note_id": "n-2"}
    Then the call fails with a tool error mentioning "not found"
    And no response to "erin" mentions "confidential"
    And the storage of tenant "globex" is unchanged

  Scenario: A temporary note expires when its time is up
    Given the storage of tenant "acme" holds:
      | key       | value                                                                                                                    | ttl        |
      | notes/n-9 | {"id": "n-9", "title": "Door code", "body": "4711", "tags": [], "author": "alice", "created_at": "2026-01-01T00:00:00Z"} | 15 minutes |
    When 10 minutes pass
    And "alice" calls "get_note" with {"note_id": "n-9"}
    Then the call succeeds
    When 10 minutes pass
    And "alice" calls "get_note" with {"note_id": "n-9"}
    Then the call fails with a tool error mentioning "not found"
    And the storage of tenant "acme" has no key "notes/n-9"

  Scenario: Notes carry the time the server's clock reads
    Given the clock reads "2026-03-01T09:30:00Z"
    When "alice" calls "create_note" with {"title": "Standup", "body": "Blocked"}
    Then the structured result contains:
      """
      {"created_at": "2026-03-01T09:30:00Z"}
      """
    When 2 hours pass
    And "bob" calls "create_note" with {"title": "Retro", "body": "Friday"}
    Then the structured result contains:
      """
      {"id": "n-2", "author": "bob", "created_at": "2026-03-01T11:30:00Z"}
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
