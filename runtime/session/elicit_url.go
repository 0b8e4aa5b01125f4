package session

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// clientCapabilities are what every session declares: elicitation in both
// modes, and nothing of the deprecated roots and sampling features
// (docs/DESIGN.md, "Spec direction"), which the SDK would otherwise declare by
// default (roots with listChanged) though the host never implemented them.
func clientCapabilities() *mcp.ClientCapabilities {
	return &mcp.ClientCapabilities{Elicitation: elicitationCapabilities()}
}

// elicitationCapabilities declare elicitation in both modes, form and
// URL: whether an elicitation is shown is the handler's decision, and it
// declines what the UI cannot show.
func elicitationCapabilities() *mcp.ElicitationCapabilities {
	return &mcp.ElicitationCapabilities{
		Form: &mcp.FormElicitationCapabilities{},
		URL:  &mcp.URLElicitationCapabilities{},
	}
}

// elicitationComplete passes a server's notifications/elicitation/complete
// on to the ElicitationComplete option.
func (s *Session) elicitationComplete(_ context.Context, req *mcp.ElicitationCompleteNotificationRequest) {
	if s.opts.ElicitationComplete == nil || req == nil || req.Params == nil {
		return
	}
	s.opts.ElicitationComplete(s.opts.ID, req.Params.ElicitationID)
}
