Feature: Every upstream step fails when it should, with a message that says why
  Each scenario below is expected to FAIL, against the bundled notes server's import_note
  (which reads https://docs.example.com); tests/spawning/test_failing_steps.py checks the messages.

  Background:
    Given the user "alice" of tenant "acme"

  Scenario: a request no route matches
    Given the upstream "https://docs.example.com" answers GET "/documents/d-1" with status 200 and:
      """
      {"title": "Plan", "body": "Ship it"}
      """
    And the upstream "https://docs.example.com.evil" answers GET "/documents/d-2" with status 200 and:
      """
      {"title": "Trap", "body": "Another origin"}
      """
    When the client calls "import_note" with {"document_id": "d-2"}
    Then the call succeeds

  Scenario: a request when no route is declared
    When the client calls "import_note" with {"document_id": "d-1"}
    Then the call succeeds

  Scenario: a once route that was used up
    Given the upstream "https://docs.example.com" answers GET "/documents/d-1" once with status 200 and:
      """
      {"title": "Plan", "body": "Ship it"}
      """
    When the client calls "import_note" with {"document_id": "d-1"}
    And the client calls "import_note" with {"document_id": "d-1"}
    Then the call succeeds

  Scenario: received a number of times, but another number
    Given the upstream "https://docs.example.com" fails GET "/documents/d-1" with status 503
    When the client calls "import_note" with {"document_id": "d-1"}
    Then the upstream "https://docs.example.com" received GET "/documents/d-1" 3 times

  Scenario: received a request, but it never came
    Given the upstream "https://docs.example.com" fails GET "/documents/d-1" with status 503
    When the client calls "list_notes"
    Then the upstream "https://docs.example.com" received GET "/documents/d-1" 1 time

  Scenario: received no request, but one came
    Given the upstream "https://docs.example.com" fails GET "/documents/d-1" with status 503
    When the client calls "import_note" with {"document_id": "d-1"}
    Then the upstream "https://docs.example.com" received no request

  Scenario: an upstream that is not an origin
    Given the upstream "https://docs.example.com/v1" fails GET "/documents/d-1" with status 503

  Scenario: an upstream without a scheme
    Given the upstream "docs.example.com" is unreachable

  Scenario: an unknown HTTP method
    Given the upstream "https://docs.example.com" fails FETCH "/documents/d-1" with status 503

  Scenario: a failure with a success status
    Given the upstream "https://docs.example.com" fails GET "/documents/d-1" with status 200

  Scenario: a path without its leading slash
    Given the upstream "https://docs.example.com" times out on GET "documents/d-1"

  Scenario: an answer that is not JSON
    Given the upstream "https://docs.example.com" answers GET "/documents/d-1" with status 200 and:
      """
      {"title": "Plan",
      """

  Scenario: received a body, but another body
    Given the storage of tenant "acme" holds "notes/n-1" equal to:
      """
      {"id": "n-1", "title": "Plan", "body": "Ship it", "tags": [], "author": "alice", "created_at": "2026-01-01T00:00:00Z"}
      """
    And the upstream "https://docs.example.com" answers POST "/documents" with status 201 and:
      """
      {"id": "d-77"}
      """
    When the client calls "share_note" with {"note_id": "n-1"}
    Then the upstream "https://docs.example.com" received POST "/documents" with:
      """
      {"title": "Roadmap", "source": "notes/n-1"}
      """

  Scenario: received a body, but no such request came
    Given the upstream "https://docs.example.com" answers POST "/documents" with status 201 and:
      """
      {"id": "d-77"}
      """
    When the client calls "list_notes"
    Then the upstream "https://docs.example.com" received POST "/documents" with:
      """
      {"title": "Plan"}
      """

  Scenario: received a body that says nothing in particular
    Given the upstream "https://docs.example.com" answers POST "/documents" with status 201 and:
      """
      {"id": "d-77"}
      """
    When the client calls "list_notes"
    Then the upstream "https://docs.example.com" received POST "/documents" with:
      """
      {}
      """
