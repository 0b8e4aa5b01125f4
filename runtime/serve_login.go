package runtime

import (
	"context"

	"github.com/mcp-host/mcp-host/protocol"
)

// MCPLogin runs an interactive OAuth login for a server.
func (s *service) MCPLogin(ctx context.Context, p *protocol.LoginParams) (*protocol.ServerResult, error) {
	if _, err := s.status(p.ID); err != nil {
		return nil, err
	}
	return nil, protocol.Errorf(protocol.CodeFailed, "server %q: login is not available in this build yet", p.ID)
}

// MCPLogout forgets a server's tokens.
func (s *service) MCPLogout(ctx context.Context, p *protocol.LogoutParams) (*protocol.ServerResult, error) {
	if _, err := s.status(p.ID); err != nil {
		return nil, err
	}
	return nil, protocol.Errorf(protocol.CodeFailed, "server %q: logout is not available in this build yet", p.ID)
}
