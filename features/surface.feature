Feature: The tools the notes server promises its clients
  Assistants and their users depend on the notes tools: their names, the arguments they take,
  the fields they return and whether they are safe to run without asking. That promise is
  recorded in features/snapshots/notes-tools.json and reviewed like code. Any change to it
  fails here, each difference named and classed as breaking a client or not, until the
  snapshot is updated on purpose (mcpbdd run --update-snapshots) and the change reviewed.

  Scenario: The notes tools are exactly those recorded in the snapshot
    Given the tenant "acme"
    Then the server's tools match the snapshot "features/snapshots/notes-tools.json"
