package chat

import (
	"fmt"

	"github.com/mcp-host/mcp-host/protocol"
)

// appHint says, under a tool call, that the tool has an MCP App: an
// interactive page of its server, which a terminal cannot show, and where
// to see it. The text answer still comes as for every tool.
func (m *Model) appHint(c *protocol.ToolCallInfo) {
	if c == nil || c.App == nil {
		return
	}
	m.addLine(styleDim.Render(fmt.Sprintf("  %s has an app (%s) that a terminal cannot show: run `host web` to use it in a browser",
		line(c.App.Tool), line(c.App.ResourceURI))))
}
