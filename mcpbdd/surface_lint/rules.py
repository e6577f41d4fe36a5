"""The lint rules of the tool surface: each with an id, a severity, why it matters and how to fix it.

A rule is data; the checks that find its violations live beside it (`quality`, `schemas`, `hidden`,
`tokens`). The docs build writes a page per rule from this table (docs/gen/lint_rules.py), so the page,
the console and the SARIF rule metadata say the same thing.

Severities are SARIF's: `error` fails `mcpbdd lint` (exit 1) and the lint phrases; `warning` fails the
phrases but not the command; `note` is reported only.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

__all__ = ["RULES", "Rule", "Severity", "rule_named"]

Severity = Literal["error", "warning", "note"]


@dataclass(frozen=True)
class Rule:
    """One rule: `id` (stable, used in baselines, SARIF and phrases), `severity`, a `title`, `why` and `fix`."""

    id: str
    severity: Severity
    title: str
    why: str
    fix: str
    family: Literal["quality", "poisoning", "budget"] = "quality"


RULES: tuple[Rule, ...] = (
    Rule(
        "description-missing",
        "error",
        "A tool without a description",
        "A model chooses a tool by its description. Without one it guesses from the name, calls the tool "
        "where it does not belong, or never calls it.",
        "Give the tool a description: what it does, on what, and what it returns (a docstring on an SDK tool).",
    ),
    Rule(
        "description-short",
        "warning",
        "A description too short to choose by",
        'A description of a few words ("Gets data.") does not tell a model when this tool is the right one '
        "among dozens, nor what it changes.",
        "Say in a sentence or two what the tool does, to what, what it returns and when to use it (at least five "
        "words).",
    ),
    Rule(
        "parameter-undocumented",
        "warning",
        "A parameter without a description",
        "A model fills each argument from the parameter's name and description; a bare name leaves the format, "
        "unit and meaning to a guess.",
        "Describe each parameter (`Annotated[str, Field(description=...)]` on an SDK tool): its meaning, format "
        "and an example.",
    ),
    Rule(
        "parameter-untyped",
        "warning",
        "A parameter without a type",
        "A parameter whose schema has no type accepts anything, so the model cannot tell a number from a string "
        "and the server cannot refuse a wrong value before running.",
        "Give the parameter a JSON Schema `type` (a type hint on an SDK tool), or an `enum`/`const`.",
    ),
    Rule(
        "name-case-collision",
        "error",
        "Tool names that differ only in case",
        "`get_note` and `Get_Note` read as one tool to a model and to several clients that fold case; a call "
        "meant for one reaches the other.",
        "Rename one of the tools so the names differ in more than case.",
    ),
    Rule(
        "name-shadows-common-tool",
        "warning",
        "A tool name that shadows a common tool",
        "A host offers built-in tools such as `read_file` or `bash`; a server tool of the same name competes "
        "with it, and a model may send it what was meant for the built-in (or the reverse).",
        "Prefix the name with what the tool works on (`notes_read_file`), so it cannot be taken for a built-in.",
    ),
    Rule(
        "enum-without-meaning",
        "warning",
        "An enum whose values say nothing",
        "Values such as `0, 1, 2` or `A, B` cannot be chosen between without knowing what each one means.",
        'Use values that name their meaning (`"draft"`, `"published"`), or describe each value in the '
        "parameter's description.",
    ),
    Rule(
        "schema-unsatisfiable",
        "error",
        "An input schema that no value satisfies",
        "An empty enum, a minimum above the maximum, a required argument that cannot be given, arguments that "
        "are not an object: every call is refused, whatever the model sends.",
        "Fix the contradiction the finding names (the JSON path says where).",
    ),
    Rule(
        "output-schema-missing",
        "warning",
        "A structured tool without an output schema",
        "A tool whose description promises structured data (JSON, an object, fields) but declares no output "
        "schema gives clients nothing to validate or read fields by; the model reparses text.",
        "Declare an output schema (return a typed model from an SDK tool) and return structured content.",
    ),
    Rule(
        "duplicate-tool",
        "error",
        "Duplicate tools",
        "A name listed twice is ambiguous for every client; two names with the same description and schema "
        "leave a model no way to choose between them.",
        "List each tool once, and give tools that differ a description that says how.",
    ),
    Rule(
        "description-contradicts-schema",
        "warning",
        "A description that contradicts its schema",
        "When the description names an argument the schema does not have, or calls optional what the schema "
        "requires, the model follows the prose and the call is refused.",
        "Make the description and the schema agree (rename the argument in one of them).",
    ),
    Rule(
        "hidden-instructions",
        "error",
        "Instructions addressed to the model",
        "Text such as an `<IMPORTANT>` block asking the model to read a file, or to keep something from the "
        "user, is tool poisoning: the model obeys the server instead of its user.",
        "Remove the instructions. A description says what the tool does; it never tells the model what to "
        "do beyond calling it, and never asks it to hide anything.",
        "poisoning",
    ),
    Rule(
        "invisible-characters",
        "error",
        "Invisible characters",
        "Zero-width characters, bidirectional controls and Unicode tag characters are not seen by a reviewer "
        "but are read by the model: tag characters can spell whole instructions.",
        "Remove every invisible character (the finding shows each one, and what tag characters spell).",
        "poisoning",
    ),
    Rule(
        "cross-tool-steering",
        "error",
        "Text steering the model toward another tool or server",
        "A description that tells the model to use this tool instead of another, to call it before or after "
        "other tools, or to change how another server's tools are used hijacks the user's other servers.",
        "Describe this tool only; leave the choice between tools to the model and its user.",
        "poisoning",
    ),
    Rule(
        "exfiltrating-url",
        "error",
        "A URL that can carry data away",
        "A URL with a placeholder or query for data, or text telling the model to send data to a URL, lets a "
        "server collect what the model knows (conversation, files, secrets).",
        "Remove the URL, or keep only a plain documentation link with nothing to fill in.",
        "poisoning",
    ),
    Rule(
        "deceptive-markup",
        "error",
        "Markup that renders differently than it reads",
        "HTML comments, hidden elements, images and links whose text names another address show a reviewer "
        "one thing while the model reads another.",
        "Write plain text: no comments, hidden styles, images, or links whose text is not their address.",
        "poisoning",
    ),
    Rule(
        "token-budget",
        "error",
        "Over the token budget",
        "Every request carries the tool surface; a surface over its budget costs each conversation that much "
        "and leaves less room for the user's work.",
        "Shorten the descriptions and schemas the finding names, or split the server.",
        "budget",
    ),
)
"""Every rule, in the order reports list them."""

_BY_ID = {rule.id: rule for rule in RULES}


def rule_named(rule_id: str) -> Rule:
    """The rule with this id; ValueError naming every rule otherwise."""
    try:
        return _BY_ID[rule_id]
    except KeyError:
        raise ValueError(f"no lint rule {rule_id!r}; the rules: {', '.join(_BY_ID)}") from None
