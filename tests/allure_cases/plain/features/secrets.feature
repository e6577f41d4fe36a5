Feature: Secrets never reach the report
  Scenario: a secret in a step, an attachment and a failure message
    Given a step with "s3cr3t-token"
    When the step attaches a text mentioning "s3cr3t-token"
    Then the step fails mentioning "s3cr3t-token"
