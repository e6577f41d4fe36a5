"""Completions of a resource template's variable on each harness, and what a template's variables are.

The prompt argument's completions are shown by features/discovery.feature; a template variable's
are asked here on the context harness and the client harness in both eras, against the bundled
notes server, which completes a note resource's `note_id` from the caller's own notes only.
"""

from __future__ import annotations

from typing import Any

import pytest

from mcpbdd.checks import completions, expect
from mcpbdd.checks.completions import complete_template_variable
from mcpbdd.checks.offered import list_templates
from mcpbdd.kit.principals import Principal
from mcpbdd.model.completions import Completing, template_variables
from mcpbdd.model.errors import VacuousCheck
from mcpbdd.model.outcome import Call

ALICE = Principal("alice", "acme")
BOB = Principal("bob", "globex")


@pytest.mark.anyio
async def test_a_template_variable_completes_from_the_callers_notes_only(notes_harness: Any) -> None:
    for caller, title in ((ALICE, "Milk"), (ALICE, "Rent"), (BOB, "Plans")):
        created = await notes_harness.send(caller, Call.tool("create_note", {"title": title, "body": "x"}))
        assert created.ok, created.describe()
    answer = await complete_template_variable(notes_harness, ALICE, "notes://{note_id}", "note_id", "n-")
    completions.completions_are(answer, ["n-1", "n-2"])
    with pytest.raises(AssertionError, match=r"completing the variable 'note_id' of the resource template"):
        completions.completions_include(answer, "n-3")
    theirs = await complete_template_variable(notes_harness, BOB, "note-data://{note_id}", "note_id", "")
    assert theirs.values == ("n-1",)  # bob's own n-1, not alice's two


@pytest.mark.anyio
async def test_the_server_offers_its_templates_and_a_failure_lists_them(notes_harness: Any) -> None:
    templates = await list_templates(notes_harness, ALICE)
    expect.offers_resource_template(templates, "notes://{note_id}")
    with pytest.raises(AssertionError, match=r"it offers: notes://\{note_id\}, note-data://\{note_id\}"):
        expect.offers_resource_template(templates, "notes://{id}")
    with pytest.raises(VacuousCheck):
        expect.offers_resource_template(templates, " ")


def test_a_variable_the_template_does_not_have_is_a_broken_specification() -> None:
    assert template_variables("notes://{note_id}/{+path}{?page,size*}") == ["note_id", "path", "page", "size"]
    assert str(Completing.template_variable("notes://{note_id}", "note_id")).startswith("the variable 'note_id'")
    with pytest.raises(VacuousCheck, match=r"has no variable 'id' \(its variables are note_id\)"):
        Completing.template_variable("notes://{note_id}", "id")
    with pytest.raises(VacuousCheck, match=r"it has no variables"):
        Completing.template_variable("notes://all", "id")
