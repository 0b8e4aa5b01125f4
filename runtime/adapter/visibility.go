package adapter

import (
	"github.com/mcp-host/mcp-host/runtime/apps"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// modelVisible reports whether a tool may be offered to the model: MCP
// Apps (SEP-1865) lets a server mark a tool for its app alone
// (_meta.ui.visibility without "model"), and a host must not put such a
// tool in the model's catalog. Apps still call it (runtime/serve's
// app.call_tool builds its adapter with [New], which does not filter).
func modelVisible(def *mcp.Tool) bool { return apps.ModelVisible(def) }
