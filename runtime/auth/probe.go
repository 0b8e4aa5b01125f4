package auth

import (
	"context"
	"io"
	"net/http"
	"strings"
	"time"
)

// probeTimeout bounds the requests of probeChallenge.
const probeTimeout = 10 * time.Second

// probeBody is the request probeChallenge sends: an MCP initialize, which
// a protected server answers 401 like any other request without a token.
const probeBody = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"mcp-host","version":"0"}}}`

// probeChallenge asks the MCP server for the challenge a login needs when
// no request has met its 401 yet: an unauthenticated initialize POST (the
// Streamable HTTP transport), then a GET asking for an event stream (the
// legacy SSE transport) if the POST met no 401. It carries no credential,
// follows no redirect and goes only to the server URL. It returns an empty
// challenge when the server sends none, and discovery then uses the
// well-known locations alone.
func (h *Handler) probeChallenge(ctx context.Context) challenge {
	ctx, cancel := context.WithTimeout(ctx, probeTimeout)
	defer cancel()
	for _, method := range []string{http.MethodPost, http.MethodGet} {
		ch, ok := h.probe(ctx, method)
		if ok {
			h.noteChallenge(ch)
			return ch
		}
	}
	return challenge{}
}

// probe sends one probe; ok reports a 401 answer, whose challenge it
// returns.
func (h *Handler) probe(ctx context.Context, method string) (challenge, bool) {
	var body io.Reader
	if method == http.MethodPost {
		body = strings.NewReader(probeBody)
	}
	req, err := http.NewRequestWithContext(ctx, method, h.opts.ServerURL, body)
	if err != nil {
		return challenge{}, false
	}
	if method == http.MethodPost {
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
	} else {
		req.Header.Set("Accept", "text/event-stream")
	}
	resp, err := h.noRedirect.Do(req)
	if err != nil {
		h.log.Debug("probing for the authorization challenge", "server", h.opts.ServerID, "method", method, "err", redactURLError(err))
		return challenge{}, false
	}
	if resp.StatusCode == http.StatusUnauthorized {
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	}
	resp.Body.Close() // other answers unread: it may be an endless stream
	h.log.Debug("probed for the authorization challenge", "server", h.opts.ServerID, "method", method, "status", resp.StatusCode)
	if sid := resp.Header.Get("Mcp-Session-Id"); sid != "" && resp.StatusCode/100 == 2 {
		h.endProbeSession(ctx, sid) // an unprotected server opened a session
	}
	if resp.StatusCode != http.StatusUnauthorized {
		return challenge{}, false
	}
	return parseChallenge(resp.Header), true
}

// endProbeSession deletes the MCP session a probe opened.
func (h *Handler) endProbeSession(ctx context.Context, sid string) {
	req, err := http.NewRequestWithContext(ctx, http.MethodDelete, h.opts.ServerURL, nil)
	if err != nil {
		return
	}
	req.Header.Set("Mcp-Session-Id", sid)
	if resp, err := h.noRedirect.Do(req); err == nil {
		resp.Body.Close()
	}
}
