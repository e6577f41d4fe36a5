Feature: A check that would pass while checking nothing fails, saying why and how to fix it
  Each scenario below is expected to FAIL: as written, its last step could never fail,
  whatever the server does. tests/spawning/test_failing_steps.py checks each message names what
  was vacuous and how to fix the scenario.

  Background:
    Given the user "alice" of tenant "acme"

  Scenario: mentions an empty text
    When the client calls "list_notes"
    Then the result mentions ""

  Scenario: does not mention an empty text
    When the client calls "list_notes"
    Then the result does not mention " "

  Scenario: a tool error mentioning an empty text
    When the client calls "get_note" with {"note_id": "n-9"}
    Then the call fails with a tool error mentioning ""

  Scenario: suggests an empty hint
    When the client calls "get_note" with {"note_id": "n-9"}
    Then the error suggests ""

  Scenario: the structured result contains an empty object
    When the client calls "create_note" with {"title": "Groceries", "body": "Milk"}
    Then the structured result contains:
      """
      {}
      """

  Scenario: the structured result matches anything
    When the client calls "create_note" with {"title": "Groceries", "body": "Milk"}
    Then the structured result matches:
      """
      "#ignore"
      """

  Scenario: no response mentions, before any call
    Then no response mentions "confidential"

  Scenario: no response to a user who made no call
    Given the user "erin" of tenant "globex"
    When the client calls "create_note" with {"title": "Salaries", "body": "confidential"}
    Then no response to "erin" mentions "confidential"

  Scenario: no response mentions an empty text
    When the client calls "list_notes"
    Then no response mentions ""

  Scenario: fails the same way 0 times in a row
    When the client calls "get_note" with {"note_id": "n-9"}
    Then the call fails the same way 0 times in a row

  Scenario: fails the same way 1 times in a row
    When the client calls "get_note" with {"note_id": "n-9"}
    Then the call fails the same way 1 times in a row

  Scenario: offers the tools of an empty table
    Then the server offers the tools:
      | name |

  Scenario: storage seeded from an empty table
    Given the storage of tenant "acme" holds:
      | key | value |

  Scenario: has no key, in a tenant nobody knows
    When the client calls "create_note" with {"title": "Groceries", "body": "Milk"}
    Then the storage of tenant "acmee" has no key "notes/n-1"

  Scenario: unchanged, a tenant nobody knows
    When the client calls "create_note" with {"title": "Groceries", "body": "Milk"}
    Then the storage of tenant "initech" is unchanged

  Scenario: unchanged, before any When step
    Given the client calls "create_note" with {"title": "Groceries", "body": "Milk"}
    Then the storage of tenant "acme" is unchanged

  Scenario: every other tenant unchanged, with no other tenant
    When the client calls "create_note" with {"title": "Groceries", "body": "Milk"}
    Then the storage of every other tenant is unchanged

  Scenario: the question says an empty text
    When the client calls "create_note" with {"title": "Old plan", "body": "x"}
    And the client calls "delete_note" with {"note_id": "n-1"}
    Then the question says ""

  Scenario: consent to an empty operation
    When the client calls "create_note" with {"title": "Old plan", "body": "x"}
    And the client calls "delete_note" with {"note_id": "n-1"}
    Then the server asks for consent to ""

  Scenario: the call took 0 rounds
    When the client calls "list_notes"
    Then the call took 0 rounds

  Scenario: the call took 1 round, before any call
    Then the call took 1 round

  Scenario: the call took the rounds of an earlier call
    When the client calls "create_note" with {"title": "Old plan", "body": "x"}
    And the client calls "delete_note" with {"note_id": "n-1"}
    And the user accepts with:
      """
      {"confirm": true}
      """
    And the client calls "list_notes"
    Then the call took 2 rounds

  Scenario: the upstream received no request, before any call
    Given the upstream "https://docs.example.com" fails GET "/documents/d-1" with status 503
    Then the upstream "https://docs.example.com" received no request

  Scenario: the upstream received a request 0 times, before any call
    Given the upstream "https://docs.example.com" fails GET "/documents/d-1" with status 503
    Then the upstream "https://docs.example.com" received GET "/documents/d-1" 0 times

  Scenario: an upstream no route answers received no request
    Given the upstream "https://docs.example.com" fails GET "/documents/d-1" with status 503
    When the client calls "list_notes"
    Then the upstream "https://docs.exmple.com" received no request
