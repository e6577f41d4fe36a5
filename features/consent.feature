Feature: Deleting needs the user's consent, and each consent deletes once
  Deleting a note cannot be undone, so the server asks the user first and keeps a
  one-time record of what the question showed. A "yes" deletes that note exactly once:
  sending it again, late, as someone else, or after the note changed does nothing.

  Background:
    Given the user "alice" of tenant "acme"
    And the user "bob" of tenant "acme"
    And the caller is "alice"
    And the storage of tenant "acme" holds:
      | key       | value                                                                                                             |
      | notes/n-1 | {"id": "n-1", "title": "Old plan", "body": "Scrapped", "tags": [], "author": "alice", "created_at": "2026-01-01T00:00:00Z"} |

  Scenario: With consent the note is deleted, once
    When the client calls "delete_note" with {"note_id": "n-1"}
    Then the server asks for consent to "delete the note"
    And the question says "Old plan"
    When the user gives consent
    Then the call succeeds
    And the storage of tenant "acme" has no key "notes/n-1"
    And the storage of tenant "acme" holds "audit/deletions" equal to:
      """
      [{"note": "n-1", "by": "alice", "at": "2026-01-01T00:00:00Z"}]
      """

  Scenario: Without consent nothing is deleted
    When the client calls "delete_note" with {"note_id": "n-1"}
    And the user refuses consent
    Then the call fails with a tool error
    And the error reason is "consent_declined"
    And the error suggests "change their mind"
    And the storage of tenant "acme" is unchanged

  @era.modern
  Scenario: Sending the same consent again deletes nothing more
    When the client calls "delete_note" with {"note_id": "n-1"}
    And the user gives consent
    And the client calls "create_note" with {"title": "New plan", "body": "Fresh start", "slug": "n-1"}
    And the client replays the consented call
    Then the server asks for consent again
    And the storage of tenant "acme" holds "audit/deletions" equal to:
      """
      [{"note": "n-1", "by": "alice", "at": "#iso-datetime"}]
      """
    When the client calls "get_note" with {"note_id": "n-1"}
    Then the result mentions "New plan"

  @era.modern
  Scenario: A colleague cannot use the question alice was asked
    When the client calls "delete_note" with {"note_id": "n-1"}
    And "bob" replays the consented call
    Then the call does not succeed
    And the storage of tenant "acme" has no key "audit/deletions"
    When "alice" calls "get_note" with {"note_id": "n-1"}
    Then the call succeeds

  Scenario: A "yes" deletes only the note the user was asked about
    Alice is asked about a temporary note. It expires while she decides, and bob
    writes "Board minutes" under the same id: her "yes" was never about that note.
    When the client calls "create_note" with:
      | argument           | value        |
      | title              | Draft agenda |
      | body               | Until Friday |
      | slug               | agenda       |
      | expires_in_minutes | 5            |
    And the client calls "delete_note" with {"note_id": "agenda"}
    Then the question says "Draft agenda"
    When 6 minutes pass
    And "bob" calls "create_note" with {"title": "Board minutes", "body": "Approved unanimously", "slug": "agenda"}
    And the user gives consent
    Then the server asks for consent again
    And the question says "Board minutes"
    And the question says "changed since you were asked"
    And the storage of tenant "acme" has no key "audit/deletions"
    And the storage of tenant "acme" holds "notes/agenda" equal to:
      """
      {"id": "agenda", "title": "Board minutes", "body": "Approved unanimously", "tags": [], "author": "bob",
       "created_at": "#iso-datetime"}
      """

  Scenario: A colleague cannot slip another note in under the id alice is asked about
    When the client calls "delete_note" with {"note_id": "n-1"}
    And "bob" calls "create_note" with {"title": "Board minutes", "body": "Approved unanimously", "slug": "n-1"}
    Then the call fails with a tool error
    And the error reason is "note_exists"
    When the user gives consent
    Then the call succeeds
    And the storage of tenant "acme" has no key "notes/n-1"
    And the storage of tenant "acme" holds "audit/deletions" equal to:
      """
      [{"note": "n-1", "by": "alice", "at": "2026-01-01T00:00:00Z"}]
      """

  Scenario: A "yes" nobody asked for is not consent
    When the client calls "delete_note" with {"note_id": "n-1"} and consent given in advance
    Then the server asks for consent
    And the storage of tenant "acme" has no key "audit/deletions"

  @era.modern
  Scenario: A consent given too late does nothing
    When the client calls "delete_note" with {"note_id": "n-1"}
    And 11 minutes pass
    And the user gives consent
    Then the server asks for consent again
    And the storage of tenant "acme" has no key "audit/deletions"

  Scenario: A client that cannot ask its user cannot delete
    Given the client declares the capabilities "sampling, roots"
    When the client calls "delete_note" with {"note_id": "n-1"} and consent given in advance
    Then the call fails with the protocol error MissingRequiredClientCapability
    And the storage of tenant "acme" is unchanged
