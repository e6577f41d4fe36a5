Feature: A user can stop a long import, and finds no half of a notebook
  An import of many notes takes a while, and a user may change their mind part-way: their
  assistant then cancels the call. The notes server stops where it is and stores nothing,
  because it writes the notes together at the end; the user never finds half a notebook.
  (Each import below pauses 100 milliseconds after each note, `pace_ms`, so there is time to cancel.)

  Background:
    Given the user "alice" of tenant "acme"

  Scenario: The user stops the import after the first note
    Given the client cancels its next call after 1 progress report
    When the client calls "import_notebook" with:
      """
      {"notes": [{"title": "Milk"}, {"title": "Eggs"}, {"title": "Bread"}], "pace_ms": 100}
      """
    Then the call was cancelled
    And the call reported progress 1 time
    And the storage of tenant "acme" is unchanged

  Scenario: The user stops the import after a moment
    Given the client cancels its next call after 150 milliseconds
    When the client calls "import_notebook" with:
      """
      {"notes": [{"title": "Milk"}, {"title": "Eggs"}, {"title": "Bread"}], "pace_ms": 100}
      """
    Then the call was cancelled
    And the storage of tenant "acme" has no key "notes/n-1"
    And the storage of tenant "acme" is unchanged

  Scenario: A cancelled import is no success
    Given the client cancels its next call after 2 progress reports
    When the client calls "import_notebook" with {"notes": [{"title": "Milk"}, {"title": "Eggs"}, {"title": "Bread"}], "pace_ms": 100}
    Then the call does not succeed
    And the call was cancelled

  Scenario: The next import runs to its end
    Given the client cancels its next call after 1 progress report
    When the client calls "import_notebook" with {"notes": [{"title": "Milk"}, {"title": "Eggs"}], "pace_ms": 100}
    And the client calls "import_notebook" with {"notes": [{"title": "Milk"}]}
    Then the call succeeds
    And the storage of tenant "acme" holds "notes/n-1" equal to:
      """
      {"id": "n-1", "title": "Milk", "body": "", "tags": [], "author": "alice", "created_at": "#string"}
      """

  @harness.client
  Scenario: A server run as its own process stops when cancelled, over stdio
    Given the MCP server "stdio: {python} -m mcpbdd.examples.notes"
    And the client cancels its next call after 1 progress report
    When the client calls "import_notebook" with {"notes": [{"title": "Milk"}, {"title": "Eggs"}], "pace_ms": 100}
    Then the call was cancelled
    And the storage of tenant "acme" is unchanged

  @harness.client
  Scenario: A server run as a web service stops when cancelled, over HTTP
    Given the MCP server "http: {python} -m mcpbdd.examples.notes --http 127.0.0.1:{port}"
    And the client cancels its next call after 1 progress report
    When the client calls "import_notebook" with {"notes": [{"title": "Milk"}, {"title": "Eggs"}], "pace_ms": 100}
    Then the call was cancelled
    And the storage of tenant "acme" is unchanged
