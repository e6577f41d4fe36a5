Feature: A result of 20 MB, reported in attachments that stay small
  tests/spawning/test_hostile_input.py runs this with the Allure formatter and measures the results
  folder. The scenario fails on purpose, so the trace of a failed scenario is attached too.

  Scenario: a tool answers 20 MB
    Given the MCP server "servers:awkward"
    When the client calls "flood" with {"megabytes": 20}
    Then the result mentions "a word the flood never says"
