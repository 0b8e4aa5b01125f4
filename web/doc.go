// Package web is `host web`, the reference web UI: a page served on
// 127.0.0.1 that drives the runtime over the same UI protocol as `host
// chat` (see protocol/PROTOCOL.md). It starts `host serve` as a child
// process, is the protocol's UI towards it, and bridges the browser to it:
// the page's requests arrive as fetch POSTs (/api/call, /api/answer, and
// /api/markdown, which renders a model's answer with internal/markdown) and the
// runtime's notifications and requests reach the page as Server-Sent Events
// (/api/events). The page itself is plain HTML, CSS and JavaScript embedded
// with go:embed; there is no build step. The bridge keeps the
// conversation's transcript (the user's messages and the runs' events,
// bounded): a page opened again gets it after its hello and shows it as
// the pages that saw it live did, then the questions still waiting.
//
// The server trusts nothing but its own page: a random secret in the
// printed URL is swapped for an HttpOnly, SameSite=Strict cookie, every
// other request without that cookie is refused, the Host header must name
// the loopback listener and a present Origin must be the page's own (DNS
// rebinding), no CORS header is ever sent, and a strict Content Security
// Policy keeps inline script out of the page. MCP Apps' HTML is served
// from a second loopback listener (another origin) into iframes sandboxed
// without allow-same-origin, under a CSP built from what the app declared.
//
// It must not import the runtime: it speaks only the protocol, as any UI
// does.
package web
