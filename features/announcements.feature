Feature: The notes server tells a listening client what changed
  An assistant keeps the list of tools it may use and the notes it shows. Rather than asking
  again and again, it listens: the server announces when a tenant turns its archive on (the
  archive tool becomes usable, so the tools list changed) and when a note it shows was edited.
  A client is told only what it asked to hear, and nothing when nothing changed.

  Each scenario first puts the notebook in the state it starts from (a note that exists already
  is left as it is), so the feature also holds against a server that keeps its state between
  scenarios, such as one reached at a URL.

  Background:
    Given the user "alice" of tenant "acme"

  Scenario: Turning the archive on changes the tools a tenant can use
    Given the client calls "set_archiving" with {"enabled": false}
    When the client listens for changes to the tools list
    And the client calls "set_archiving" with {"enabled": true}
    Then the call succeeds
    And the server announces that the tools list changed

  Scenario: A setting left as it was changes nothing
    Given the client calls "set_archiving" with {"enabled": false}
    When the client listens for changes to the tools list
    And the client calls "set_archiving" with {"enabled": false}
    Then the result mentions "already off"
    And the server announces nothing

  Scenario: Editing a note tells the client that shows it
    Given the client calls "create_note" with {"title": "Plan", "body": "Ship", "slug": "plan"}
    When the client listens for changes to the resource "notes://plan"
    And the client calls "edit_note" with {"note_id": "plan", "body": "Ship on Friday"}
    Then the call succeeds
    And the server announces that the resource "notes://plan" changed

  Scenario: A client hears only what it asked to hear
    Given the client calls "create_note" with {"title": "Plan", "body": "Ship", "slug": "plan"}
    And the client calls "set_archiving" with {"enabled": false}
    When the client listens for changes to the prompts list
    And the client listens for changes to the resources list
    And the client listens for changes to the resource "notes://other"
    And the client calls "edit_note" with {"note_id": "plan", "body": "Ship on Friday"}
    And the client calls "set_archiving" with {"enabled": true}
    Then the server announces nothing

  @harness.client
  Scenario: Announcements reach a client of the server run as its own process, over stdio
    Given the MCP server "stdio: {python} -m mcpbdd.examples.notes"
    And the client calls "create_note" with {"title": "Plan", "body": "Ship", "slug": "plan"}
    And the client calls "set_archiving" with {"enabled": false}
    When the client listens for changes to the tools list
    And the client listens for changes to the resource "notes://plan"
    And the client calls "set_archiving" with {"enabled": true}
    And the client calls "edit_note" with {"note_id": "plan", "body": "Ship on Friday"}
    Then the server announces that the tools list changed
    And the server announces that the resource "notes://plan" changed

  @harness.client
  Scenario: Announcements reach a client of the server run as a web service, over HTTP
    Given the MCP server "http: {python} -m mcpbdd.examples.notes --http 127.0.0.1:{port}"
    And the client calls "create_note" with {"title": "Plan", "body": "Ship", "slug": "plan"}
    And the client calls "set_archiving" with {"enabled": false}
    When the client listens for changes to the tools list
    And the client listens for changes to the resource "notes://plan"
    And the client calls "set_archiving" with {"enabled": true}
    And the client calls "edit_note" with {"note_id": "plan", "body": "Ship on Friday"}
    Then the server announces that the tools list changed
    And the server announces that the resource "notes://plan" changed
