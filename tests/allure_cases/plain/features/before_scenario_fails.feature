Feature: A scenario whose set-up fails
  @fail_before_scenario
  Scenario: the set-up of this scenario fails
    Given a step

  Scenario: the next scenario still runs
    Given a step
