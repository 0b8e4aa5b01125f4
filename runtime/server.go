package runtime

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/mcp-host/mcp-host/runtime/approval"
	"github.com/mcp-host/mcp-host/runtime/auth"
	"github.com/mcp-host/mcp-host/runtime/config"
	"github.com/mcp-host/mcp-host/runtime/netproxy"
	"github.com/mcp-host/mcp-host/runtime/registry"
	"github.com/mcp-host/mcp-host/runtime/session"
	sdkauth "github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// server is one configured server and the goroutine that runs it.
type server struct {
	m     *Manager
	entry config.ServerEntry

	ctx    context.Context
	cancel context.CancelFunc
	done   chan struct{}
	kick   chan struct{} // reconnect now
	lostc  chan lostConn // a session stopped answering

	deliver sync.Mutex // orders status reports (see update)
	// authRefresh holds a refreshAuth from its read of the credentials to
	// its write of the status, so that a read made before a logout is
	// never written after the logout's own refresh (see refreshAuth).
	authRefresh sync.Mutex
	mu          sync.Mutex
	status      Status
	sess        *session.Session
	gone        error         // why the last session ended, if it failed
	version     string        // negotiated protocol version, reused on reconnect
	authH       *auth.Handler // OAuth for http/sse servers, created on first use

	adapted adapted         // the adapted catalog, kept between runs (adapted.go)
	tmp     string          // a stdio server's private temp dir (sandboxed.go)
	fetched string          // what its launcher fetched before a start without network (launcherfetch.go)
	proxy   *netproxy.Proxy // a stdio server's network proxy (netproxied.go)
	lazy    lazyState       // start on first use, stop when idle (lazy.go)
	stderr  stderrTail      // a failed start's stderr tail (status.go)
}

func newServer(m *Manager, e config.ServerEntry) *server {
	ctx, cancel := context.WithCancel(context.Background())
	sv := &server{m: m, entry: e, ctx: ctx, cancel: cancel, done: make(chan struct{}), kick: make(chan struct{}, 1), lostc: make(chan lostConn, 1)}
	sv.status = Status{
		ID:        e.ID,
		Transport: e.Config.TransportName(),
		Source:    e.Source,
		Enabled:   e.Config.IsEnabled(),
		State:     StateConnecting,
		Warnings:  e.Warnings(),
	}
	sv.status.Sandbox = sv.sandboxPreview()
	sv.initLazy()
	if sv.status.State == StateConnecting && sv.parkFirst() {
		// Idle from the start: a use before the goroutine parks is not
		// lost (wakec keeps it).
		sv.status.State, sv.lazy.parked = StateIdle, true
	}
	switch {
	case e.Blocked != nil:
		sv.status.State, sv.status.LastError, sv.status.Policy = StateBlockedByPolicy, e.Blocked.Error(), policyStatus(e.Blocked)
	case e.Err != nil:
		sv.status.State, sv.status.LastError = StateError, e.Err.Error()
	case !e.Config.IsEnabled():
		sv.status.State = StateDisabled
	case e.NeedsApproval():
		sv.status.Approval, sv.status.LastError = sv.approval()
		if sv.status.Approval.Decision != string(approval.Approved) {
			sv.status.State = StateApprovalRequired
		}
	}
	return sv
}

func (sv *server) start() {
	go sv.run()
}

// stop ends the goroutine and closes the session; it waits for both.
func (sv *server) stop() {
	sv.cancel()
	<-sv.done
}

func (sv *server) poke() {
	select {
	case sv.kick <- struct{}{}:
	default:
	}
}

func (sv *server) liveSession() (*session.Session, error) {
	sv.mu.Lock()
	defer sv.mu.Unlock()
	if sv.sess == nil {
		st := sv.status
		if st.State == StateReady {
			// The session just ended and the status has not caught up:
			// say what happened, not "is ready".
			if sv.gone != nil {
				return nil, fmt.Errorf("server %q lost its connection (reconnecting): %w", st.ID, sv.gone)
			}
			return nil, fmt.Errorf("server %q is reconnecting", st.ID)
		}
		msg := fmt.Sprintf("server %q is %s", st.ID, st.State)
		if st.LastError != "" {
			msg += ": " + st.LastError
		}
		return nil, errors.New(msg)
	}
	return sv.sess, nil
}

func (sv *server) filter(tools []*mcp.Tool) []*mcp.Tool {
	keep := sv.filterFunc()
	if keep == nil {
		return tools
	}
	out := make([]*mcp.Tool, 0, len(tools))
	for _, t := range tools {
		if keep(t.Name) {
			out = append(out, t)
		}
	}
	return out
}

// filterFunc is the server's include/exclude filter for one tool name; nil
// when the server filters nothing.
func (sv *server) filterFunc() func(name string) bool {
	e := &sv.entry
	if len(e.Config.IncludeTools) == 0 && len(e.Config.ExcludeTools) == 0 && len(e.DeniedTools) == 0 {
		return nil
	}
	return e.ToolAllowed
}

// loop is the server's state machine; run calls it.
func (sv *server) loop() {
	e := sv.entry
	if e.Blocked != nil {
		sv.update(func(st *Status) {
			st.State, st.LastError, st.Policy = StateBlockedByPolicy, e.Blocked.Error(), policyStatus(e.Blocked)
		})
		<-sv.ctx.Done()
		return
	}
	if e.Err != nil {
		sv.update(func(st *Status) { st.State, st.LastError = StateError, e.Err.Error() })
		<-sv.ctx.Done()
		return
	}
	if !e.Config.IsEnabled() {
		sv.update(func(st *Status) { st.State = StateDisabled })
		<-sv.ctx.Done()
		return
	}
	if e.NeedsApproval() && !sv.awaitApproval() {
		return
	}
	// attempts counts the failures in a row: connects that failed and
	// sessions that ended before they had run for stableAfter. Only a
	// session that stays up that long resets it, so a server that dies
	// soon after every start backs off as one that never starts.
	attempts := 0
	var park State // a lazy server waits for a use in this state first
	if sv.parkFirst() && !sv.lazy.now {
		park = StateIdle
	}
	for {
		if park != "" && !sv.park(park) {
			return
		}
		park = ""
		sv.update(func(st *Status) {
			st.State, st.NextRetryAt, st.Policy = StateConnecting, time.Time{}, nil
			st.ConnectStartedAt = time.Now()
			sv.lazy.starts++
			sv.stderr.last = nil // until this attempt starts a process
		})
		s, err := sv.connect()
		if sv.ctx.Err() != nil {
			if s != nil {
				_ = s.Close()
			}
			return
		}
		if err != nil {
			attempts++
			sv.keepFailedStderr()
			if errors.Is(err, auth.ErrLoginRequired) || errors.Is(err, auth.ErrResourceMismatch) {
				// Retrying cannot help: a login (or a config fix) must come
				// first. Wait for Login or Reconnect.
				sv.refreshAuth()
				state, msg := StateAuthRequired, err.Error()
				var lr *auth.LoginRequiredError
				if errors.As(err, &lr) {
					msg = "login required: " + lr.Reason
				}
				if errors.Is(err, auth.ErrResourceMismatch) {
					state = StateError
				}
				sv.update(func(st *Status) {
					st.State, st.LastError, st.Attempts = state, msg, attempts
					if st.Auth == "" && lr != nil {
						st.Auth, st.AuthStorage = lr.Reason, sv.m.opts.AuthStorage
					}
				})
				if !sv.wait(0) {
					return
				}
				continue
			}
			var pb *config.PolicyBlock
			if errors.As(err, &pb) {
				// What the server would reach after ${VAR} expansion is
				// forbidden: nothing was contacted; a config or policy
				// change (or a reconnect) tries again.
				sv.update(func(st *Status) {
					st.State, st.LastError, st.Policy, st.Attempts = StateBlockedByPolicy, pb.Error(), policyStatus(pb), 0
				})
				if !sv.wait(0) {
					return
				}
				continue
			}
			if errors.Is(err, errConfig) {
				// Fixing it needs a config change or an explicit reconnect.
				sv.update(func(st *Status) { st.State, st.LastError, st.Attempts = StateError, err.Error(), attempts })
				if !sv.wait(0) {
					return
				}
				continue
			}
			delay := backoff(attempts, sv.m.opts.MinBackoff, sv.m.opts.MaxBackoff)
			// The authorization server said when to come back (a 503 or 429
			// on refresh): the credentials are kept, and asking earlier
			// only meets the same answer.
			var te *auth.TransientError
			if errors.As(err, &te) && time.Until(te.RetryAt) > delay {
				delay = time.Until(te.RetryAt)
			}
			if sv.parkFirst() {
				// A lazy server is not retried on its own: its next use
				// starts it again, its kept catalog offered meanwhile.
				sv.update(func(st *Status) {
					st.State, st.LastError, st.Attempts = StateError, err.Error(), attempts
					sv.lazy.parked = true // one change: the catalog stays offered
				})
				park = StateError
				continue
			}
			sv.update(func(st *Status) {
				st.State, st.LastError, st.Attempts, st.NextRetryAt = StateError, err.Error(), attempts, time.Now().Add(delay)
			})
			if !sv.wait(delay) {
				return
			}
			continue
		}
		upSince := time.Now()
		sv.refreshAuth()
		info := s.Info()
		sv.keepCatalog(s, s.Tools())
		sv.mu.Lock()
		sv.sess, sv.stderr.failed = s, nil
		sv.version = info.ProtocolVersion
		sv.lazy.subs, sv.lazy.lastUse = 0, time.Now()
		sv.mu.Unlock()
		sv.update(func(st *Status) {
			st.State, st.LastError, st.Attempts = StateReady, "", 0
			st.Transport = info.Transport
			st.FellBackToSSE = info.FellBackToSSE
			st.ProtocolVersion, st.ServerName, st.ServerVersion = info.ProtocolVersion, info.ServerName, info.ServerVersion
			st.LastConnectedAt = info.ConnectedAt
		})
		if sv.m.opts.OnToolsChanged != nil {
			sv.m.opts.OnToolsChanged(e.ID)
		}
		var lost error
		idle, idleStop := sv.idleTimer(), false
	watch:
		select {
		case <-sv.ctx.Done():
		case <-s.Done():
			lost = s.Err()
		case <-timerC(idle):
			if stopped, left := sv.idleStop(); !stopped {
				idle.Reset(left)
				goto watch
			}
			idleStop = true
		case <-sv.kick:
		case l := <-sv.lostc:
			if l.sess != s {
				// A signal about an earlier session, sent just before it
				// was replaced: this one is fine.
				goto watch
			}
			lost = l.err
		}
		if idle != nil {
			idle.Stop()
		}
		if idleStop || time.Since(upSince) >= sv.stableAfter() {
			attempts = 0 // it ran fine: the next failure waits the shortest delay
		}
		if idleStop {
			// Unused for idle_timeout_ms (idleStop detached the session):
			// the process stops, the catalog listed last is offered until
			// the next use starts it again.
			_ = s.Close()
			park = StateIdle
			continue
		}
		sv.mu.Lock()
		sv.sess, sv.gone = nil, lost
		if lost != nil {
			sv.stderr.failed = sv.stderr.last // it ended on its own: a failure too
		}
		sv.mu.Unlock()
		if lost != nil && !errors.Is(lost, auth.ErrLoginRequired) {
			attempts++ // it ended on its own: a failure, in a row unless it had run long
		}
		if lost != nil && !errors.Is(lost, auth.ErrLoginRequired) && sv.parkFirst() && sv.ctx.Err() == nil {
			sv.update(func(st *Status) {
				st.State, st.LastError, st.Attempts = StateError, lost.Error(), attempts
				sv.lazy.parked = true
			})
			_ = s.Close()
			park = StateError
			continue
		}
		if sv.ctx.Err() == nil && lost == nil {
			// Reconnect asked for: the old session is closing (a stdio
			// server may take a moment), so say connecting now rather than
			// show "ready" with no tools meanwhile.
			sv.update(func(st *Status) { st.State, st.LastError, st.Tools = StateConnecting, "", 0 })
		}
		_ = s.Close()
		if sv.ctx.Err() != nil {
			return
		}
		if lost != nil && errors.Is(lost, auth.ErrLoginRequired) {
			continue // reconnecting lands in auth_required with the reason
		}
		if lost != nil {
			delay := backoff(attempts, sv.m.opts.MinBackoff, sv.m.opts.MaxBackoff)
			sv.update(func(st *Status) {
				st.State, st.LastError, st.Attempts, st.NextRetryAt = StateError, lost.Error(), attempts, time.Now().Add(delay)
			})
			if !sv.wait(delay) {
				return
			}
		}
	}
}

// wait sleeps for d (forever when d is 0) unless the server is stopped
// (false) or poked (true).
func (sv *server) wait(d time.Duration) bool {
	var timer <-chan time.Time
	if d > 0 {
		t := time.NewTimer(d)
		defer t.Stop()
		timer = t.C
	}
	select {
	case <-sv.ctx.Done():
		return false
	case <-sv.kick:
		return true
	case <-timer:
		return true
	}
}

// errConfig marks a connect failure that retrying cannot fix.
var errConfig = errors.New("configuration error")

func (sv *server) connectIn(ctx context.Context) (*session.Session, error) {
	e := sv.entry
	cfg, err := sv.expand()
	if err != nil {
		return nil, fmt.Errorf("%w: %w", errConfig, e.Wrap(err))
	}
	if e.Check != nil {
		if b := e.Check(&cfg); b != nil {
			return nil, b
		}
	}
	if r := cfg.Registry; r != nil && r.BundleSHA256 != "" && cfg.TransportName() == "stdio" {
		// An installed bundle runs only as it was verified at install.
		if err := registry.VerifyBundle(r.BundleDir, r.BundleSHA256); err != nil {
			return nil, fmt.Errorf("%w: %w", errConfig, err)
		}
	}
	sv.mu.Lock()
	version := sv.version
	sv.mu.Unlock()
	if cfg.ProtocolVersion != "" {
		version = cfg.ProtocolVersion
	}
	var oauth *auth.Handler
	if cfg.TransportName() != "stdio" {
		if oauth, err = sv.authHandler(); err != nil {
			return nil, fmt.Errorf("%w: %w", errConfig, err)
		}
	}
	opts := session.Options{
		ID:               e.ID,
		RedirectCheck:    redirectCheck(e, cfg),
		Transport:        cfg.TransportName(),
		URL:              cfg.URL,
		Headers:          cfg.Headers,
		HTTPClient:       sv.m.opts.HTTPClient,
		Command:          cfg.Command,
		Args:             cfg.Args,
		Env:              cfg.Env,
		EnvVars:          cfg.EnvVars,
		Dir:              cfg.Cwd,
		ProtocolVersion:  version,
		OAuthHandler:     oauthHandler(oauth),
		ConnectTimeout:   cfg.StartupTimeout(),
		RequestTimeout:   cfg.RequestTimeout(),
		TaskTimeout:      time.Duration(cfg.TaskTimeoutMS) * time.Millisecond,
		MaxResponseBytes: cfg.MaxResponseBytes,
		Elicit:           sv.guardElicit(sv.m.opts.Elicit),
		ToolsCache:       sv.m.opts.ToolsCache,
		CacheKey:         toolsCacheKey(e.ID, &cfg),
		ElicitationComplete: func(server, id string) {
			defer sv.recoverIn("the elicitation/complete handler")
			if sv.m.opts.ElicitationComplete != nil {
				sv.m.opts.ElicitationComplete(server, id)
			}
		},
		OnResourceUpdated: func(uri string) {
			defer sv.recoverIn("the resources/updated handler")
			if sv.m.opts.ResourceUpdated != nil {
				sv.m.opts.ResourceUpdated(e.ID, uri)
			}
		},
		ClientInfo: sv.m.opts.ClientInfo,
		Logger:     sv.m.opts.Logger,
		// A one-shot command's short grace (ManagerOptions.ShutdownGrace).
		ShutdownGrace: sv.m.opts.ShutdownGrace,
		OneShot:       sv.m.opts.OneShot,
		OnToolsPage:   sv.adaptPage,
		OnToolsChanged: func(tools []*mcp.Tool, err error) {
			defer sv.recoverIn("the tools/list_changed handler")
			if err == nil {
				sv.rekeepCatalog(tools)
			}
			sv.update(func(*Status) {})
			if sv.m.opts.OnToolsChanged != nil {
				sv.m.opts.OnToolsChanged(e.ID)
			}
		},
	}
	program, args, err := sv.fetchLauncher(ctx, &cfg)
	if err != nil {
		return nil, err
	}
	if program != "" {
		opts.Command, opts.Args = program, args
	}
	opts.WrapCommand = sv.keepStderr(sv.sandboxWrap(&cfg))
	s, err := session.Connect(ctx, opts)
	return s, sv.withSandboxHint(err)
}

// policyStatus is a policy block in a status's form.
func policyStatus(b *config.PolicyBlock) *PolicyStatus {
	return &PolicyStatus{File: b.File, Rule: b.Rule, Reason: b.Reason}
}

// oauthHandler keeps a nil *auth.Handler from becoming a non-nil interface.
func oauthHandler(h *auth.Handler) sdkauth.OAuthHandler {
	if h == nil {
		return nil
	}
	return h
}
