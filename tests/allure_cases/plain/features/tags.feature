@epic.Team_notes @tenant.acme
Feature: Labels from tags
  @tool.create_note @tool.get_note @severity.critical @owner.alice @allure.issue:NOTES-7
  Scenario: tags become labels
    Given a step

  @blocker
  Scenario: allure's own severity tags still work
    Given a step
