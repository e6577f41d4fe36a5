@tool.notes
Feature: What a reviewer sees
  Scenarios that FAIL on purpose: tests/spawning/test_allure_formatter.py reads their Allure results.

  Background:
    Given the user "alice" of tenant "acme"

  Scenario: a failed assertion about a call
    When the client calls "create_note" with {"title": "Groceries", "body": "Milk and s3cr3t-token"}
    Then the result mentions "Bread"

  Scenario: a conversation that took fewer rounds than expected
    Given the client calls "create_note" with {"title": "Old plan", "body": "x"}
    When the client calls "delete_note" with {"note_id": "n-1"}
    And the user accepts with:
      """
      {"confirm": true}
      """
    Then the call took 3 rounds

  Scenario: storage that changed when it should not have
    When the client calls "create_note" with {"title": "Launch plan", "body": "Friday"}
    Then the storage of tenant "acme" is unchanged

  Scenario: an import whose document service answered something else
    Given the upstream "https://docs.example.com" answers GET "/documents/d-42" with status 200 and:
      """
      {"title": "Onboarding", "body": "Read the handbook", "tags": []}
      """
    When the client calls "import_note" with {"document_id": "d-42"}
    Then the result mentions "Offboarding"

  Scenario: an import that logged something else
    Given the client asks for log messages from level "info"
    When the client calls "import_notebook" with {"notes": [{"title": "s3cr3t-token"}]}
    Then the server logged "Exported" at level "info"
