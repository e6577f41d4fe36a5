Feature: Short checks for what matters most
  A reviewer reading a specification wants each check in one line: that a failure is worth
  retrying, which failure it was, one number of a result, the fields of a stored note that
  matter, that a company's notebook is empty, and that the server asked the user nothing.

  Background:
    Given the user "alice" of tenant "acme"
    And the user "erin" of tenant "globex"
    And the caller is "alice"
    And the storage of tenant "acme" holds:
      | key       | value                                                                                                                  |
      | notes/n-1 | {"id": "n-1", "title": "Plan", "body": "Ship it", "tags": ["q3"], "author": "alice", "created_at": "2026-01-01T00:00:00Z"} |

  Scenario: A document service that is down is worth trying again later
    Given the upstream "https://docs.example.com" fails GET "/documents/d-42" with status 503
    When the client calls "import_note" with {"document_id": "d-42"}
    Then the call fails with the tool error "upstream_unavailable"
    And the error is retryable

  Scenario: A note that does not exist is not worth trying again
    When the client calls "get_note" with {"note_id": "n-404"}
    Then the call fails with the tool error "note_not_found"
    And the error is not retryable

  Scenario: An unsupported export format is refused outright, and retrying will not help
    When the client calls "export_notes" with {"format": "pdf"}
    Then the call fails with a protocol error
    And the error is not retryable

  Scenario: One number of a result, in one line
    When the client calls "create_note" with {"title": "Retro", "body": "Friday", "tags": ["q3"]}
    And the client calls "list_notes" with {"tag": "q3"}
    Then the result's "$.count" is 2
    And the result's "$.notes[1].title" is "Retro"
    And the server asks nothing

  Scenario: Only the fields of a stored note that matter
    When the client calls "create_note" with {"title": "Launch plan", "body": "Friday", "tags": ["launch"]}
    Then the storage of tenant "acme" holds "notes/n-2" containing:
      """
      {"title": "Launch plan", "author": "alice", "created_at": "#iso-datetime"}
      """
    And the storage of tenant "globex" is empty

  Scenario: A temporary note put in storage half an hour ago is gone
    Given the storage of tenant "acme" holds:
      | key       | value                                                                                                                    | ttl        |
      | notes/n-9 | {"id": "n-9", "title": "Door code", "body": "4711", "tags": [], "author": "alice", "created_at": "2026-01-01T00:00:00Z"} | 15 minutes |
    And 30 minutes have passed
    When the client calls "get_note" with {"note_id": "n-9"}
    Then the call fails with the tool error "note_not_found"

  Scenario: Asking for consent writes only the consent record
    When the client calls "delete_note" with {"note_id": "n-1"}
    Then the server asks for consent to "delete the note"
    And the storage of tenant "acme" is unchanged except under "consent/"
