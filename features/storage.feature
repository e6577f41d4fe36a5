Feature: What the notes server keeps, per company, over time
  The server keeps each company's notes in that company's own storage. A scenario can
  put notes there before it starts, look at what the server wrote, and move the clock
  to see temporary notes expire.

  Background:
    Given the user "alice" of tenant "acme"
    And the user "erin" of tenant "globex"
    And the storage of tenant "globex" holds:
      | key        | value                                                                                                          |
      | notes/n-1  | {"id": "n-1", "title": "Globex roadmap", "body": "Q4", "tags": [], "author": "erin", "created_at": "2026-01-01T00:00:00Z"} |

  Scenario: A new note is stored in the caller's company only
    When "alice" calls "create_note" with {"title": "Launch plan", "body": "Friday"}
    Then the storage of tenant "acme" holds "notes/n-1" equal to:
      """
      {"id": "n-1", "title": "Launch plan", "body": "Friday", "tags": [], "author": "alice",
       "created_at": "2026-01-01T00:00:00Z"}
      """
    And the storage of every other tenant is unchanged

  Scenario: Notes put in storage beforehand are what the server serves
    When "erin" calls "get_note" with {"note_id": "n-1"}
    Then the structured result contains:
      """
      {"title": "Globex roadmap"}
      """
    When "alice" calls "get_note" with {"note_id": "n-1"}
    Then the call fails with a tool error mentioning "not found"

  Scenario: A refused note changes nothing
    When "alice" calls "create_note" with {"title": "  ", "body": "no title"}
    Then the call fails with a tool error mentioning "needs a title"
    And the storage of tenant "acme" is unchanged
    And the storage of tenant "globex" is unchanged

  Scenario: A note id that breaks the storage rules is refused clearly and nothing is written
    When "alice" calls "create_note" with {"title": "Plan", "body": "Q3", "slug": "q3:plan"}
    Then the call fails with a tool error mentioning "notes/q3/plan"
    And the storage of tenant "acme" is unchanged

  Scenario: A temporary note expires when its time is up
    Given the storage of tenant "acme" holds:
      | key       | value                                                                                                     | ttl        |
      | notes/n-9 | {"id": "n-9", "title": "Door code", "body": "4711", "tags": [], "author": "alice", "created_at": "2026-01-01T00:00:00Z"} | 15 minutes |
    When 10 minutes pass
    And "alice" calls "get_note" with {"note_id": "n-9"}
    Then the call succeeds
    When 10 minutes pass
    And "alice" calls "get_note" with {"note_id": "n-9"}
    Then the call fails with a tool error mentioning "not found"
    And the storage of tenant "acme" has no key "notes/n-9"

  Scenario: A note created as temporary disappears from the list
    When "alice" calls "create_note" with {"title": "Lunch", "body": "Noodles", "expires_in_minutes": 30}
    And 1 hour passes
    And "alice" calls "list_notes"
    Then the structured result contains:
      """
      {"count": 0}
      """

  Scenario: Notes carry the time the server's clock reads
    Given the clock reads "2026-03-01T09:30:00Z"
    When "alice" calls "create_note" with {"title": "Standup", "body": "Blocked"}
    Then the structured result contains:
      """
      {"created_at": "2026-03-01T09:30:00Z"}
      """

  Scenario: Deleting what an empty list never showed fails cleanly and changes nothing
    When "alice" calls "list_notes"
    Then the structured result contains:
      """
      {"count": 0, "notes": []}
      """
    When "alice" calls "delete_note" with {"note_id": "n-1"}
    Then the call fails with a tool error
    And the error reason is "note_not_found"
    And the error suggests "List the notes"
    And the storage of tenant "acme" is unchanged
    And the storage of every other tenant is unchanged
