package runtime

import (
	"context"

	"github.com/mcp-host/mcp-host/runtime/auth"
)

// SetAuthStatus replaces the read of a handler's credentials that
// refreshAuth makes, until the returned restore runs.
func SetAuthStatus(f func(h *auth.Handler, ctx context.Context) (auth.Status, error)) (restore func()) {
	old := authStatus
	authStatus = f
	return func() { authStatus = old }
}
