package session

import (
	"github.com/mcp-host/mcp-host/runtime/apps"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// withApps adds the MCP Apps extension (io.modelcontextprotocol/ui, with
// its one MIME type) to the capabilities a session declares, so that
// servers which offer apps only to hosts that render them (the spec's
// getUiCapability check) offer them; runtime/serve brokers them to the
// UI. Servers that do not know the extension ignore it.
func withApps(caps *mcp.ClientCapabilities) *mcp.ClientCapabilities {
	caps.AddExtension(apps.ExtensionID, map[string]any{"mimeTypes": []string{apps.MIMEType}})
	return caps
}
