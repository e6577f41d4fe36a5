Feature: Every failure reaches the client on the channel it can act on
  An assistant reads a tool error and can recover from it ("that note does not exist,
  list the notes first"); a protocol error means the request itself was refused. The
  notes server must use the right channel for each failure, and say why.

  Background:
    Given the user "alice" of tenant "acme"

  Scenario Outline: <situation>
    When the client calls "<tool>" with <arguments>
    Then the outcome is "<outcome>"
    And the result mentions "<detail>"

    Examples: what the notes server answers
      | situation                               | tool          | arguments                                | outcome        | detail                      |
      | a well-formed note is created           | create_note   | {"title": "Plan", "body": "Ship it"}     | ok             | Plan                        |
      | a note that does not exist is requested | get_note      | {"note_id": "n-404"}                     | tool-error     | Note n-404 not found        |
      | a note without a title is refused       | create_note   | {"title": " ", "body": "?"}              | tool-error     | needs a title               |
      | arguments fail the input schema         | create_note   | {"title": 42}                            | tool-error     | validation error            |
      | a tool the server does not have         | archive_notes | {}                                       | tool-error     | Unknown tool: archive_notes |
      | an unsupported export format            | export_notes  | {"format": "pdf"}                        | protocol-error | Unsupported export format   |
      | a missing note cannot be deleted        | delete_note   | {"note_id": "n-404"}                     | tool-error     | Note n-404 not found        |

  Scenario: A refused export names the formats the server supports
    When the client calls "export_notes" with {"format": "docx"}
    Then the call fails with the protocol error -32602
    And the error reason is "export_format_unsupported"
    And the error suggests "markdown or json"
    And the result mentions "markdown"
    And the call fails the same way 3 times in a row

  Scenario: A domain failure is a tool error the assistant can read
    When the client calls "get_note" with {"note_id": "n-7"}
    Then the call fails with a tool error mentioning "List the notes"
    And the error reason is "note_not_found"

  Scenario: Nobody signed in means no notebook, every time
    Given nobody is signed in
    When the client calls "list_notes"
    Then the call fails with a tool error mentioning "Sign in first"
    And the call fails the same way 2 times in a row
