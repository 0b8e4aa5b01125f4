package protocol

import (
	"context"
	"time"
)

// The user's remembered "always allow" answers: a UI lists them and takes
// them back. A revoked answer is asked again at the next call, also by a
// host serve that is running.
const (
	// MethodMCPPermissionsList lists remembered answers
	// (PermissionsListParams).
	MethodMCPPermissionsList = "mcp.permissions.list"
	// MethodMCPPermissionsRevoke forgets remembered answers: one tool's, a
	// server's, or all (PermissionsRevokeParams).
	MethodMCPPermissionsRevoke = "mcp.permissions.revoke"
)

// Scopes of a [RememberedAnswer].
const (
	// ScopeTool: "always allow this tool", pinned to the tool's definition
	// as the user saw it; a changed definition asks again.
	ScopeTool = "tool"
	// ScopeServer: "always allow this server", every tool of it.
	ScopeServer = "server"
)

// PermissionsListParams choose whose answers mcp.permissions.list lists:
// one server's, or every server's when Server is empty.
type PermissionsListParams struct {
	Server string `json:"server,omitempty"`
}

// RememberedAnswer is one remembered "always allow" answer. Server and
// Tool come from the permissions file: escape them before display.
type RememberedAnswer struct {
	Server string `json:"server"`
	// Tool is the tool's name on its server; empty for scope server.
	Tool string `json:"tool,omitempty"`
	// Scope is ScopeTool or ScopeServer.
	Scope string `json:"scope"`
	// AllowedAt is when the user answered; absent for answers remembered
	// before the host kept the time.
	AllowedAt time.Time `json:"allowed_at,omitzero"`
	// Identity fingerprints the URL or command line the answer is bound
	// to; empty for an answer kept by server id alone.
	Identity string `json:"identity,omitempty"`
	// Current reports that the answer applies to the server as configured
	// now. An answer given to another definition under the same id (its
	// URL or command changed, or it left the configuration) decides
	// nothing until the definition is that one again.
	Current bool `json:"current"`
}

// PermissionsListResult answers mcp.permissions.list.
type PermissionsListResult struct {
	Answers []RememberedAnswer `json:"answers"`
	// File is the permissions file, or empty when answers are kept for
	// this process only.
	File string `json:"file,omitempty"`
}

// PermissionsRevokeParams say which answers mcp.permissions.revoke
// forgets: one tool's (Server and Tool), one server's, all of them
// included (Server alone), or every answer (All, and nothing else).
// Nothing matching is CodeFailed naming the server and tool.
type PermissionsRevokeParams struct {
	Server string `json:"server,omitempty"`
	Tool   string `json:"tool,omitempty"`
	All    bool   `json:"all,omitempty"`
}

// PermissionsRevokeResult answers mcp.permissions.revoke with the answers
// it forgot.
type PermissionsRevokeResult struct {
	Revoked []RememberedAnswer `json:"revoked"`
}

func (p *PermissionsRevokeParams) validate(m string) *Error {
	switch {
	case p.All && (p.Server != "" || p.Tool != ""):
		return NewError(CodeInvalidParams, ErrorData{Method: m, Field: "all"}, "%s: params field \"all\" forgets every answer: give it without server and tool", m)
	case p.All:
		return nil
	case p.Server == "":
		return required(m, "server", `the server whose answers to forget ("all": true forgets every answer)`)
	}
	return nil
}

// PermissionsService is what the runtime does with the user's remembered
// answers for a UI: the mcp.permissions.* requests.
type PermissionsService interface {
	MCPPermissionsList(ctx context.Context, p *PermissionsListParams) (*PermissionsListResult, error)
	MCPPermissionsRevoke(ctx context.Context, p *PermissionsRevokeParams) (*PermissionsRevokeResult, error)
}

// addPermissionMethods adds the mcp.permissions.* methods to t when s
// implements PermissionsService.
func addPermissionMethods(t table, s Server) {
	p, ok := s.(PermissionsService)
	if !ok {
		return
	}
	t[MethodMCPPermissionsList] = strict(MethodMCPPermissionsList, p.MCPPermissionsList)
	t[MethodMCPPermissionsRevoke] = strict(MethodMCPPermissionsRevoke, p.MCPPermissionsRevoke)
}

// permissionsCaller implements PermissionsService over a Conn.
type permissionsCaller struct{ c *Conn }

// NewPermissionsCaller returns a PermissionsService whose methods send
// mcp.permissions.* requests to the runtime over c: what a Go UI uses.
func NewPermissionsCaller(c *Conn) PermissionsService { return permissionsCaller{c} }

func (p permissionsCaller) MCPPermissionsList(ctx context.Context, in *PermissionsListParams) (*PermissionsListResult, error) {
	return call[PermissionsListResult](ctx, p.c, MethodMCPPermissionsList, in)
}
func (p permissionsCaller) MCPPermissionsRevoke(ctx context.Context, in *PermissionsRevokeParams) (*PermissionsRevokeResult, error) {
	return call[PermissionsRevokeResult](ctx, p.c, MethodMCPPermissionsRevoke, in)
}
