Feature: Scenarios inside rules
  Background:
    Given a step

  Scenario: outside any rule
    Given a step

  Rule: the first rule
    Scenario: inside the first rule
      Given a step

    Scenario: inside the first rule, with a table
      Given a step with a table
        | name | value |
        | a    | 1     |
        | b    | 2     |

  @story.Custom_story
  Rule: the second rule
    Scenario Outline: an outline inside a rule, <value>
      Given a step with "<value>"

      Examples:
        | value |
        | one   |
        | two   |
