Feature: Outline rows
  Scenario Outline: Adding numbers
    Given a step with "<a>"
    And a step with "<b>"

    Examples:
      | a | b |
      | 1 | 2 |
      | 3 | 4 |
