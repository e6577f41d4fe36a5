Feature: A long import tells its user how far it got
  Importing a notebook takes a while, so the notes server reports progress after each note:
  how many of how many, and which note it just imported. An assistant shows that to its user
  instead of a spinner. The notes are stored together at the end, so the user never finds
  half a notebook.

  Background:
    Given the user "alice" of tenant "acme"

  Scenario: Each imported note is a step forward
    When the client calls "import_notebook" with:
      """
      {"notes": [{"title": "Milk"}, {"title": "Eggs"}, {"title": "Bread", "body": "rye"}]}
      """
    Then the call succeeds
    And the call reported progress 3 times
    And the progress reached 3 of 3
    And the progress never went backwards
    And a progress message says "Imported 'Bread'"
    And the storage of tenant "acme" holds "notes/n-3" equal to:
      """
      {"id": "n-3", "title": "Bread", "body": "rye", "tags": [], "author": "alice", "created_at": "#string"}
      """

  Scenario: An import that fails part-way reports what it did and stores nothing
    When the client calls "import_notebook" with {"notes": [{"title": "Milk"}, {"title": " "}]}
    Then the call fails with a tool error mentioning "nothing was imported"
    And the call reported progress 1 time
    And the storage of tenant "acme" is unchanged

  Scenario: A quick call reports no progress
    When the client calls "list_notes"
    Then the call reported progress 0 times

  @harness.client
  Scenario: Progress reaches a client of the server run as its own process, over stdio
    Given the MCP server "stdio: {python} -m mcpbdd.examples.notes"
    When the client calls "import_notebook" with {"notes": [{"title": "Milk"}, {"title": "Eggs"}]}
    Then the call succeeds
    And the call reported progress 2 times
    And the progress reached 2 of 2
    And the progress never went backwards
    And a progress message says "Imported 'Eggs'"

  @harness.client
  Scenario: Progress reaches a client of the server run as a web service, over HTTP
    Given the MCP server "http: {python} -m mcpbdd.examples.notes --http 127.0.0.1:{port}"
    When the client calls "import_notebook" with {"notes": [{"title": "Milk"}, {"title": "Eggs"}]}
    Then the call succeeds
    And the call reported progress 2 times
    And the progress never went backwards
