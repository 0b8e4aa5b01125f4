package serve

import (
	"context"
	"errors"

	"github.com/mcp-host/mcp-host/protocol"
	"github.com/mcp-host/mcp-host/runtime/permission"
)

var _ protocol.PermissionsService = (*service)(nil)

// MCPPermissionsList lists the user's remembered "always allow" answers.
func (s *service) MCPPermissionsList(_ context.Context, p *protocol.PermissionsListParams) (*protocol.PermissionsListResult, error) {
	store := s.permissions()
	list, err := store.List(p.Server)
	if err != nil {
		return nil, protocol.NewError(protocol.CodeFailed, protocol.ErrorData{Server: p.Server}, "permissions: %v", err)
	}
	return &protocol.PermissionsListResult{Answers: Answers(list, s.identity), File: store.Path()}, nil
}

// MCPPermissionsRevoke forgets remembered answers; the gate asks again at
// the next call.
func (s *service) MCPPermissionsRevoke(_ context.Context, p *protocol.PermissionsRevokeParams) (*protocol.PermissionsRevokeResult, error) {
	gone, err := s.permissions().Revoke(p.Server, p.Tool)
	if err != nil {
		code := int64(protocol.CodeFailed)
		if !errors.Is(err, permission.ErrNoAnswer) {
			code = protocol.CodeInternalError
		}
		return nil, protocol.NewError(code, protocol.ErrorData{Server: p.Server, Tool: p.Tool}, "%v", err)
	}
	return &protocol.PermissionsRevokeResult{Revoked: Answers(gone, s.identity)}, nil
}

// permissions is the gate's store (requests come after initialize, which
// made the gate).
func (s *service) permissions() *permission.Store {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.gate.Store()
}

// identity is the permission identity of a configured server; false when
// no server has the id.
func (s *service) identity(id string) (permission.Identity, bool) {
	if _, err := s.m.Get(id); err != nil {
		return permission.Identity{}, false
	}
	return s.m.Identity(id), true
}

// Answers is remembered answers in the protocol's form; identity says who
// each server id stands for now (false: no such server), so that each
// answer says whether it applies to the server as configured. `host mcp
// permissions --json` prints the same.
func Answers(list []permission.Remembered, identity func(id string) (permission.Identity, bool)) []protocol.RememberedAnswer {
	out := make([]protocol.RememberedAnswer, 0, len(list))
	for _, a := range list {
		ident, ok := identity(a.Server)
		current := ok && (a.Identity == ident.Key || (a.Identity == "" && ident.Vouched))
		out = append(out, protocol.RememberedAnswer{
			Server: a.Server, Tool: a.Tool, Scope: a.Scope, AllowedAt: a.At, Identity: a.Identity, Current: current,
		})
	}
	return out
}
