Feature: A value one call returns is carried into later calls
  The server makes up a note's id; a later call sends it back. The scenario remembers the
  value by its JSON path and writes ${name} where it goes, so the specification never
  depends on which id the server picked.

  Background:
    Given the user "alice" of tenant "acme"

  Scenario Outline: A note is read back by the id the server gave it
    When the client calls "create_note" with {"title": "<title>", "body": "<body>"}
    And the result's "$.id" is remembered as "note"
    And the client calls "get_note" with {"note_id": "${note}"}
    Then the structured result contains:
      """
      {"title": "<title>", "body": "<body>"}
      """
    When the client reads the resource "notes://${note}"
    Then the result mentions "<title>"

    Examples:
      | title    | body           |
      | Plan     | Ship on Friday |
      | Minutes  | Approved       |

  Scenario: A note is found in storage under the id the server gave it
    When the client calls "create_note" with {"title": "Budget", "body": "Draft"}
    And the result's "$.id" is remembered as "note"
    Then the storage of tenant "acme" holds "notes/${note}" containing:
      """
      {"id": "${note}", "title": "Budget", "author": "alice"}
      """
    When the client calls "delete_note" with {"note_id": "${note}"}
    And the user gives consent
    Then the storage of tenant "acme" has no key "notes/${note}"
