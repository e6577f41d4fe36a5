Feature: Outline rows whose name shows some of their values
  Scenario Outline: Adding <a>
    Given a step with "<a>"
    And a step with "<b>"

    Examples:
      | a | b |
      | 1 | 2 |
      | 3 | 4 |

  Scenario Outline: Adding <a> to <b>
    Given a step with "<a>"

    Examples:
      | a | b |
      | 5 | 6 |
