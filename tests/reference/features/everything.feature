Feature: A reference server on the 2025-11-25 protocol, through the same steps
  The npm reference server "everything" is written in TypeScript and speaks the older
  protocol: it asks its questions in the middle of a call. The same steps that specify
  an SDK server specify it.

  Scenario: It echoes
    When the client calls "echo" with {"message": "hello"}
    Then the result mentions "Echo: hello"

  Scenario: It asks the user mid-call and the user answers
    When the client calls "trigger-elicitation-request"
    Then the server asks by elicitation
    When the user accepts with:
      """
      {"name": "Ada", "check": true}
      """
    Then the call succeeds
    And the result mentions "Ada"
    And the call took 2 rounds

  Scenario: It asks the client's model, which answers from the queue
    Given the model will answer "A haiku about tests"
    When the client calls "trigger-sampling-request" with {"prompt": "Write a haiku"}
    Then the result mentions "A haiku about tests"

  Scenario: It asks for the client's roots
    When the client calls "get-roots-list"
    Then the server asks for the roots
    When the client answers with the roots:
      | uri                     | name  |
      | file:///home/ada/notes  | Notes |
    Then the result mentions "file:///home/ada/notes"

  Scenario: Its errors keep their channel
    When the client calls "get-sum" with {"a": "one"}
    Then the outcome is "tool-error"
