@fail_before_feature
Feature: A feature whose set-up fails
  Scenario: first scenario that never runs
    Given a step

  Rule: a rule
    Scenario: second scenario that never runs
      Given a step with a table
        | name | value |
        | a    | 1     |
        | b    | 2     |
