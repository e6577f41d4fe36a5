Feature: The short checks fail when they should, saying why
  Each scenario below is expected to FAIL; tests/spawning/test_failing_steps.py checks each message.

  Background:
    Given the user "alice" of tenant "acme"
    And the caller is "alice"
    And the storage of tenant "acme" holds:
      | key       | value                                                                                                                  |
      | notes/n-1 | {"id": "n-1", "title": "Plan", "body": "Ship it", "tags": ["q3"], "author": "alice", "created_at": "2026-01-01T00:00:00Z"} |

  Scenario: retryable, but the failure says a retry will not help
    When the client calls "get_note" with {"note_id": "n-404"}
    Then the error is retryable

  Scenario: not retryable, but the failure says a retry can help
    Given the upstream "https://docs.example.com" fails GET "/documents/d-42" with status 503
    When the client calls "import_note" with {"document_id": "d-42"}
    Then the error is not retryable

  Scenario: retryable, but the failure does not say
    When the client calls "create_note" with {"title": " ", "body": "no title"}
    Then the error is not retryable

  Scenario: retryable, but the call succeeded
    When the client calls "list_notes"
    Then the error is retryable

  Scenario: the tool error, but another reason
    When the client calls "get_note" with {"note_id": "n-404"}
    Then the call fails with the tool error "note_locked"

  Scenario: the tool error, but a protocol error came
    When the client calls "export_notes" with {"format": "pdf"}
    Then the call fails with the tool error "export_format_unsupported"

  Scenario: a value at a path, but another value
    When the client calls "list_notes"
    Then the result's "$.count" is 2

  Scenario: a value at a path the result does not have
    When the client calls "list_notes"
    Then the result's "$.total" is 1

  Scenario: a value at a path that is no path
    When the client calls "list_notes"
    Then the result's "count" is 1

  Scenario: a value that is not JSON
    When the client calls "list_notes"
    Then the result's "$.notes[0].title" is Plan

  Scenario: the server asks nothing, but it asks
    When the client calls "delete_note" with {"note_id": "n-1"}
    Then the server asks nothing

  Scenario: a stored value containing, but another value
    When the client calls "create_note" with {"title": "Retro", "body": "Friday"}
    Then the storage of tenant "acme" holds "notes/n-2" containing:
      """
      {"title": "Retrospective", "author": "alice"}
      """

  Scenario: a stored value containing nothing in particular
    When the client calls "create_note" with {"title": "Retro", "body": "Friday"}
    Then the storage of tenant "acme" holds "notes/n-2" containing:
      """
      {}
      """

  Scenario: a stored value containing, under a key the tenant does not hold
    When the client calls "list_notes"
    Then the storage of tenant "acme" holds "notes/n-7" containing:
      """
      {"title": "Plan"}
      """

  Scenario: empty, but the tenant holds a note
    When the client calls "list_notes"
    Then the storage of tenant "acme" is empty

  Scenario: empty, of a tenant the scenario does not know
    When the client calls "list_notes"
    Then the storage of tenant "initech" is empty

  Scenario: unchanged except under a prefix, but a key outside it changed
    When the client calls "create_note" with {"title": "Retro", "body": "Friday"}
    Then the storage of tenant "acme" is unchanged except under "consent/"

  Scenario: unchanged except under the empty prefix
    When the client calls "create_note" with {"title": "Retro", "body": "Friday"}
    Then the storage of tenant "acme" is unchanged except under ""
