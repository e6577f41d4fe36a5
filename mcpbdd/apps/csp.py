"""What a `ui://` resource may load and use: its Content-Security-Policy and iframe permissions.

The ext-apps spec has the resource declare domains (`_meta.ui.csp`: `connectDomains`,
`resourceDomains`, `frameDomains`, `baseUriDomains`) and the host turn them into a policy;
with none declared, a view loads nothing from the network: inline script and style only,
`data:` images, no fetch. The host serves the view with this policy as a real
`Content-Security-Policy` header, so Chromium enforces it, not mcpbdd.

Permissions (`_meta.ui.permissions`: camera, microphone, geolocation, clipboardWrite) become the
iframe's `allow` attribute; a permission not declared is not granted.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

PERMISSIONS = {
    "camera": "camera",
    "microphone": "microphone",
    "geolocation": "geolocation",
    "clipboardWrite": "clipboard-write",
}
"""`_meta.ui.permissions` keys and the Permissions-Policy feature each grants."""

SANDBOX = "allow-scripts allow-forms"
"""The view's iframe sandbox: scripts and forms, an opaque origin (no `allow-same-origin`), no popups."""


def _domains(csp: Mapping[str, Any], key: str) -> list[str]:
    found = csp.get(key) or []
    return [str(domain) for domain in found if isinstance(domain, str) and domain and ";" not in domain]


def content_security_policy(csp: Mapping[str, Any] | None) -> str:
    """The policy header for a view whose resource declared `csp` (its `_meta.ui.csp`, or None)."""
    csp = csp or {}
    resources = " ".join(_domains(csp, "resourceDomains"))
    connect = " ".join(_domains(csp, "connectDomains"))
    frames = " ".join(_domains(csp, "frameDomains")) or "'none'"
    base = " ".join(_domains(csp, "baseUriDomains")) or "'self'"
    directives = [
        "default-src 'none'",
        f"script-src 'self' 'unsafe-inline' {resources}".strip(),
        f"style-src 'self' 'unsafe-inline' {resources}".strip(),
        f"img-src 'self' data: {resources}".strip(),
        f"font-src 'self' {resources}".strip(),
        f"media-src 'self' data: {resources}".strip(),
        f"connect-src 'self' {connect}".strip(),
        f"frame-src {frames}",
        f"base-uri {base}",
        "object-src 'none'",
    ]
    return "; ".join(directives)


def allow_attribute(permissions: Mapping[str, Any] | None) -> str:
    """The iframe's `allow` attribute for the permissions a resource declared (empty when none)."""
    granted = [feature for key, feature in PERMISSIONS.items() if permissions and key in permissions]
    return "; ".join(granted)


def allowed_origins(csp: Mapping[str, Any] | None) -> list[str]:
    """Every origin the policy lets the view reach (the requests the upstream doubles must answer)."""
    csp = csp or {}
    keys = ("connectDomains", "resourceDomains", "frameDomains", "baseUriDomains")
    return sorted({domain for key in keys for domain in _domains(csp, key)})


__all__ = ["PERMISSIONS", "SANDBOX", "allow_attribute", "allowed_origins", "content_security_policy"]
