Feature: Discovery checks fail saying how the server described itself
  Each scenario below is expected to FAIL; tests/spawning/test_failing_steps.py checks that each
  message names the part that differs and shows the whole description (or, for a description
  that names nothing a server could say, why the specification is broken and how to fix it).

  Background:
    Given the user "alice" of tenant "acme"

  Scenario: describes itself, but under another name
    Then the server describes itself with:
      """
      {"name": "todo"}
      """

  Scenario: describes itself, but without a capability
    Then the server describes itself with:
      """
      {"capabilities": {"logging": "#object"}}
      """

  Scenario: describes itself with nothing
    Then the server describes itself with:
      """
      {}
      """

  Scenario: describes itself with a part no description has
    Then the server describes itself with:
      """
      {"name": "notes", "homepage": "https://example.com"}
      """

  Scenario: describes itself with a list
    Then the server describes itself with:
      """
      ["notes"]
      """

  Scenario: describes itself with a misspelt marker
    Then the server describes itself with:
      """
      {"version": "#strin"}
      """

  # Caching hints exist on 2026-07-28 only: a 2025-11-25 pass skips these, saying so.
  Scenario: may be cached for, but for another time
    Then the tools list may be cached for 30 seconds

  Scenario: may be cached privately, but any client may share it
    Given the MCP server "event_server:mcp"
    Then the tools list may be cached privately

  Scenario: may be cached for a negative time
    Then the prompts list may be cached for -5 seconds

  Scenario: may be cached for, but the server sends no hint
    Given the MCP server "http: {python} tests/stripped_hints_server.py {port}"
    Then the tools list may be cached for 60 seconds

  Scenario: completions include, but the value is not offered
    Given the client calls "create_note" with {"title": "Milk", "body": "2 l", "tags": ["groceries", "home"]}
    When the client asks to complete the argument "tag" of the prompt "summarize_notes" from "g"
    Then the completions include "home"

  Scenario: completions are, but in another order
    Given the client calls "create_note" with {"title": "Rent", "body": "May", "tags": ["groceries", "garage"]}
    When the client asks to complete the argument "tag" of the prompt "summarize_notes" from "g"
    Then the completions are:
      | groceries |
      | garage    |

  Scenario: completes against a server that declares no completions
    Given the MCP server "event_server:mcp"
    When the client asks to complete the argument "tag" of the prompt "summarize_notes" from "g"

  Scenario: completions checked before any was asked for
    Then the completions include "home"

  Scenario: completions are, with a table of two columns
    When the client asks to complete the argument "tag" of the prompt "summarize_notes" from "g"
    Then the completions are:
      | value | label |
      | home  | Home  |

  Scenario: offers the resource template, but the server offers another
    Then the server offers the resource template "notes://{id}"

  Scenario: completes a template variable, but the value is not offered
    Given the client calls "create_note" with {"title": "Milk", "body": "2 l"}
    When the client asks to complete the variable "note_id" of the resource template "notes://{note_id}" from "n"
    Then the completions include "n-2"

  Scenario: completes a variable the template does not have
    When the client asks to complete the variable "id" of the resource template "notes://{note_id}" from "n"

  Scenario: completes a template variable against a server that declares no completions
    Given the MCP server "event_server:mcp"
    When the client asks to complete the variable "id" of the resource template "events://{id}" from "x"

  # Caching hints exist on 2026-07-28 only: a 2025-11-25 pass skips these, saying so.
  Scenario: read may be cached for, but for another time
    Given the client calls "create_note" with {"title": "Milk", "body": "2 l"}
    When the client reads the resource "notes://n-1"
    Then the read may be cached for 300 seconds

  Scenario: read may be cached privately, but any client may share it
    Given the MCP server "event_server:mcp"
    When the client reads the resource "events://status"
    Then the read may be cached privately

  Scenario: read may be cached, but the read failed
    When the client reads the resource "notes://n-404"
    Then the read may be cached for 60 seconds

  Scenario: read may be cached, but the last call was no read
    When the client calls "list_notes"
    Then the read may be cached privately

  Scenario: read may be cached for, but the server sends no hint
    Given the MCP server "http: {python} tests/stripped_hints_server.py {port}"
    When the client reads the resource "clean://milk"
    Then the read may be cached for 60 seconds

  Scenario: may be cached publicly, but only the caller may keep it
    Then the tools list may be cached publicly

  Scenario: read may be cached publicly, but only the caller may keep it
    Given the client calls "create_note" with {"title": "Milk", "body": "2 l"}
    When the client reads the resource "notes://n-1"
    Then the read may be cached publicly
