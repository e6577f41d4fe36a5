Feature: Every assertion step fails when it should, with a message that says why
  Each scenario below is expected to FAIL; tests/spawning/test_failing_steps.py checks the message.

  Background:
    Given the user "alice" of tenant "acme"

  Scenario: succeeds, but the call failed
    When the client calls "get_note" with {"note_id": "n-9"}
    Then the call succeeds

  Scenario: mentions, but the text is elsewhere
    When the client calls "create_note" with {"title": "Groceries", "body": "Milk"}
    Then the result mentions "Bread"

  Scenario: structured contains, but a value differs
    When the client calls "create_note" with {"title": "Groceries", "body": "Milk"}
    Then the structured result contains:
      """
      {"title": "Grocery"}
      """

  Scenario: structured matches, but a marker does not hold
    When the client calls "create_note" with {"title": "Groceries", "body": "Milk"}
    Then the structured result matches:
      """
      {"id": "#uuid", "title": "Groceries", "body": "Milk", "tags": [], "author": "alice"}
      """

  Scenario: tool error, but the call succeeded
    When the client calls "list_notes"
    Then the call fails with a tool error

  Scenario: tool error mentioning, but it says something else
    When the client calls "get_note" with {"note_id": "n-9"}
    Then the call fails with a tool error mentioning "permission denied"

  Scenario: protocol error, but it was a tool error
    When the client calls "get_note" with {"note_id": "n-9"}
    Then the call fails with the protocol error InvalidParams

  Scenario: protocol error, but with another code
    When the client calls "export_notes" with {"format": "pdf"}
    Then the call fails with the protocol error MethodNotFound

  Scenario: outcome, but another channel
    When the client calls "export_notes" with {"format": "pdf"}
    Then the outcome is "tool-error"

  Scenario: no response mentions, but one does
    When the client calls "create_note" with {"title": "Salaries", "body": "confidential"}
    Then no response mentions "confidential"

  Scenario: no response to a user mentions, but one to them does
    Given the user "erin" of tenant "globex"
    When "erin" calls "create_note" with {"title": "Globex plan", "body": "secret sauce"}
    Then no response to "erin" mentions "secret sauce"

  Scenario: fails the same way, but it succeeded
    When the client calls "list_notes"
    Then the call fails the same way 2 times in a row

  Scenario: offers the tool, but it is not there
    Then the server offers the tool "archive_notes"

  Scenario: offers exactly the tools, but there are more
    Then the server offers exactly the tools:
      | name        |
      | create_note |

  Scenario: an unknown tool names the tools on offer
    When the client calls "archive_notes"
    Then the call succeeds

  Scenario: an outcome step with no call before it
    Then the call succeeds

  Scenario: malformed JSON in a doc string
    When the client calls "create_note" with:
      """
      {"title": "Groceries", "body": }
      """

  Scenario: a table with the wrong columns
    When the client calls "create_note" with:
      | name  | value     |
      | title | Groceries |

  Scenario: a broken JSON cell in a table
    When the client calls "create_note" with:
      | argument | value        |
      | title    | Groceries    |
      | tags     | ["home", ]   |

  Scenario: an unknown outcome word
    When the client calls "list_notes"
    Then the outcome is "error"

  Scenario: an unknown user
    When "mallory" calls "list_notes"

  Scenario: asks by elicitation, but the call just succeeded
    When the client calls "list_notes"
    Then the server asks by elicitation

  Scenario: asks for a question the server did not ask
    When the client calls "create_note" with {"title": "Old plan", "body": "x"}
    And the client calls "delete_note" with {"note_id": "n-1"}
    Then the server asks for "confirm_archive"

  Scenario: asks by sampling, but it asks by elicitation
    When the client calls "create_note" with {"title": "Old plan", "body": "x"}
    And the client calls "delete_note" with {"note_id": "n-1"}
    Then the server asks for "elicitation-1" by sampling

  Scenario: the question says something else
    When the client calls "create_note" with {"title": "Old plan", "body": "x"}
    And the client calls "delete_note" with {"note_id": "n-1"}
    Then the question says "Archive"

  Scenario: the question requires other fields
    When the client calls "create_note" with {"title": "Old plan", "body": "x"}
    And the client calls "delete_note" with {"note_id": "n-1"}
    Then the question requires the fields "confirm, reason"

  Scenario: the model answers a form
    When the client calls "create_note" with {"title": "Old plan", "body": "x"}
    And the client calls "delete_note" with {"note_id": "n-1"}
    And the model answers with "yes"

  Scenario: the model is asked more than was queued
    Given the model will answer "First title"
    When the client calls "create_note" with {"title": "Old plan", "body": "Milk"}
    And the client calls "suggest_title" with {"note_id": "n-1"}
    And the client calls "suggest_title" with {"note_id": "n-1"}

  Scenario: the call took another number of rounds
    When the client calls "create_note" with {"title": "Old plan", "body": "x"}
    And the client calls "delete_note" with {"note_id": "n-1"}
    And the user accepts with:
      """
      {"confirm": true}
      """
    Then the call took 3 rounds

  Scenario: an answer when nothing is open
    When the client calls "list_notes"
    And the user declines

  Scenario: storage holds a key, but with another value
    When the client calls "create_note" with {"title": "Groceries", "body": "Milk"}
    Then the storage of tenant "acme" holds "notes/n-1" equal to:
      """
      {"id": "n-1", "title": "Grocery", "body": "Milk", "tags": [], "author": "alice", "created_at": "#iso-datetime"}
      """

  Scenario: storage holds a key that was never written
    When the client calls "list_notes"
    Then the storage of tenant "acme" holds "notes/n-1" equal to:
      """
      {}
      """

  Scenario: storage has no key, but it has
    When the client calls "create_note" with {"title": "Groceries", "body": "Milk"}
    Then the storage of tenant "acme" has no key "notes/n-1"

  Scenario: storage is unchanged, but a note was written
    When the client calls "create_note" with {"title": "Groceries", "body": "Milk"}
    Then the storage of tenant "acme" is unchanged

  Scenario: every other tenant is unchanged, but another tenant changed
    Given the user "erin" of tenant "globex"
    When "erin" calls "create_note" with {"title": "Roadmap", "body": "Q4"}
    And "alice" calls "list_notes"
    Then the storage of every other tenant is unchanged

  Scenario: a storage table with the wrong columns
    Given the storage of tenant "acme" holds:
      | name      | value |
      | notes/n-1 | {}    |

  Scenario: a storage key that breaks the rules
    Given the storage of tenant "acme" holds:
      | key           | value |
      | cache:v1:abc  | 1     |

  Scenario: a duration nobody understands
    When 2 fortnights pass

  Scenario: asks for consent, but the call just succeeded
    When the client calls "list_notes"
    Then the server asks for consent

  Scenario: asks for consent to something else
    When the client calls "create_note" with {"title": "Old plan", "body": "x"}
    And the client calls "delete_note" with {"note_id": "n-1"}
    Then the server asks for consent to "archive the note"

  Scenario: asks for consent again, but nothing was answered yet
    When the client calls "create_note" with {"title": "Old plan", "body": "x"}
    And the client calls "delete_note" with {"note_id": "n-1"}
    Then the server asks for consent again

  Scenario: the error reason is another one
    When the client calls "get_note" with {"note_id": "n-404"}
    Then the error reason is "consent_declined"

  Scenario: the error reason of a failure that declares none
    When the client calls "create_note" with {"title": " ", "body": "x"}
    Then the error reason is "title_missing"

  Scenario: the error suggests something else
    When the client calls "get_note" with {"note_id": "n-404"}
    Then the error suggests "try again later"

  Scenario: does not succeed, but it did
    When the client calls "list_notes"
    Then the call does not succeed

  Scenario: a replay with nothing to replay
    When the client calls "list_notes"
    And the client replays the consented call

  Scenario: a second user does not change who the client is
    Given the user "erin" of tenant "globex"
    When the client calls "get_note" with {"note_id": "n-9"}
    Then the call succeeds

  Scenario: the caller chosen is named in the failure
    Given the user "erin" of tenant "globex"
    And the caller is "erin"
    When the client calls "list_notes"
    Then the call fails with a tool error

  Scenario: an anonymous caller is named in the failure
    Given nobody is signed in
    When the client calls "list_notes"
    Then the call succeeds

  Scenario: a tool that asks mid-call on the 2026-07-28 protocol
    Given the MCP server "servers:awkward"
    When the client calls "ask_mid_call"
    Then the call succeeds

  Scenario: a storage key names a value nobody remembered
    When the client calls "create_note" with {"title": "Groceries", "body": "Milk"}
    Then the storage of tenant "acme" has no key "notes/${nope}"

  Scenario: a storage key with a remembered id, but another value is stored there
    When the client calls "create_note" with {"title": "Groceries", "body": "Milk"}
    And the result's "$.id" is remembered as "note"
    Then the storage of tenant "acme" holds "notes/${note}" containing:
      """
      {"title": "Grocery"}
      """
