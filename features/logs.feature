Feature: The notes server logs what an import does, for a client that asks
  An assistant that shows its user what went on asks the server for log messages from the
  level it cares about. The notes server logs the start and the end of an import, each note
  it imported and each note that had no body, and never a note's body: that is the team's
  data, and logs end up in places the team does not control.

  Background:
    Given the user "alice" of tenant "acme"

  Scenario: From level info, the import's summary and its warnings arrive
    Given the client asks for log messages from level "info"
    When the client calls "import_notebook" with:
      """
      {"notes": [{"title": "Milk", "body": "two litres"}, {"title": "Eggs"}]}
      """
    Then the call succeeds
    And the server logged "Importing 2 notes" at level "info" from the logger "notes.import"
    And the server logged "Note 'Eggs' has no body" at level "warning"
    And the server logged "Imported 2 notes" at level "info"
    And the server logged nothing above "warning"
    And no log message mentions "two litres"

  Scenario: From level debug, each imported note is logged too
    Given the client asks for log messages from level "debug"
    When the client calls "import_notebook" with {"notes": [{"title": "Milk", "body": "two litres"}]}
    Then the server logged "Imported 'Milk' as n-1" at level "debug"

  @harness.client
  Scenario: Log messages reach a client of the server run as its own process, over stdio
    Given the MCP server "stdio: {python} -m mcpbdd.examples.notes"
    And the client asks for log messages from level "warning"
    When the client calls "import_notebook" with {"notes": [{"title": "Eggs"}]}
    Then the server logged "Note 'Eggs' has no body" at level "warning" from the logger "notes.import"
    And the server logged nothing above "warning"

  @harness.client
  Scenario: Log messages reach a client of the server run as a web service, over HTTP
    Given the MCP server "http: {python} -m mcpbdd.examples.notes --http 127.0.0.1:{port}"
    And the client asks for log messages from level "info"
    When the client calls "import_notebook" with {"notes": [{"title": "Eggs"}]}
    Then the server logged "Note 'Eggs' has no body" at level "warning" from the logger "notes.import"
    And the server logged nothing above "warning"
