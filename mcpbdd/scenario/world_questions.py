"""The World's questions other than calls: contracts of the results, snapshots, caching hints, completions.

Each asks the server as the current caller (or the last call's) and hands the answer to its check in
`mcpbdd.checks`, imported when first asked (some are heavy: jsonschema, hypothesis).
"""

from __future__ import annotations

from collections.abc import Callable, Coroutine
from typing import Any, TypeVar

from mcpbdd.harness.base import Harness
from mcpbdd.kit.principals import Principal
from mcpbdd.model.caching import CacheHints
from mcpbdd.model.completions import Completing
from mcpbdd.scenario.world_calls import WorldCalls

T = TypeVar("T")

__all__ = ["WorldQuestions"]


class WorldQuestions(WorldCalls):
    """The World's questions other than calls (a part of `World`)."""

    def check_output_schema(self, tool: str) -> None:
        """Every ok result of `tool` in this scenario matches the output schema the server advertises."""
        from mcpbdd.checks import output_schema as contract

        contract.check_results_match_output_schema(self, tool)

    def check_tool_snapshot(self, path: str) -> Any:
        """The offered tools match the snapshot file at `path` (written instead with `update_snapshots`)."""
        from mcpbdd.checks import surface

        return surface.match_snapshot(self.offered_tools(), path, update=self.settings.update_snapshots)

    def ask(self, question: Callable[[Harness, Principal | None], Coroutine[Any, Any, T]]) -> T:
        """The server's answer to a `question` other than a call (`mcpbdd.checks.described.describe`,
        `mcpbdd.checks.cache_hints.cache_hints`, ...), asked as the current caller."""
        return self.run(question(self.harness, self.caller))

    def read_cache_hints(self) -> CacheHints:
        """The caching hints of the last call's result, a read, asked as its caller (a call of another kind is a
        broken specification)."""
        from mcpbdd.checks.cache_hints import read_cache_hints

        last = self.last
        caller = self._caller_for(self.trace.exchanges[-1].caller if len(self.trace) else None)
        return self.run(read_cache_hints(self.harness, caller, last))

    def complete(self, what: Completing, prefix: str) -> None:
        """Ask to complete `what` (a prompt's argument, a resource template's variable) from `prefix`;
        `completions` keeps the answer for the checks."""
        from mcpbdd.checks.completions import complete

        self.completions = self.run(complete(self.harness, self.caller, what, prefix))

    def complete_prompt_argument(self, prompt: str, argument: str, prefix: str) -> None:
        """Ask to complete `argument` of `prompt` from `prefix` (`complete`)."""
        self.complete(Completing.prompt_argument(prompt, argument), prefix)

    def complete_template_variable(self, uri_template: str, variable: str, prefix: str) -> None:
        """Ask to complete `variable` of the resource template `uri_template` from `prefix` (`complete`)."""
        self.complete(Completing.template_variable(uri_template, variable), prefix)

    def generated_calls(self, tool: str, n: int) -> Any:
        """`n` generated and adversarial calls of `tool`: no crash, leak, hang, or storage change from a refusal."""
        from mcpbdd.checks import generated

        def snapshot() -> dict[str, dict[str, Any]]:
            return {tenant: self.storage.snapshot(tenant) for tenant in self.tenants_in_play()}

        return generated.check_generated_calls_in_world(self, tool, n, seed=self.settings.seed, snapshot=snapshot)
