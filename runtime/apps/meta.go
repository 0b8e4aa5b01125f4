// Package apps is the runtime's side of MCP Apps (the
// io.modelcontextprotocol/ui extension, SEP-1865): it reads a tool's
// _meta.ui (its ui:// resource and its visibility), fetches and checks UI
// resources (MIME type, size, scheme) with their CSP, permissions and
// domain metadata, caches them per server connection, and keeps the app
// instances a UI shows. It knows nothing of the UI protocol or of the
// server manager: runtime/serve wires it to both.
//
// It must not import runtime or runtime/serve.
package apps

import (
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// ExtensionID is the extension's identifier in MCP capabilities.
const ExtensionID = "io.modelcontextprotocol/ui"

// MIMEType is the MIME type of an app's HTML resource.
const MIMEType = "text/html;profile=mcp-app"

// Visibility values of a tool's _meta.ui.visibility.
const (
	VisibleModel = "model"
	VisibleApp   = "app"
)

// legacyURIKey is the deprecated flat _meta key for the resource URI,
// which hosts still read.
const legacyURIKey = "ui/resourceUri"

// ToolUI is a tool's _meta.ui.
type ToolUI struct {
	// ResourceURI is the tool's UI resource; empty when it has none.
	ResourceURI string
	// Visibility is who may use the tool: [model app] when the server
	// said nothing.
	Visibility []string
}

// HasApp reports whether the tool has a UI resource.
func (u ToolUI) HasApp() bool { return u.ResourceURI != "" }

// Allows reports whether who ("model" or "app") may use the tool.
func (u ToolUI) Allows(who string) bool {
	for _, v := range u.Visibility {
		if v == who {
			return true
		}
	}
	return false
}

// defaultVisibility is the spec's default: both.
var defaultVisibility = []string{VisibleModel, VisibleApp}

// Tool reads a tool's _meta.ui: its resource URI (_meta.ui.resourceUri,
// or the deprecated _meta["ui/resourceUri"]) and its visibility. A
// visibility that is not a list of strings counts as absent (both);
// unknown values are ignored, so ["app","other"] is app-only and an
// explicit empty list allows no one.
func Tool(t *mcp.Tool) ToolUI {
	out := ToolUI{Visibility: defaultVisibility}
	if t == nil || len(t.Meta) == 0 {
		return out
	}
	if ui, ok := t.Meta["ui"].(map[string]any); ok {
		if s, ok := ui["resourceUri"].(string); ok {
			out.ResourceURI = strings.TrimSpace(s)
		}
		if list, ok := ui["visibility"].([]any); ok {
			vis := make([]string, 0, len(list))
			valid := true
			for _, v := range list {
				s, ok := v.(string)
				if !ok {
					valid = false
					break
				}
				if (s == VisibleModel || s == VisibleApp) && !contains(vis, s) {
					vis = append(vis, s)
				}
			}
			if valid {
				out.Visibility = vis
			}
		}
	}
	if out.ResourceURI == "" {
		if s, ok := t.Meta[legacyURIKey].(string); ok {
			out.ResourceURI = strings.TrimSpace(s)
		}
	}
	return out
}

// ModelVisible reports whether the model may see and call the tool: the
// spec says a host must not offer a tool whose visibility lacks "model".
// It is cheap for tools without _meta.ui, which most are.
func ModelVisible(t *mcp.Tool) bool {
	if t == nil || t.Meta == nil {
		return true
	}
	if _, ok := t.Meta["ui"]; !ok {
		return true
	}
	return Tool(t).Allows(VisibleModel)
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}
