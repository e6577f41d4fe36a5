"""The notes server's app: a note card shown in the host (MCP Apps, `ui://notes/card.html`).

`show_note_card` returns a note, as `get_note` does, and points the host at a view that shows it:
its title, body and tags, a "Reason" field and a "Pin" button that calls `pin_note` back through
the host (a tool only the view uses: `_meta.ui.visibility = ["app"]`), and an "Open in Notes"
link the host is asked to open. The pin is stored in the caller's tenant (`pins/<note id>`),
so what the user did in the view is state like any other.

`show_note_card_embedded` is the same card in a view that also loads a stylesheet from the
team's CDN (listed in its policy, `https://cdn.example.com`) and a widget script from
`https://widgets.example.net`, which its policy does not list: a host refuses the script.
Its specification shows what that looks like.

The tools and resources are built with `mcp.server.apps.Apps` (the `_meta.ui` shape, the MIME
type, the checks) and added to the notes server after its own tools, when this module is
imported (the last line of `notes.py` imports it), so `tools/list` keeps the server's tools
first. (Added one by one, the server does not advertise the Apps extension capability; the
view does not depend on it.)
"""

from __future__ import annotations

from typing import Annotated, Any

from mcp.server.apps import Apps, ResourceCsp
from mcp.server.mcpserver import Context, MCPServer
from pydantic import BaseModel, Field

from mcpbdd.examples import notes
from mcpbdd.examples.arguments import NoteId
from mcpbdd.examples.notes import Note

CARD_URI = "ui://notes/card.html"
EMBEDDED_CARD_URI = "ui://notes/card-embedded.html"
CDN = "https://cdn.example.com"
WIDGETS = "https://widgets.example.net"
NOTES_WEB = "https://notes.example.com/n/"

_CARD_SCRIPT = r"""
let nextId = 0; const waiting = new Map(); let note = null;
function request(method, params) {
  const id = ++nextId;
  window.parent.postMessage({jsonrpc: "2.0", id, method, params}, "*");
  return new Promise((ok, no) => waiting.set(id, {ok, no}));
}
function notify(method, params) { window.parent.postMessage({jsonrpc: "2.0", method, params}, "*"); }
function text(id, value) { document.getElementById(id).textContent = value; }
function resized() { notify("ui/notifications/size-changed", {width: document.body.scrollWidth,
                                                              height: document.body.scrollHeight}); }
function show(found) {
  note = found;
  text("title", note.title); text("body", note.body);
  text("tags", note.tags.length ? "Tags: " + note.tags.join(", ") : "No tags");
  text("author", "By " + note.author);
  document.getElementById("card").hidden = false;
  resized();
}
window.addEventListener("message", (event) => {
  if (event.source !== window.parent) return;
  const m = event.data;
  if (m.id !== undefined && waiting.has(m.id)) {
    const {ok, no} = waiting.get(m.id); waiting.delete(m.id);
    m.error ? no(m.error) : ok(m.result);
  } else if (m.method === "ui/notifications/tool-result") {
    const result = m.params;
    if (result.isError) { text("status", "Could not load the note: " + result.content[0].text); return; }
    show(result.structuredContent);
  }
});
document.getElementById("pin").addEventListener("click", async () => {
  const reason = document.getElementById("reason").value;
  try {
    const result = await request("tools/call", {name: "pin_note", arguments: {note_id: note.id, reason}});
    if (result.isError) { text("status", "Not pinned: " + result.content[0].text); return; }
    text("status", "Pinned by " + result.structuredContent.by);
  } catch (error) { text("status", "Not pinned: " + error.message); }
  resized();
});
document.getElementById("open").addEventListener("click", (event) => {
  event.preventDefault();
  request("ui/open-link", {url: "NOTES_WEB" + note.id});
});
request("ui/initialize", {protocolVersion: "2026-01-26", appInfo: {name: "note-card", version: "1.0.0"},
                          appCapabilities: {}})
  .then((init) => {
    document.documentElement.dataset.theme = init.hostContext.theme || "light";
    notify("ui/notifications/initialized", {});
  });
""".replace("NOTES_WEB", NOTES_WEB)

_STYLE = """
body{font:15px/1.4 sans-serif;margin:0;padding:16px;color:#222;background:#fff}
[data-theme=dark] body{color:#eee;background:#1e1e1e}
h1{font-size:20px;margin:0 0 8px} .meta{color:#666;font-size:13px} button{margin-top:8px}
"""


def card_html(head: str = "") -> str:
    """The card's HTML; `head` adds what a variant loads (the embedded card's stylesheet and widget)."""
    return (
        '<!doctype html><html><head><meta charset="utf-8"><title>Note</title>'
        f"<style>{_STYLE}</style>{head}</head><body>"
        '<main id="card" hidden><h1 id="title"></h1><p id="body"></p>'
        '<p class="meta" id="tags"></p><p class="meta" id="author"></p>'
        '<label>Reason <input id="reason" name="reason"></label> <button id="pin">Pin</button> '
        '<a href="#" id="open">Open in Notes</a></main>'
        f'<p id="status" role="status"></p><script>{_CARD_SCRIPT}</script></body></html>'
    )


class Pin(BaseModel):
    """A pinned note: who pinned it, why, and when (stored under `pins/<note id>`)."""

    note_id: str
    by: str
    reason: str
    at: str


apps = Apps()
apps.add_html_resource(CARD_URI, card_html(), name="note-card", title="Note card")
apps.add_html_resource(
    EMBEDDED_CARD_URI,
    card_html(f'<link rel="stylesheet" href="{CDN}/card.css"><script src="{WIDGETS}/embed.js"></script>'),
    name="note-card-embedded",
    title="Note card (with the team's widgets)",
    csp=ResourceCsp(resource_domains=[CDN]),
)


@apps.tool(resource_uri=CARD_URI, description="Show a note as a card the user can pin.")
async def show_note_card(note_id: NoteId, ctx: Context) -> Note:
    return await notes._find(ctx, note_id)


@apps.tool(resource_uri=EMBEDDED_CARD_URI, description="Show a note as a card with the team's widgets.")
async def show_note_card_embedded(note_id: NoteId, ctx: Context) -> Note:
    return await notes._find(ctx, note_id)


@apps.tool(resource_uri=CARD_URI, visibility=["app"], description="Pin a note (from the note card).")
async def pin_note(
    note_id: NoteId,
    ctx: Context,
    reason: Annotated[str, Field(description="Why the note is pinned, shown on the card (may be empty).")] = "",
) -> Pin:
    await notes._find(ctx, note_id)
    _, user = notes._caller()
    pin = Pin(note_id=note_id, by=user, reason=reason, at=notes._state(ctx).clock.now().isoformat())
    await notes._notebook(ctx).set(f"pins/{note_id}", pin.model_dump())
    return pin


def register(mcp: MCPServer[Any]) -> None:
    """Add the app's tools and `ui://` resources to `mcp`, after the tools it already has."""
    for tool in apps.tools():
        mcp.add_tool(tool.fn, meta=tool.meta, **tool.kwargs)
    for resource in apps.resources():
        mcp.add_resource(resource.resource)


register(notes.mcp)


__all__ = [
    "CARD_URI",
    "CDN",
    "EMBEDDED_CARD_URI",
    "NOTES_WEB",
    "WIDGETS",
    "Pin",
    "apps",
    "card_html",
    "pin_note",
    "register",
    "show_note_card",
    "show_note_card_embedded",
]
