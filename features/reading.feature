Feature: Colleagues read notes as documents, data and prompts
  A note can be read as a markdown document or as JSON data, and the summary prompt
  quotes a tenant's notes; each user reads as themselves, so another company reads nothing.

  Background:
    Given the user "rita" of tenant "northside"
    And the user "sam" of tenant "northside"
    And the user "erin" of tenant "globex"
    And the storage of tenant "northside" holds "notes/n-7" equal to:
      """
      {"id": "n-7", "title": "Allergies", "body": "Penicillin; see the chart", "tags": ["clinic"],
       "author": "rita", "created_at": "2026-03-01T09:00:00+00:00"}
      """

  Scenario: A colleague reads a note as JSON data
    When "sam" reads the resource "note-data://n-7"
    Then the call succeeds
    And the structured result contains:
      """
      {"id": "n-7", "title": "Allergies", "author": "rita"}
      """
    And the structured result matches:
      """
      {"id": "n-7", "title": "Allergies", "body": "#string", "tags": ["clinic"], "author": "rita",
       "created_at": "#iso-datetime"}
      """

  Scenario: A colleague reads a note as a document
    When "sam" reads the resource "notes://n-7"
    Then the call succeeds
    And the result mentions "# Allergies"

  Scenario: A client may keep a note it read for a minute, for the reader alone
    When "sam" reads the resource "notes://n-7"
    Then the read may be cached for 60 seconds
    And the read may be cached privately

  Scenario: Another company cannot read the note, whichever way it asks
    When "erin" reads the resource "note-data://n-7"
    Then the call fails with a protocol error
    And the result does not mention "Penicillin"

  Scenario: The summary prompt quotes a user's own notes
    When "sam" gets the prompt "summarize_notes" with:
      | argument | value  |
      | tag      | clinic |
    Then the call succeeds
    And the structured result contains:
      """
      {"messages": [{"role": "user", "content": {"type": "text", "text": "#regex (?s).*- Allergies: Penicillin.*"}}]}
      """

  Scenario: The summary prompt quotes nothing of another company
    When "erin" gets the prompt "summarize_notes" with:
      | argument | value  |
      | tag      | clinic |
    Then the call succeeds
    And the result does not mention "Penicillin"
