package session

import (
	"context"
	"encoding/json"

	"github.com/mcp-host/mcp-host/termsafe"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Bounds of the server-log ring: what a server's notifications/message
// may leave in memory, and how much of one message is kept.
const (
	serverLogBytes   = 8 << 10
	serverLogLineMax = 300
)

// keepLog keeps a server's log message (notifications/message) in the
// session's ring, one sanitized and bounded line each. The messages are
// kept for the person looking at the server (`/mcp <id>`, `host mcp get`),
// not forwarded: logging is deprecated (SEP-2577), and the host never asks
// for it with logging/setLevel; it keeps what 2025-11-25 servers send
// anyway.
func (s *Session) keepLog(_ context.Context, req *mcp.LoggingMessageRequest) {
	if req == nil || req.Params == nil {
		return
	}
	p := req.Params
	text, ok := p.Data.(string)
	if !ok {
		raw, err := json.Marshal(p.Data)
		if err != nil {
			return
		}
		text = string(raw)
	}
	if len(text) > 4*serverLogLineMax {
		text = text[:4*serverLogLineMax] // the sanitizer need not read a huge message
	}
	line := string(p.Level)
	if p.Logger != "" {
		line += " " + p.Logger
	}
	s.serverLog.Note(termsafe.LineMax(line+": "+text, serverLogLineMax))
}

// ServerLog returns the last log messages the server sent, one line each,
// oldest first (at most about 8 KiB): the server's own words, stripped of
// control characters.
func (s *Session) ServerLog() string { return s.serverLog.String() }
