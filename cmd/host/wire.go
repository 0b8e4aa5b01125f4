package main

import (
	"strings"

	"github.com/mcp-host/mcp-host/protocol"
	"github.com/mcp-host/mcp-host/runtime/config"
)

// The --json output of host mcp list, get and tools speaks the UI
// protocol's vocabulary (protocol/types.go), so that a script and a UI
// read servers and tools with one parser. Statuses and tools come from
// runtime/serve's exact forms (serve.Status, serve.ToolInfo): the CLI's
// JSON keeps every string the server sent (writeJSON escapes each control
// as \u, so none reaches the terminal), where host serve strips names and
// titles to one line for UIs that print them as they are.

// jsonServer is one server of "host mcp list --json": the configuration
// side of [protocol.ServerStatus] (list connects only with --status, which
// adds the state), with where the server is as in [protocol.ServerDetail].
type jsonServer struct {
	ID        string `json:"id"`
	Transport string `json:"transport"`
	Source    string `json:"source"`
	Enabled   bool   `json:"enabled"`
	URL       string `json:"url,omitempty"`
	Command   string `json:"command,omitempty"`
	// ConfigPath is the file that defines the server ("" for
	// MCP_HOST_SERVERS).
	ConfigPath  string   `json:"config_path,omitempty"`
	HeaderNames []string `json:"header_names,omitempty"`
	EnvNames    []string `json:"env_names,omitempty"`
	// Error says why the entry is invalid (file, server and field named).
	Error string `json:"error,omitempty"`
	// Approval is set for servers a project file defines: unknown,
	// approved, denied or changed.
	Approval string `json:"approval,omitempty"`
	// Policy is the managed policy's rule that blocks the server (State
	// is then blocked_by_policy, without --status too).
	Policy   *protocol.PolicyStatus `json:"policy,omitempty"`
	Warnings []string               `json:"warnings,omitempty"`
	// State, Tools and LastError are set by --status, which connects:
	// the fields of [protocol.ServerStatus] of the same names.
	State     string `json:"state,omitempty"`
	Tools     *int   `json:"tools,omitempty"`
	LastError string `json:"last_error,omitempty"`
}

// jsonDetail is "host mcp get --json": [protocol.ServerDetail] and the
// names (never the values) of the server's headers and environment.
type jsonDetail struct {
	protocol.ServerDetail
	ConfigPath  string   `json:"config_path,omitempty"`
	HeaderNames []string `json:"header_names,omitempty"`
	EnvNames    []string `json:"env_names,omitempty"`
}

// setTarget fills url or command as mcp.get does: a stdio server's command
// line as configured (${VAR} unexpanded), or the endpoint.
func setTarget(cfg config.ServerConfig, url, command *string) {
	if cfg.TransportName() == "stdio" {
		*command = strings.Join(append([]string{cfg.Command}, cfg.Args...), " ")
		return
	}
	*url = cfg.URL
}
