Feature: What the notes tools tell a model
  A model reads every notes tool's name, description and argument schema on every request, to
  choose a tool and fill in its arguments. So what the tools say is specified like behaviour: each
  passes mcpbdd's lint rules (a description to choose by, every argument described and typed, no
  schema that refuses every call), none hides instructions from the user who reviews it, and the
  whole surface stays within a token budget, so every conversation leaves room for the user's work.

  Background:
    Given the tenant "acme"

  Scenario: The notes tools pass every lint rule
    Then the tool surface passes the lint rules

  Scenario: Every argument of the notes tools is described
    Then the tool surface passes the lint rule "parameter-undocumented"

  Scenario: No notes tool hides instructions from its reader
    Then no tool description hides instructions

  Scenario: The notes tools stay within their token budget
    Then the tool surface costs at most 4000 tokens
    And the description of "create_note" costs at most 200 tokens
