Feature: Log checks fail saying what the server logged
  Each scenario below is expected to FAIL; tests/spawning/test_failing_steps.py checks that each message
  names the call and every log message that arrived (or, for a check that would say nothing
  about the server, why the specification is broken and how to fix it).

  Background:
    Given the user "alice" of tenant "acme"

  Scenario: logged, but at another level
    Given the client asks for log messages from level "debug"
    When the client calls "import_notebook" with {"notes": [{"title": "Milk", "body": "two litres"}]}
    Then the server logged "Importing 1 notes" at level "warning"

  Scenario: logged, but from another logger
    Given the client asks for log messages from level "info"
    When the client calls "import_notebook" with {"notes": [{"title": "Milk", "body": "two litres"}]}
    Then the server logged "Importing 1 notes" at level "info" from the logger "notes.export"

  Scenario: logged nothing above, but a warning came
    Given the client asks for log messages from level "debug"
    When the client calls "import_notebook" with {"notes": [{"title": "Eggs"}]}
    Then the server logged nothing above "info"

  Scenario: no log message mentions, but one does
    Given the MCP server "event_server:mcp"
    And the client asks for log messages from level "info"
    When the client calls "leaky"
    Then no log message mentions "sk-event-4242"

  Scenario: a server logs although the client asked for none
    Given the MCP server "event_server:mcp"
    When the client calls "chatty"
    Then the server logged nothing above "error"

  Scenario: logged, with no level asked for
    When the client calls "import_notebook" with {"notes": [{"title": "Milk", "body": "two litres"}]}
    Then the server logged "Importing 1 notes" at level "info"

  Scenario: logged at a level below the one asked for
    Given the client asks for log messages from level "warning"
    When the client calls "import_notebook" with {"notes": [{"title": "Milk", "body": "two litres"}]}
    Then the server logged "Importing 1 notes" at level "info"

  Scenario: logged nothing above the highest level
    Given the client asks for log messages from level "debug"
    When the client calls "list_notes"
    Then the server logged nothing above "emergency"

  Scenario: asks for log messages from a level that does not exist
    Given the client asks for log messages from level "verbose"

  Scenario: no log message mentions, with no level asked for
    When the client calls "list_notes"
    Then no log message mentions "two litres"
