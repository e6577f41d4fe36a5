Feature: A misspelt harness tag stops the feature, naming the file and line of the tag
  tests/spawning/test_hostile_input.py checks the message (behave: a hook error; mcpbdd run: exit 2).

  @smoke @harness.contxt
  Scenario: a tag one letter off
    When the client calls "list_notes"

  Scenario Outline: a client mode on the context harness, on the Examples
    When the client calls "<tool>"

    @harness.context.legacy
    Examples:
      | tool       |
      | list_notes |
