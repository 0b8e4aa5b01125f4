package runtime

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"reflect"
	"sort"
	"sync"
	"time"

	"github.com/mcp-host/mcp-host/runtime/adapter"
	"github.com/mcp-host/mcp-host/runtime/approval"
	"github.com/mcp-host/mcp-host/runtime/auth"
	"github.com/mcp-host/mcp-host/runtime/config"
	"github.com/mcp-host/mcp-host/runtime/listcache"
	"github.com/mcp-host/mcp-host/runtime/session"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

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
	// ElicitationComplete receives servers' notifications that a URL-mode
	// elicitation finished; nil ignores them.
	ElicitationComplete func(server, elicitationID string)
	// ResourceUpdated receives servers' notifications/resources/updated
	// about resources subscribed with [session.Session.Subscribe]; nil
	// ignores them. It must not block.
	ResourceUpdated func(server, uri string)
	// HTTPClient is passed to HTTP sessions; nil uses the session default.
	HTTPClient *http.Client
	// MinBackoff and MaxBackoff bound the delay between reconnects: it
	// doubles from MinBackoff (default 500 ms) with each failure in a row,
	// up to MaxBackoff (default 30 s), less up to 20% of jitter. A session
	// that stays up for MaxBackoff resets the count (docs/DESIGN.md,
	// "Servers that keep failing").
	MinBackoff, MaxBackoff time.Duration
	// ClientInfo is sent in handshakes.
	ClientInfo *mcp.Implementation
	// ToolsCache keeps servers' catalogs across connects and restarts for
	// as long as their list TTLs say; nil lists on every connect.
	ToolsCache session.ToolsCache
	// ClientMetadataURL is the https URL of the embedding application's
	// OAuth Client ID Metadata Document. It is the client_id at every
	// authorization server that supports such documents, for each server
	// without its own oauth.client_metadata_url or oauth.client_id, so that
	// nothing is registered there; elsewhere registration goes on as before.
	ClientMetadataURL string
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
	// Approvals keeps the user's answers about servers that project files
	// define; such a server starts only once its definition is approved.
	// Nil remembers answers in memory for the life of the manager.
	Approvals *approval.Store
	// ShutdownGrace is how long a stdio server may take to exit after its
	// stdin closes, and again after SIGTERM, before its process group is
	// killed (see session.Options.ShutdownGrace); zero means the session's
	// default. A one-shot command, whose answer is already printed, uses a
	// short one instead of waiting on a server that ignores stdin closing.
	ShutdownGrace time.Duration
	// OneShot marks a manager that serves one command and closes: its
	// sessions do not follow catalog changes (session.Options.OneShot).
	OneShot bool
	// Adapter, when set, are the adapter options the runs of this manager
	// use ([Manager.Catalog]): each server's tools are then adapted as
	// its tools/list pages arrive, instead of all at once when the first
	// run asks. Nil adapts on demand (a command that lists tools and
	// does not run).
	Adapter *adapter.Options
	// Catalogs, when set, keeps each server's last catalog, and servers
	// whose start mode is lazy ("start", lazy by default for stdio) start
	// on first use: until then their kept catalog is offered, and they
	// stop again after idle_timeout_ms unused. Nil connects every server
	// at once (the CLI's one-off commands).
	Catalogs *listcache.Catalogs
	// Sandbox, when set, confines every stdio server by its "sandbox"
	// policy (see [SandboxOptions]); nil runs them unconfined.
	Sandbox *SandboxOptions
}

// A Manager runs every configured server on its own goroutine, each with its
// own state machine. No server waits for another, and status reads never
// block on a connection.
type Manager struct {
	opts ManagerOptions

	mu      sync.Mutex
	servers map[string]*server
	closed  bool
	changed chan struct{}   // closed and replaced on every state change
	enabled map[string]bool // SetEnabled's choices, kept across Apply
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
	if opts.Approvals == nil {
		opts.Approvals, _ = approval.OpenStore("")
	}
	return &Manager{opts: opts, servers: make(map[string]*server), changed: make(chan struct{}), enabled: make(map[string]bool)}
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
		if on, ok := m.enabled[e.ID]; ok && e.Err == nil && !e.Forced() {
			e.Config.Enabled = &on
		}
		old, ok := m.servers[e.ID]
		if ok && sameEntry(old.entry, e) {
			// Only the warnings can differ (a file that stopped or started
			// parsing again): say so without touching the connection.
			if w := e.Warnings(); !reflect.DeepEqual(w, old.snapshot().Warnings) {
				go old.update(func(st *Status) { st.Warnings = w })
			}
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
			delete(m.enabled, id)
			go sv.stop()
		}
	}
}

func sameEntry(a, b config.ServerEntry) bool {
	return a.Source == b.Source && a.Path == b.Path && a.DefinedIn == b.DefinedIn && a.DefinedPath == b.DefinedPath && errString(a.Err) == errString(b.Err) &&
		a.PolicyRev == b.PolicyRev && reflect.DeepEqual(a.Blocked, b.Blocked) && reflect.DeepEqual(a.DeniedTools, b.DeniedTools) && reflect.DeepEqual(a.Config, b.Config)
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

// SetEnabled turns a server on or off for the life of this manager: it
// edits no config file (`host mcp enable|disable` does), and the choice
// survives config reloads until the server is removed from the config.
func (m *Manager) SetEnabled(id string, enabled bool) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	sv, ok := m.servers[id]
	if !ok {
		return fmt.Errorf("no server %q is configured", id)
	}
	if sv.entry.Forced() && !enabled {
		return fmt.Errorf("server %q is provided by the organization (managed policy %s): it cannot be disabled", id, sv.entry.Path)
	}
	m.enabled[id] = enabled
	e := sv.entry
	e.Config.Enabled = &enabled
	nsv := m.replace(sv, e)
	if enabled {
		// Turned on by a person: it starts now, lazy or not.
		nsv.startNow()
	}
	nsv.start()
	return nil
}

// restart starts a server afresh from its entry (after an approval).
func (m *Manager) restart(id string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if sv, ok := m.servers[id]; ok && !m.closed {
		m.replace(sv, sv.entry).start()
	}
}

// replace stops sv in the background and puts a server for e in its
// place, for the caller to start. m.mu must be held.
func (m *Manager) replace(sv *server, e config.ServerEntry) *server {
	go sv.stop()
	nsv := newServer(m, e)
	m.servers[e.ID] = nsv
	return nsv
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
		if m.settled(ids) {
			if out, ok := m.statuses(ids); ok {
				return out, nil
			}
		}
		select {
		case <-ctx.Done():
			out, _ := m.statuses(ids)
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

// callTool is [Manager.CallTool] without its span (traced.go).
func (m *Manager) callTool(ctx context.Context, id, tool string, args any) (*mcp.CallToolResult, error) {
	sv, err := m.server(id)
	if err != nil {
		return nil, err
	}
	if !sv.entry.Config.ToolAllowed(tool) {
		return nil, fmt.Errorf("server %q: tool %q is excluded by include_tools/exclude_tools", id, tool)
	}
	if !sv.entry.ToolAllowed(tool) {
		return nil, fmt.Errorf("server %q: tool %q is denied by the managed policy's tool_deny", id, tool)
	}
	sv.use(1)
	defer sv.use(-1)
	s, err := sv.ready(ctx)
	if err != nil {
		return nil, err
	}
	if err := checkCachedDef(ctx, id, tool, s); err != nil {
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
		// A server that died of a refusal of its sandbox says so (its
		// stderr tail holds only EACCES), as a failed start does.
		err = sv.withExitHint(err)
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
