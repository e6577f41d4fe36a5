"""The host page: the host side of the MCP Apps view protocol, in the browser, next to the view's iframe.

It creates the sandboxed iframe the ext-apps spec describes (scripts and forms, an opaque
origin, the resource's permissions as `allow`), loads the view from its own origin (so the
policy header applies to the view alone), and answers the view's JSON-RPC over `postMessage`:

- `ui/initialize` with the host's info, capabilities and context (theme, display mode,
  locale, the tool being shown); once the view says `ui/notifications/initialized`, the
  tool's input (`ui/notifications/tool-input`) and result (`ui/notifications/tool-result`);
- `tools/call` is queued for mcpbdd, which makes the call to the server under test and
  hands back its answer (`__mcpbddHost.reply`);
- `ui/open-link` and `ui/message` are recorded and answered, never followed;
- `ui/notifications/size-changed` resizes the iframe; `notifications/message` (logging),
  `ui/update-model-context`, `ui/request-display-mode` and `ping` are answered;
- any other request gets "method not found", and is recorded as such.

Every message either way goes into the log that is attached to the step.
"""

from __future__ import annotations

import json
from typing import Any

PROTOCOL_VERSION = "2026-01-26"
"""The ext-apps protocol version offered when a view names none."""

_SCRIPT = r"""
const cfg = JSON.parse(document.getElementById("mcpbdd-config").textContent);
const state = {log: [], pending: [], initialized: false, initializeError: null, links: [], messages: [],
               sizes: [], unknown: [], logging: [], started: Date.now()};
window.__mcpbddHost = state;
const frame = document.createElement("iframe");
frame.id = "mcpbdd-view";
frame.setAttribute("sandbox", cfg.sandbox);
if (cfg.allow) frame.setAttribute("allow", cfg.allow);
frame.style.cssText = "border:0;width:100%;height:" + cfg.height + "px;display:block";
function send(message) {
  state.log.push({direction: "host -> view", message});
  frame.contentWindow.postMessage(message, "*");
}
function reply(id, result) { send({jsonrpc: "2.0", id, result}); }
function fail(id, code, message) { send({jsonrpc: "2.0", id, error: {code, message}}); }
state.reply = (id, result, error) => error ? send({jsonrpc: "2.0", id, error}) : reply(id, result);
window.addEventListener("message", (event) => {
  if (event.source !== frame.contentWindow) return;
  const m = event.data;
  state.log.push({direction: "view -> host", message: m});
  if (!m || typeof m !== "object" || m.jsonrpc !== "2.0") { state.unknown.push(m); return; }
  const p = m.params || {};
  switch (m.method) {
    case "ui/initialize":
      reply(m.id, {protocolVersion: p.protocolVersion || cfg.protocolVersion, hostInfo: cfg.hostInfo,
                   hostCapabilities: cfg.hostCapabilities, hostContext: cfg.hostContext});
      return;
    case "ui/notifications/initialized":
      state.initialized = true;
      send({jsonrpc: "2.0", method: "ui/notifications/tool-input", params: {arguments: cfg.toolInput}});
      if (cfg.toolResult) send({jsonrpc: "2.0", method: "ui/notifications/tool-result", params: cfg.toolResult});
      return;
    case "tools/call":
      state.pending.push({id: m.id, name: p.name, arguments: p.arguments || {}});
      return;
    case "ui/open-link":
      state.links.push(p.url); reply(m.id, {}); return;
    case "ui/message":
      state.messages.push(p); reply(m.id, {}); return;
    case "ui/notifications/size-changed":
      state.sizes.push(p);
      if (typeof p.height === "number" && p.height > 0) frame.style.height = Math.ceil(p.height) + "px";
      return;
    case "notifications/message":
      state.logging.push(p); return;
    case "ui/update-model-context": reply(m.id, {}); return;
    case "ui/request-display-mode": reply(m.id, {mode: cfg.hostContext.displayMode}); return;
    case "ping": reply(m.id, {}); return;
  }
  state.unknown.push(m);
  if (m.id !== undefined && m.id !== null) fail(m.id, -32601, "the mcpbdd host does not offer " + m.method);
});
frame.src = cfg.viewUrl;
document.body.appendChild(frame);
"""


def host_page(config: dict[str, Any]) -> str:
    """The host page's HTML for one view (`config`: the view's URL, sandbox, host context, tool input and result)."""
    settings = {"protocolVersion": PROTOCOL_VERSION, "height": 600, **config}
    data = json.dumps(settings).replace("</", "<\\/")
    return (
        '<!doctype html><html><head><meta charset="utf-8"><title>mcpbdd app host</title>'
        "<style>html,body{margin:0;padding:0;background:#fff}</style></head><body>"
        f'<script type="application/json" id="mcpbdd-config">{data}</script>'
        f"<script>{_SCRIPT}</script></body></html>"
    )


__all__ = ["PROTOCOL_VERSION", "host_page"]
