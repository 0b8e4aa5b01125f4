package runtime

import (
	"context"
	"fmt"
	"os"
	"runtime/debug"
	"time"

	"github.com/mcp-host/mcp-host/redact"
	"github.com/mcp-host/mcp-host/runtime/config"
	"github.com/mcp-host/mcp-host/runtime/session"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// run is the server's goroutine. A panic anywhere in its state machine
// (config expansion, connect, OAuth, catalog handling) becomes this
// server's error, retried after a backoff; it never takes the host and the
// other servers down with it.
func (sv *server) run() {
	defer close(sv.done)
	defer sv.removeTempDir()
	defer sv.stopProxy()
	for attempt := 1; ; attempt++ {
		err := sv.guard(sv.loop)
		if err == nil || sv.ctx.Err() != nil {
			return
		}
		sv.mu.Lock()
		s := sv.sess
		sv.sess = nil
		sv.mu.Unlock()
		if s != nil {
			_ = s.Close()
		}
		delay := backoff(attempt, sv.m.opts.MinBackoff, sv.m.opts.MaxBackoff)
		sv.update(func(st *Status) {
			st.State, st.LastError, st.Attempts, st.NextRetryAt = StateError, err.Error(), attempt, time.Now().Add(delay)
		})
		if !sv.wait(delay) {
			return
		}
	}
}

// guard runs fn and turns a panic in it into an error naming the server.
func (sv *server) guard(fn func()) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = sv.panicError("", r)
		}
	}()
	fn()
	return nil
}

// recoverIn, deferred in a callback the SDK runs on its own goroutines,
// keeps a panic there from ending the process: it is logged and the
// server's session is dropped and reconnected.
func (sv *server) recoverIn(where string) {
	if r := recover(); r != nil {
		err := sv.panicError(where, r)
		sv.mu.Lock()
		s := sv.sess
		sv.mu.Unlock()
		if s != nil {
			sv.lose(s, err)
		}
	}
}

// panicError logs the panic with its stack and returns the error the
// server's status shows.
func (sv *server) panicError(where string, r any) error {
	if where != "" {
		where = " in " + where
	}
	err := fmt.Errorf("internal error%s of server %q: %v (this is a bug in mcp-host; the server was stopped and is retried)", where, sv.entry.ID, r)
	sv.m.opts.Logger.Error("panic", "server", sv.entry.ID, "error", err, "stack", string(debug.Stack()))
	return err
}

// guardElicit wraps the elicitation handler so that a panic in it declines
// the request instead of ending the process.
func (sv *server) guardElicit(h session.ElicitationHandler) session.ElicitationHandler {
	if h == nil {
		return nil
	}
	return func(ctx context.Context, id string, p *mcp.ElicitParams) (res *mcp.ElicitResult, err error) {
		defer func() {
			if r := recover(); r != nil {
				res, err = nil, sv.panicError("the elicitation handler", r)
			}
		}()
		return h(ctx, id, p)
	}
}

// expand expands the entry's ${VAR} references and registers every value
// that must stay secret with the redactor before anything can quote it:
// the variables' values, header and environment values, client secrets.
// Errors and statuses that mention them later (a URL in a dial error, say)
// show *** instead.
func (sv *server) expand() (config.ServerConfig, error) {
	lookup := sv.m.opts.LookupEnv
	if lookup == nil {
		lookup = os.LookupEnv
	}
	var found []string
	cfg, err := sv.entry.Config.Expand(func(name string) (string, bool) {
		v, ok := lookup(name)
		if ok {
			found = append(found, v)
		}
		return v, ok
	})
	redact.Register(found...)
	if err == nil {
		redact.Register(cfg.Secrets()...)
	}
	return cfg, err
}
