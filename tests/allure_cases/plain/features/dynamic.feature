Feature: Metadata set at run time
  Scenario: dynamic title, severity, label, tag and parameter
    Given the scenario sets its Allure metadata at run time
