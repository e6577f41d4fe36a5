Feature: The notes server keeps the promises its tool descriptions make
  An assistant builds its calls from the input schema each tool advertises and reads the
  answers by the advertised output schema. So every answer must have the advertised shape,
  and no input, however odd, may crash a tool, hang it, or make it reveal how the server
  is built (stack traces, file paths) or anything secret.

  Background:
    Given the user "alice" of tenant "acme"

  Scenario: Notes come back in the shape the server advertises
    When the client calls "create_note" with:
      """
      {"title": "Groceries", "body": "Milk, eggs", "tags": ["home"]}
      """
    And the client calls "create_note" with {"title": "Sprint goals", "body": "Ship contracts"}
    And the client calls "get_note" with {"note_id": "n-1"}
    And the client calls "list_notes"
    Then every result of "create_note" matches its output schema
    And every result of "get_note" matches its output schema
    And every result of "list_notes" matches its output schema

  Scenario: An export comes back in the shape the server advertises
    When the client calls "create_note" with {"title": "Plan", "body": "Ship it"}
    And the client calls "export_notes" with {"format": "json"}
    Then every result of "export_notes" matches its output schema

  Scenario Outline: "<tool>" survives odd inputs: very long, control characters, unicode, wrong types, extra keys
    Then "<tool>" survives <calls> generated calls

    Examples:
      | tool         | calls |
      | create_note  | 100   |
      | get_note     | 60    |
      | list_notes   | 60    |
      | export_notes | 60    |
      | delete_note  | 60    |

  Scenario: Odd inputs do not break a notebook that already has notes
    When the client calls "create_note" with {"title": "Groceries", "body": "Milk, eggs", "tags": ["home"]}
    Then "get_note" survives 60 generated calls
    And "list_notes" survives 60 generated calls
