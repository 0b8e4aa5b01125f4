package runtime

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"reflect"
	"sort"
	"sync"
	"time"

	"github.com/mcp-host/mcp-host/runtime/auth"
	"github.com/mcp-host/mcp-host/runtime/config"
	"github.com/mcp-host/mcp-host/runtime/session"
	sdkauth "github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// State is where a server is in its life.
type State string

// Server states.
const (
	StateDisabled     State = "disabled"
	StateConnecting   State = "connecting"
	StateAuthRequired State = "auth_required"
	StateReady        State = "ready"
	StateError        State = "error"
)

// Status is a snapshot of one server, safe to show to a user: it never holds
// a header value, an environment value or a token.
type Status struct {
	ID        string `json:"id"`
	Transport string `json:"transport"`
	Source    string `json:"source"`
	Enabled   bool   `json:"enabled"`
	State     State  `json:"state"`
	Tools     int    `json:"tools"`
	// ProtocolVersion, ServerName and ServerVersion come from the handshake.
	ProtocolVersion string `json:"protocol_version,omitempty"`
	ServerName      string `json:"server_name,omitempty"`
	ServerVersion   string `json:"server_version,omitempty"`
	SessionID       string `json:"session_id,omitempty"`
	// FellBackToSSE reports an http server reached over legacy SSE.
	FellBackToSSE   bool      `json:"fell_back_to_sse,omitempty"`
	LastError       string    `json:"last_error,omitempty"`
	LastConnectedAt time.Time `json:"last_connected_at,omitzero"`
	// Attempts counts failed connects since the last success.
	Attempts int `json:"attempts,omitempty"`
	// NextRetryAt is when the next connect is due after a failure.
	NextRetryAt time.Time `json:"next_retry_at,omitzero"`
	// Stderr is the kept tail of a stdio server's stderr.
	Stderr string `json:"stderr,omitempty"`
	// Reinitialized counts transparent re-initializations.
	Reinitialized int `json:"reinitialized,omitempty"`
	// Auth describes the authorization state, when the server uses OAuth:
	// not logged in / token valid until … / refresh failed: … / resource
	// mismatch / registration rejected.
	Auth string `json:"auth,omitempty"`
	// AuthLoggedIn and AuthValidUntil say whether there is a token and
	// when the access token expires.
	AuthLoggedIn   bool      `json:"auth_logged_in,omitempty"`
	AuthValidUntil time.Time `json:"auth_valid_until,omitzero"`
	// AuthStorage names where tokens are kept.
	AuthStorage string `json:"auth_storage,omitempty"`
}

// ManagerOptions configures a [Manager].
type ManagerOptions struct {
	// LookupEnv expands ${VAR} in server configs; nil means os.LookupEnv.
	LookupEnv func(string) (string, bool)
	// OnStatus is called after every state change of any server, in order
	// for each server. It must not block for long.
	OnStatus func(Status)
	// OnToolsChanged is called when a server's catalog changed.
	OnToolsChanged func(id string)
	// Elicit answers servers' elicitation requests; nil declines them.
	Elicit session.ElicitationHandler
	// HTTPClient is passed to HTTP sessions; nil uses the session default.
	HTTPClient *http.Client
	// MinBackoff and MaxBackoff bound the delay between reconnects.
	MinBackoff, MaxBackoff time.Duration
	// ClientInfo is sent in handshakes.
	ClientInfo *mcp.Implementation
	// Logger receives debug logs; nil discards them.
	Logger *slog.Logger

	// AuthStore keeps OAuth tokens and client registrations; nil keeps
	// them in memory for the life of the manager. AuthStorage names it in
	// statuses ("keyring", a file path, …).
	AuthStore   auth.Store
	AuthStorage string
	// AuthHTTPClient makes the requests to authorization servers; nil uses
	// the auth package's default.
	AuthHTTPClient *http.Client
	// LoginUI asks a person about logins started with [Manager.Login].
	// Connecting never logs in: a server that needs a login waits in
	// auth_required.
	LoginUI LoginUI
}

// A Manager runs every configured server on its own goroutine, each with its
// own state machine. No server waits for another, and status reads never
// block on a connection.
type Manager struct {
	opts ManagerOptions

	mu      sync.Mutex
	servers map[string]*server
	closed  bool
	changed chan struct{} // closed and replaced on every state change
}

// NewManager returns a manager with no servers; call [Manager.Apply].
func NewManager(opts ManagerOptions) *Manager {
	if opts.MinBackoff <= 0 {
		opts.MinBackoff = 500 * time.Millisecond
	}
	if opts.MaxBackoff <= 0 {
		opts.MaxBackoff = 30 * time.Second
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	return &Manager{opts: opts, servers: make(map[string]*server), changed: make(chan struct{})}
}

// Apply makes the running servers match entries: new servers start, removed
// ones close, changed ones reconnect, unchanged ones are left alone. It
// returns at once; connections proceed in the background.
func (m *Manager) Apply(entries []config.ServerEntry) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return
	}
	seen := make(map[string]bool, len(entries))
	for _, e := range entries {
		seen[e.ID] = true
		old, ok := m.servers[e.ID]
		if ok && sameEntry(old.entry, e) {
			continue
		}
		if ok {
			go old.stop()
		}
		sv := newServer(m, e)
		m.servers[e.ID] = sv
		sv.start()
	}
	for id, sv := range m.servers {
		if !seen[id] {
			delete(m.servers, id)
			go sv.stop()
		}
	}
}

func sameEntry(a, b config.ServerEntry) bool {
	return a.Source == b.Source && a.Path == b.Path && errString(a.Err) == errString(b.Err) && reflect.DeepEqual(a.Config, b.Config)
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

func (m *Manager) server(id string) (*server, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	sv, ok := m.servers[id]
	if !ok {
		return nil, fmt.Errorf("no server %q is configured", id)
	}
	return sv, nil
}

// List returns a snapshot of every server, sorted by id.
func (m *Manager) List() []Status {
	m.mu.Lock()
	svs := make([]*server, 0, len(m.servers))
	for _, sv := range m.servers {
		svs = append(svs, sv)
	}
	m.mu.Unlock()
	out := make([]Status, 0, len(svs))
	for _, sv := range svs {
		out = append(out, sv.snapshot())
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}

// Get returns the status of one server.
func (m *Manager) Get(id string) (Status, error) {
	sv, err := m.server(id)
	if err != nil {
		return Status{}, err
	}
	return sv.snapshot(), nil
}

// Reconnect drops a server's connection, if any, and connects again now.
func (m *Manager) Reconnect(id string) error {
	sv, err := m.server(id)
	if err != nil {
		return err
	}
	sv.poke()
	return nil
}

// SetEnabled turns a server on or off for this process (it does not edit
// any config file).
func (m *Manager) SetEnabled(id string, enabled bool) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	sv, ok := m.servers[id]
	if !ok {
		return fmt.Errorf("no server %q is configured", id)
	}
	e := sv.entry
	e.Config.Enabled = &enabled
	go sv.stop()
	nsv := newServer(m, e)
	m.servers[id] = nsv
	nsv.start()
	return nil
}

// broadcast wakes every WaitSettled.
func (m *Manager) broadcast() {
	m.mu.Lock()
	close(m.changed)
	m.changed = make(chan struct{})
	m.mu.Unlock()
}

// WaitSettled waits until none of the named servers (all when ids is empty)
// is connecting, or ctx ends. It returns their statuses.
func (m *Manager) WaitSettled(ctx context.Context, ids ...string) ([]Status, error) {
	for {
		m.mu.Lock()
		changed := m.changed
		m.mu.Unlock()
		var out []Status
		settled := true
		for _, st := range m.List() {
			if len(ids) > 0 && !contains(ids, st.ID) {
				continue
			}
			out = append(out, st)
			if st.State == StateConnecting {
				settled = false
			}
		}
		if settled {
			return out, nil
		}
		select {
		case <-ctx.Done():
			return out, ctx.Err()
		case <-changed:
		}
	}
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

// Session returns the live session of a ready server.
func (m *Manager) Session(id string) (*session.Session, error) {
	sv, err := m.server(id)
	if err != nil {
		return nil, err
	}
	return sv.liveSession()
}

// Tools returns a ready server's catalog after its include and exclude
// filters.
func (m *Manager) Tools(id string) ([]*mcp.Tool, error) {
	sv, err := m.server(id)
	if err != nil {
		return nil, err
	}
	s, err := sv.liveSession()
	if err != nil {
		return nil, err
	}
	return sv.filter(s.Tools()), nil
}

// CallTool calls a tool on a ready server. A tool the filters hide is
// refused. A failure that looks like a lost transport makes the server check
// its connection, and reconnect if it is gone.
func (m *Manager) CallTool(ctx context.Context, id, tool string, args any) (*mcp.CallToolResult, error) {
	sv, err := m.server(id)
	if err != nil {
		return nil, err
	}
	if !sv.entry.Config.ToolAllowed(tool) {
		return nil, fmt.Errorf("server %q: tool %q is excluded by include_tools/exclude_tools", id, tool)
	}
	s, err := sv.liveSession()
	if err != nil {
		return nil, err
	}
	res, err := s.CallTool(ctx, tool, args)
	switch {
	case err == nil:
	case errors.Is(err, auth.ErrLoginRequired):
		// The tokens are gone (a refresh was refused): the server goes back
		// to auth_required with the reason, instead of staying "ready".
		sv.lose(s, err)
	case transportFailure(err):
		go sv.checkHealth(s)
	}
	return res, err
}

// transportFailure reports whether err is neither the server's answer nor
// the caller's own deadline or cancellation.
func transportFailure(err error) bool {
	var rpcErr *jsonrpc.Error
	return !errors.As(err, &rpcErr) && !errors.Is(err, context.Canceled) && !errors.Is(err, context.DeadlineExceeded)
}

// Close stops every server, closing sessions and stdio process groups
// concurrently, and waits for them.
func (m *Manager) Close() error {
	m.mu.Lock()
	m.closed = true
	svs := make([]*server, 0, len(m.servers))
	for id, sv := range m.servers {
		svs = append(svs, sv)
		delete(m.servers, id)
	}
	m.mu.Unlock()
	var wg sync.WaitGroup
	for _, sv := range svs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sv.stop()
		}()
	}
	wg.Wait()
	return nil
}

// server is one configured server and the goroutine that runs it.
type server struct {
	m     *Manager
	entry config.ServerEntry

	ctx    context.Context
	cancel context.CancelFunc
	done   chan struct{}
	kick   chan struct{} // reconnect now
	lostc  chan error    // the session stopped answering

	mu      sync.Mutex
	status  Status
	sess    *session.Session
	version string        // negotiated protocol version, reused on reconnect
	authH   *auth.Handler // OAuth for http/sse servers, created on first use
}

func newServer(m *Manager, e config.ServerEntry) *server {
	ctx, cancel := context.WithCancel(context.Background())
	sv := &server{m: m, entry: e, ctx: ctx, cancel: cancel, done: make(chan struct{}), kick: make(chan struct{}, 1), lostc: make(chan error, 1)}
	sv.status = Status{
		ID:        e.ID,
		Transport: e.Config.TransportName(),
		Source:    e.Source,
		Enabled:   e.Config.IsEnabled(),
		State:     StateConnecting,
	}
	switch {
	case e.Err != nil:
		sv.status.State, sv.status.LastError = StateError, e.Err.Error()
	case !e.Config.IsEnabled():
		sv.status.State = StateDisabled
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

func (sv *server) snapshot() Status {
	sv.mu.Lock()
	st := sv.status
	s := sv.sess
	sv.mu.Unlock()
	if s != nil {
		info := s.Info()
		st.Tools = len(sv.filter(s.Tools()))
		st.SessionID = info.SessionID
		st.Reinitialized = info.Reinitialized
		st.Stderr = s.Stderr()
	}
	return st
}

// update changes the status under the lock and reports it.
func (sv *server) update(change func(*Status)) {
	sv.mu.Lock()
	change(&sv.status)
	sv.mu.Unlock()
	sv.m.broadcast()
	if sv.m.opts.OnStatus != nil {
		sv.m.opts.OnStatus(sv.snapshot())
	}
}

func (sv *server) liveSession() (*session.Session, error) {
	sv.mu.Lock()
	defer sv.mu.Unlock()
	if sv.sess == nil {
		st := sv.status
		msg := fmt.Sprintf("server %q is %s", st.ID, st.State)
		if st.LastError != "" {
			msg += ": " + st.LastError
		}
		return nil, errors.New(msg)
	}
	return sv.sess, nil
}

func (sv *server) filter(tools []*mcp.Tool) []*mcp.Tool {
	cfg := &sv.entry.Config
	if len(cfg.IncludeTools) == 0 && len(cfg.ExcludeTools) == 0 {
		return tools
	}
	out := make([]*mcp.Tool, 0, len(tools))
	for _, t := range tools {
		if cfg.ToolAllowed(t.Name) {
			out = append(out, t)
		}
	}
	return out
}

// run is the server's state machine.
func (sv *server) run() {
	defer close(sv.done)
	e := sv.entry
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
	attempts := 0
	for {
		sv.update(func(st *Status) { st.State, st.NextRetryAt = StateConnecting, time.Time{} })
		s, err := sv.connect()
		if sv.ctx.Err() != nil {
			if s != nil {
				_ = s.Close()
			}
			return
		}
		if err != nil {
			attempts++
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
			if errors.Is(err, errConfig) {
				// Fixing it needs a config change or an explicit reconnect.
				sv.update(func(st *Status) { st.State, st.LastError, st.Attempts = StateError, err.Error(), attempts })
				if !sv.wait(0) {
					return
				}
				continue
			}
			delay := backoff(attempts, sv.m.opts.MinBackoff, sv.m.opts.MaxBackoff)
			sv.update(func(st *Status) {
				st.State, st.LastError, st.Attempts, st.NextRetryAt = StateError, err.Error(), attempts, time.Now().Add(delay)
			})
			if !sv.wait(delay) {
				return
			}
			continue
		}
		attempts = 0
		sv.refreshAuth()
		info := s.Info()
		sv.mu.Lock()
		sv.sess = s
		sv.version = info.ProtocolVersion
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
		select {
		case <-sv.ctx.Done():
		case <-s.Done():
			lost = s.Err()
		case <-sv.kick:
		case lost = <-sv.lostc:
		}
		sv.mu.Lock()
		sv.sess = nil
		sv.mu.Unlock()
		_ = s.Close()
		if sv.ctx.Err() != nil {
			return
		}
		if lost != nil && errors.Is(lost, auth.ErrLoginRequired) {
			continue // reconnecting lands in auth_required with the reason
		}
		if lost != nil {
			attempts = 1
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

func (sv *server) connect() (*session.Session, error) {
	e := sv.entry
	lookup := sv.m.opts.LookupEnv
	cfg, err := e.Config.Expand(lookup)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", errConfig, e.Wrap(err))
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
		ID:              e.ID,
		Transport:       cfg.TransportName(),
		URL:             cfg.URL,
		Headers:         cfg.Headers,
		HTTPClient:      sv.m.opts.HTTPClient,
		Command:         cfg.Command,
		Args:            cfg.Args,
		Env:             cfg.Env,
		Dir:             cfg.Cwd,
		ProtocolVersion: version,
		OAuthHandler:    oauthHandler(oauth),
		ConnectTimeout:  cfg.StartupTimeout(),
		RequestTimeout:  cfg.RequestTimeout(),
		Elicit:          sv.m.opts.Elicit,
		ClientInfo:      sv.m.opts.ClientInfo,
		Logger:          sv.m.opts.Logger,
		OnToolsChanged: func([]*mcp.Tool, error) {
			sv.update(func(*Status) {})
			if sv.m.opts.OnToolsChanged != nil {
				sv.m.opts.OnToolsChanged(e.ID)
			}
		},
	}
	return session.Connect(sv.ctx, opts)
}

// checkHealth pings a session after a failed call and reconnects when the
// server no longer answers.
func (sv *server) checkHealth(s *session.Session) {
	ctx, cancel := context.WithTimeout(sv.ctx, 5*time.Second)
	defer cancel()
	err := s.Ping(ctx)
	if err == nil || sv.ctx.Err() != nil {
		return
	}
	sv.lose(s, fmt.Errorf("server %q stopped answering: %w", sv.entry.ID, err))
}

// lose tells the server's goroutine that session s is no longer usable,
// unless s has been replaced already.
func (sv *server) lose(s *session.Session, err error) {
	sv.mu.Lock()
	current := sv.sess == s
	sv.mu.Unlock()
	if current {
		select {
		case sv.lostc <- err:
		default:
		}
	}
}

// backoff returns the delay before connect attempt n (1-based): doubling
// from min, capped at max, with up to 20% jitter.
func backoff(n int, min, max time.Duration) time.Duration {
	d := min
	for i := 1; i < n && d < max; i++ {
		d *= 2
	}
	if d > max {
		d = max
	}
	return d + time.Duration(rand.Int64N(int64(d)/5+1))
}

// oauthHandler keeps a nil *auth.Handler from becoming a non-nil interface.
func oauthHandler(h *auth.Handler) sdkauth.OAuthHandler {
	if h == nil {
		return nil
	}
	return h
}
