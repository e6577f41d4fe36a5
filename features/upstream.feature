Feature: Importing notes from the team's document service
  Longer documents live in the team's document service. The assistant can import one as
  a note in the team's notebook. When the document service is down, slow or out of reach,
  the assistant is told so plainly, with a hint that trying again later may help, and the
  notebook is left exactly as it was.

  Background:
    Given the user "alice" of tenant "acme"
    And the storage of tenant "acme" holds:
      | key                   | value                                                                                                                  |
      | notes/n-1             | {"id": "n-1", "title": "Plan", "body": "Ship it", "tags": [], "author": "alice", "created_at": "2026-01-01T00:00:00Z"} |
      | meta/next-note-number | 2                                                                                                                      |

  Scenario: A document becomes a note, written by the person who imported it
    Given the upstream "https://docs.example.com" answers GET "/documents/d-42" with status 200 and:
      """
      {"title": "Onboarding", "body": "Read the handbook, then meet the team.", "tags": ["team"]}
      """
    When the client calls "import_note" with {"document_id": "d-42"}
    Then the call succeeds
    And the structured result contains:
      """
      {"id": "n-2", "title": "Onboarding", "body": "Read the handbook, then meet the team.", "tags": ["team"],
       "author": "alice"}
      """
    And the storage of tenant "acme" holds "notes/n-2" equal to:
      """
      {"id": "n-2", "title": "Onboarding", "body": "Read the handbook, then meet the team.", "tags": ["team"],
       "author": "alice", "created_at": "#iso-datetime"}
      """
    And the upstream "https://docs.example.com" received GET "/documents/d-42" 1 time

  Scenario: The document service is down: the assistant may try again later, nothing was written
    Given the upstream "https://docs.example.com" fails GET "/documents/d-42" with status 503
    When the client calls "import_note" with {"document_id": "d-42"}
    Then the call fails with a tool error mentioning "The document service failed (HTTP 503)"
    And the error reason is "upstream_unavailable"
    And the error suggests "Try again in a minute"
    And the storage of tenant "acme" is unchanged
    And the upstream "https://docs.example.com" received GET "/documents/d-42" 1 time

  Scenario: The document service does not answer in time: the same advice, nothing was written
    Given the upstream "https://docs.example.com" times out on GET "/documents/d-42"
    When the client calls "import_note" with {"document_id": "d-42"}
    Then the call fails with a tool error mentioning "did not answer in time"
    And the error reason is "upstream_unavailable"
    And the error suggests "Try again in a minute"
    And the storage of tenant "acme" is unchanged
    And the upstream "https://docs.example.com" received GET "/documents/d-42" 1 time

  Scenario: The document service cannot be reached at all
    Given the upstream "https://docs.example.com" is unreachable
    When the client calls "import_note" with {"document_id": "d-42"}
    Then the call fails with a tool error mentioning "cannot be reached"
    And the error reason is "upstream_unavailable"
    And the storage of tenant "acme" is unchanged
    And the upstream "https://docs.example.com" received no request

  Scenario: Trying again once the document service has recovered imports the document
    Given the upstream "https://docs.example.com" fails GET "/documents/d-42" once with status 503
    And the upstream "https://docs.example.com" answers GET "/documents/d-42" with status 200 and:
      """
      {"title": "Onboarding", "body": "Read the handbook."}
      """
    When the client calls "import_note" with {"document_id": "d-42"}
    Then the error reason is "upstream_unavailable"
    When the client calls "import_note" with {"document_id": "d-42"}
    Then the call succeeds
    And the result mentions "Onboarding"
    And the upstream "https://docs.example.com" received GET "/documents/d-42" 2 times

  Scenario Outline: When the document service <trouble>, the assistant reads "<reason>" and the notebook is unchanged
    Given the upstream "https://docs.example.com" <trouble>
    When the client calls "import_note" with {"document_id": "d-42"}
    Then the outcome is "tool-error"
    And the error reason is "<reason>"
    And the error suggests "<hint>"
    And the storage of tenant "acme" is unchanged

    Examples:
      | trouble                                     | reason               | hint                       |
      | fails GET "/documents/d-42" with status 500 | upstream_unavailable | Try again in a minute      |
      | fails GET "/documents/d-42" with status 502 | upstream_unavailable | Try again in a minute      |
      | fails GET "/documents/d-42" with status 429 | upstream_unavailable | Try again in a minute      |
      | times out on GET "/documents/d-42"          | upstream_unavailable | Try again in a minute      |
      | is unreachable                              | upstream_unavailable | Try again in a minute      |
      | fails GET "/documents/d-42" with status 404 | document_not_found   | Check the document id      |
      | fails GET "/documents/d-42" with status 403 | document_unreadable  | create the note            |

  Scenario: A document without a title is not imported
    Given the upstream "https://docs.example.com" answers GET "/documents/d-42" with status 200 and:
      """
      {"body": "Just a body"}
      """
    When the client calls "import_note" with {"document_id": "d-42"}
    Then the error reason is "document_unreadable"
    And the storage of tenant "acme" is unchanged

  Scenario: An id that is not a document id never reaches the document service
    Given the upstream "https://docs.example.com" is unreachable
    When the client calls "import_note" with {"document_id": "../admin"}
    Then the error reason is "document_not_found"
    And the upstream "https://docs.example.com" received no request

  Scenario: Working with notes does not call the document service
    Given the upstream "https://docs.example.com" answers GET "/documents/d-42" with status 200 and:
      """
      {"title": "Onboarding", "body": "Read the handbook.", "tags": []}
      """
    When the client calls "create_note" with {"title": "Groceries", "body": "Milk"}
    And the client calls "list_notes"
    Then the call succeeds
    And the upstream "https://docs.example.com" received no request

  Scenario: Sharing a note sends the note itself to the document service
    Given the upstream "https://docs.example.com" answers POST "/documents" with status 201 and:
      """
      {"id": "d-77"}
      """
    When the client calls "share_note" with {"note_id": "n-1"}
    Then the structured result contains:
      """
      {"note_id": "n-1", "document_id": "d-77"}
      """
    And the upstream "https://docs.example.com" received POST "/documents" with:
      """
      {"title": "Plan", "body": "Ship it", "source": "notes/n-1"}
      """

  Scenario: Sharing while the document service is down can be tried again later
    Given the upstream "https://docs.example.com" fails POST "/documents" with status 503
    When the client calls "share_note" with {"note_id": "n-1"}
    Then the call fails with the tool error "upstream_unavailable"
    And the error is retryable
    And the error suggests "nothing was published"

  Scenario: A note that does not exist is not shared
    Given the upstream "https://docs.example.com" is unreachable
    When the client calls "share_note" with {"note_id": "n-404"}
    Then the call fails with the tool error "note_not_found"
    And the upstream "https://docs.example.com" received no request
