Feature: The phrases a new user reached for fail when they should, with a message that says why
  Each scenario below is expected to FAIL; tests/spawning/test_failing_steps.py checks the message.

  Background:
    Given the user "rita" of tenant "northside"
    And the storage of tenant "northside" holds "notes/n-7" equal to:
      """
      {"id": "n-7", "title": "Allergies", "body": "Penicillin", "tags": ["clinic"], "author": "rita",
       "created_at": "2026-03-01T09:00:00+00:00"}
      """

  Scenario: a protocol error, but the read succeeded
    When "rita" reads the resource "note-data://n-7"
    Then the call fails with a protocol error

  Scenario: a protocol error, but it was a tool error
    When the client calls "get_note" with {"note_id": "n-9"}
    Then the call fails with a protocol error

  Scenario: a JSON resource holds another value
    When "rita" reads the resource "note-data://n-7"
    Then the structured result contains:
      """
      {"title": "Allergy"}
      """

  Scenario: a markdown resource has no JSON to compare
    When "rita" reads the resource "notes://n-7"
    Then the structured result contains:
      """
      {"title": "Allergies"}
      """

  Scenario: a prompt's messages say something else
    When "rita" gets the prompt "summarize_notes" with:
      | argument | value  |
      | tag      | clinic |
    Then the structured result matches:
      """
      {"description": "#string", "messages": [{"role": "assistant", "content": "#object"}]}
      """

  Scenario: a resource read by a user the scenario does not know
    When "mallory" reads the resource "note-data://n-7"

  Scenario: a prompt asked for by a user the scenario does not know
    When "mallory" gets the prompt "summarize_notes"

  Scenario: one key seeded with JSON that does not parse
    Given the storage of tenant "northside" holds "notes/n-8" equal to:
      """
      {"title": "Broken",}
      """

  Scenario: one key seeded under a key the storage refuses
    Given the storage of tenant "northside" holds "notes:n-8" equal to:
      """
      {"title": "Colon"}
      """

  Scenario: an answer with a field the question does not have
    When the client calls "delete_note" with {"note_id": "n-7"}
    And the user accepts with:
      """
      {"confirm": true, "reason": "tidying up"}
      """

  Scenario: an answer without the field the question requires
    When the client calls "delete_note" with {"note_id": "n-7"}
    And the user accepts with:
      """
      {}
      """

  Scenario: an answer of the wrong type
    When the client calls "delete_note" with {"note_id": "n-7"}
    And the user accepts with:
      """
      {"confirm": "yes"}
      """

  Scenario: an answer given in advance that does not fit the question
    Given the user will accept "elicitation-1" with:
      """
      {"confirmed": true}
      """
    When the client calls "delete_note" with {"note_id": "n-7"}

  Scenario: a key the tenant does not hold, next to the keys it does
    When "rita" reads the resource "note-data://n-7"
    Then the storage of tenant "northside" holds "notes/n7" equal to:
      """
      {"title": "Allergies"}
      """

  Scenario: a result that mentions what it must not
    When "rita" reads the resource "note-data://n-7"
    Then the result does not mention "Penicillin"
