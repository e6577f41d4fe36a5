"""Configuration: `[tool.mcpbdd]` in pyproject.toml, overridable with behave userdata.

One pydantic model validates everything, so a typo fails the run at start with a
message naming the setting, where it came from, and what is accepted, instead of
surfacing as a confusing failure in the middle of a scenario.

    [tool.mcpbdd]
    server = "mypackage.server:mcp"   # or "stdio: {python} -m mypackage", "http: {python} -m mypackage --port {port}"
                                      # or "http://127.0.0.1:8000/mcp"
    harness = "context"               # or "client"
    client_mode = "auto"              # or "legacy" (initialize handshake, 2025-11-25)
    timeout = 5.0                     # seconds per call
    tenant_claim = "tenant"           # the access-token claim naming the caller's tenant
    capabilities = ["elicitation", "sampling", "roots"]
    attachment_limit = 2097152        # bytes one report attachment may hold (its head and tail are kept)
    require = ["apps"]                # what the machine must have: a missing one breaks, never skips
    optional = ["official"]           # what may be skipped even in CI (CI=true), saying why

    [tool.mcpbdd.conformance]         # what `mcpbdd conformance` runs with no arguments
    only = ["unknown-tool"]           # also skip, expected_failures = "conformance.yml", official = true

    behave -D mcpbdd.harness=client -D mcpbdd.timeout=2
"""

from __future__ import annotations

import json
import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from mcpbdd.model.kinds import CAPABILITIES, Capability, ClientMode, HarnessKind, check_capabilities
from mcpbdd.model.requirements import check_capability_names

USERDATA_PREFIX = "mcpbdd."

DEFAULT_ATTACHMENT_LIMIT = 2 * 1024 * 1024
"""2 MiB: an attachment a browser still shows at once, and room for any answer a reviewer reads whole."""


JOB_ENV = "MCPBDD_JOB"
"""Set in each worker of `mcpbdd run --jobs N` to its job number: the Allure timeline shows one lane per job.

Here, below both, because the run (`mcpbdd.cli`) sets it and the Allure formatter (`mcpbdd.reporting`) reads it."""


class ConfigError(ValueError):
    """Invalid configuration; the message names each bad setting and its source."""


def _comma_list(value: Any) -> Any:
    """A list from TOML as is; from `-D` (or a string in the file), comma-separated."""
    if isinstance(value, str):
        return tuple(part.strip() for part in value.split(",") if part.strip())
    return value


class ConformanceSettings(BaseModel):
    """`[tool.mcpbdd.conformance]`: what `mcpbdd conformance` runs with no arguments (its options win)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    target: str | None = Field(default=None, description="the server to check (default: the server setting)")
    only: tuple[str, ...] = Field(default=(), description="run only these checks (--only)")
    skip: tuple[str, ...] = Field(default=(), description="leave these checks out (--skip)")
    expected_failures: str | None = Field(
        default=None, description="YAML list of checks known to fail, relative to pyproject.toml (--expected-failures)"
    )
    official: bool = Field(default=False, description="also run the official suite's generic scenarios (--official)")
    user: str | None = Field(default=None, description="the caller the checks call as (--user; none: anonymous)")
    tenant: str | None = Field(default=None, description="the caller's tenant (--tenant; default: the user's name)")
    scopes: tuple[str, ...] = Field(default=(), description="the caller's scopes (--scopes)")
    token: str | None = Field(default=None, description="the bearer token the caller sends over HTTP (--token)")
    strict: bool = Field(default=False, description="a SHOULD the server does not keep fails its check (--strict)")

    @field_validator("only", "skip", "scopes", mode="before")
    @classmethod
    def _lists(cls, value: Any) -> Any:
        return _comma_list(value)


class Settings(BaseModel):
    """Every setting mcpbdd reads, with its default."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    server: str | None = Field(
        default=None, description="the server under test: module:attr, stdio: <cmd>, http: <cmd with {port}>, or a URL"
    )
    harness: HarnessKind = HarnessKind.CONTEXT
    client_mode: ClientMode = ClientMode.AUTO
    timeout: float = Field(default=5.0, gt=0, le=600, description="seconds a call may take before it fails")
    tenant_claim: str = Field(default="tenant", min_length=1)
    cancel_grace: float = Field(
        default=0.3, ge=0, le=60, description="seconds the client watches after cancelling a call for what still comes"
    )
    max_rounds: int = Field(default=10, ge=1, le=1000, description="input-required rounds before a call fails")
    capabilities: tuple[str, ...] = CAPABILITIES
    env: dict[str, str] = Field(
        default_factory=dict,
        description="environment of a server process mcpbdd starts; over stdio {user}, {tenant}, {scopes}: its caller",
    )
    cwd: str | None = Field(default=None, description="working directory of a server process mcpbdd starts")
    start_timeout: float = Field(default=20.0, gt=0, le=600, description="seconds a server may take to answer first")
    tokens: dict[str, str] = Field(
        default_factory=dict, description="bearer token per user over HTTP (default: mcpbdd test tokens)"
    )
    reuse_server: Literal["scenario", "feature"] = Field(
        default="scenario",
        description="start a stdio server (or open HTTP sessions) once per scenario, or once per feature",
    )
    spawn: Literal["auto", "fork", "spare", "plain"] = Field(
        default="auto",
        description="how a server process starts: auto (the default: fork for Python commands, spare otherwise), "
        "fork (a warm Python parent), spare (stdio processes started ahead for the next scenarios), "
        "plain (a new interpreter each time)",
    )
    upstreams: tuple[str, ...] = Field(
        default=(),
        description="upstream bases always served over loopback to a server process, besides those a scenario names",
    )
    storage_adapter: str | None = Field(
        default=None,
        description="module:factory returning a StorageAdapter, for a server that keeps its state elsewhere",
    )
    seed: int | None = Field(default=None, description="seed of generated calls (default: derived from the tool name)")
    secrets: tuple[str, ...] = Field(default=(), description="values never shown in reports (redacted)")
    require: tuple[str, ...] = Field(
        default=(),
        description="what the specifications need from the machine (apps, official): a scenario that would be "
        "skipped for a missing one is broken instead, naming what to install",
    )
    optional: tuple[str, ...] = Field(
        default=(),
        description="what may be missing even in CI (CI=true, where every other missing capability breaks)",
    )
    attachment_limit: int = Field(
        default=DEFAULT_ATTACHMENT_LIMIT,
        ge=1024,
        description="bytes one report attachment may hold; a longer one keeps its head and tail and says what was cut",
    )
    update_snapshots: bool = Field(
        default=False, description="write tool-surface snapshots instead of comparing (mcpbdd run --update-snapshots)"
    )
    update_screenshots: bool = Field(
        default=False, description="write app screenshots instead of comparing (mcpbdd run --update-screenshots)"
    )
    coverage_file: str = Field(
        default="reports/coverage.json", description="where a behave run writes its coverage ('' writes none)"
    )
    parity_stdio: str | None = Field(
        default=None, description="command starting the server over stdio: the stdio column of mcpbdd run --harness all"
    )
    conformance: ConformanceSettings = Field(
        default_factory=ConformanceSettings, description="[tool.mcpbdd.conformance]: the settings of mcpbdd conformance"
    )

    @field_validator("env", "tokens", "conformance", mode="before")
    @classmethod
    def _json_mapping(cls, value: Any) -> Any:
        """From `-D mcpbdd.env={"NOTES_USER": "{user}"}` a mapping arrives as JSON text."""
        if isinstance(value, str):
            try:
                return json.loads(value)
            except json.JSONDecodeError as exc:
                raise ValueError(f'expected a JSON object, e.g. {{"NAME": "value"}} ({exc.msg})') from None
        return value

    @field_validator("capabilities", "secrets", "upstreams", "require", "optional", mode="before")
    @classmethod
    def _split_capabilities(cls, value: Any) -> Any:
        return _comma_list(value)

    @field_validator("require", "optional")
    @classmethod
    def _known_machine_capabilities(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        return check_capability_names(value)

    @model_validator(mode="after")
    def _required_or_optional(self) -> Settings:
        both = sorted(set(self.require) & set(self.optional))
        if both:
            raise ValueError(f"{', '.join(both)} cannot be both required and optional: keep it in one list")
        return self

    @field_validator("capabilities")
    @classmethod
    def _known_capabilities(cls, value: tuple[str, ...]) -> tuple[Capability, ...]:
        return check_capabilities(value)


def find_pyproject(start: Path) -> Path | None:
    """The nearest pyproject.toml at or above `start`."""
    for folder in (start, *start.parents):
        candidate = folder / "pyproject.toml"
        if candidate.is_file():
            return candidate
    return None


def load_settings(userdata: Mapping[str, str] | None = None, *, start: Path | None = None) -> Settings:
    """Read `[tool.mcpbdd]`, apply `mcpbdd.*` userdata on top, validate once."""
    sources: dict[str, str] = {}
    values: dict[str, Any] = {}
    pyproject = find_pyproject(start or Path.cwd())
    if pyproject is not None:
        try:
            table = tomllib.loads(pyproject.read_text(encoding="utf-8")).get("tool", {}).get("mcpbdd", {})
        except tomllib.TOMLDecodeError as exc:
            raise ConfigError(f"{pyproject}: not valid TOML: {exc}") from exc
        for key, value in table.items():
            values[key] = value
            sources[key] = f"[tool.mcpbdd{'.conformance' if key == 'conformance' else ''}] in {pyproject}"
    for key, value in (userdata or {}).items():
        if key.startswith(USERDATA_PREFIX):
            name = key[len(USERDATA_PREFIX) :]
            values[name] = value
            sources[name] = f"-D {key}={value}"
    try:
        return Settings.model_validate(values)
    except ValidationError as exc:
        lines = []
        for error in exc.errors():
            name = ".".join(str(part) for part in error["loc"]) or "(settings)"
            source = sources.get(str(error["loc"][0]) if error["loc"] else "", "defaults")
            message = error["msg"]
            if error["type"] == "extra_forbidden":
                known = (
                    ConformanceSettings.model_fields if error["loc"][:1] == ("conformance",) else Settings.model_fields
                )
                message = f"unknown setting; known settings: {', '.join(known)}"
            lines.append(f"  {name}: {message} (from {source})")
        raise ConfigError("mcpbdd configuration is invalid:\n" + "\n".join(lines)) from None


__all__ = [
    "DEFAULT_ATTACHMENT_LIMIT",
    "USERDATA_PREFIX",
    "ConfigError",
    "ConformanceSettings",
    "Settings",
    "find_pyproject",
    "load_settings",
]
