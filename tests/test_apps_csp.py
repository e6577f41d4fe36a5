"""The policy and permissions a view gets from its resource's `_meta.ui` (mcpbdd.apps.csp)."""

from __future__ import annotations

from mcpbdd.apps.csp import allow_attribute, allowed_origins, content_security_policy


def _directives(policy: str) -> dict[str, str]:
    return {part.split(" ", 1)[0]: part.split(" ", 1)[1] for part in policy.split("; ")}


def test_a_resource_that_declares_nothing_loads_nothing_from_the_network() -> None:
    policy = _directives(content_security_policy(None))
    assert policy["default-src"] == "'none'"
    assert policy["script-src"] == "'self' 'unsafe-inline'"
    assert policy["connect-src"] == "'self'"
    assert policy["frame-src"] == "'none'"
    assert policy["object-src"] == "'none'"


def test_declared_domains_go_to_their_directives_only() -> None:
    csp = {
        "resourceDomains": ["https://cdn.example.com"],
        "connectDomains": ["https://api.example.com"],
        "frameDomains": ["https://youtube.example"],
        "baseUriDomains": ["https://base.example"],
    }
    policy = _directives(content_security_policy(csp))
    assert "https://cdn.example.com" in policy["script-src"] and "https://cdn.example.com" in policy["img-src"]
    assert "https://api.example.com" not in policy["script-src"]
    assert policy["connect-src"] == "'self' https://api.example.com"
    assert policy["frame-src"] == "https://youtube.example"
    assert policy["base-uri"] == "https://base.example"
    assert allowed_origins(csp) == sorted(csp_value for values in csp.values() for csp_value in values)


def test_a_domain_cannot_smuggle_a_directive_in() -> None:
    policy = content_security_policy({"resourceDomains": ["https://a.example; script-src *"]})
    assert "script-src *" not in policy


def test_only_the_declared_permissions_are_granted() -> None:
    assert allow_attribute(None) == ""
    assert allow_attribute({"camera": {}, "clipboardWrite": {}}) == "camera; clipboard-write"
