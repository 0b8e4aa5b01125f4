package serve

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"slices"
	"sort"
	"sync"
	"time"

	"github.com/mcp-host/mcp-host/core"
	"github.com/mcp-host/mcp-host/protocol"
	"github.com/mcp-host/mcp-host/runtime"
	"github.com/mcp-host/mcp-host/runtime/adapter"
	"github.com/mcp-host/mcp-host/runtime/agentrun"
	"github.com/mcp-host/mcp-host/runtime/config"
	"github.com/mcp-host/mcp-host/runtime/permission"
	"github.com/mcp-host/mcp-host/runtime/policy"
	"github.com/mcp-host/mcp-host/runtime/registry"
	"github.com/mcp-host/mcp-host/runtime/resultstore"
)

// Defaults of ServeOptions.
const (
	DefaultWatchInterval = time.Second
	DefaultShutdownGrace = 10 * time.Second
)

// ServeOptions configure [Serve].
type ServeOptions struct {
	// Config says where the configuration layers are. The files are watched
	// and changes applied without a restart.
	Config config.LoadOptions
	// Policy locates the organization's managed policy, read (and
	// watched) with the config; the zero value is no policy.
	Policy policy.Source
	// Manager configures the server manager; Serve sets OnStatus and Elicit
	// itself.
	Manager runtime.ManagerOptions
	// Provider is the model for run.start; nil refuses runs with
	// protocol.CodeNoModel. ModelName names it for the UI.
	Provider  core.Provider
	ModelName string
	// Permissions is the file that keeps "always allow" answers; "" keeps
	// them for this process only.
	Permissions string
	// Deny and Allow are permission rules.
	Deny, Allow []permission.Rule
	// ConfirmTimeout bounds how long a confirm waits for the UI; silence
	// denies. Zero means permission.DefaultConfirmTimeout.
	ConfirmTimeout time.Duration
	// Adapter limits schemas and results handed to the model.
	Adapter adapter.Options
	// Local returns extra tools for each run (resources, prompts, skills).
	Local func(ctx context.Context, m *runtime.Manager) []core.Tool
	// Version is the runtime's version, for initialize.
	Version string
	// WatchInterval is how often config files are checked for changes;
	// zero means DefaultWatchInterval, negative turns watching off.
	WatchInterval time.Duration
	// Logger receives the runtime's logs (stderr in `host serve`); nil
	// discards them. Debug enables protocol traffic logging on it.
	Logger *slog.Logger
	Debug  bool
	// MaxLineBytes bounds an incoming line; zero means the protocol default.
	MaxLineBytes int
	// Registry serves the registry.* methods; nil means the official
	// registry without a cache.
	Registry *registry.Installer
}

// Serve runs the runtime for a UI on in/out (the UI's end of the process's
// stdin and stdout): it loads the configuration, starts every server,
// answers the protocol until the UI sends shutdown, closes its input, or ctx
// ends, and then closes every session and child process.
func Serve(ctx context.Context, in io.Reader, out io.Writer, opts ServeOptions) error {
	s := newService(opts)
	connOpts := protocol.ConnOptions{
		MaxLineBytes: opts.MaxLineBytes,
		Inline:       []string{protocol.MethodInitialize},
		// A confirm, prompt or elicitation the runtime stops waiting for
		// is withdrawn with ui.request.cancelled.
		AnnounceAbandoned: true,
		Admit:             s.admit,
		AfterReply: func(method string) {
			// Only a shutdown that ran stops the runtime: one refused
			// (an unknown params field) was not carried out.
			s.mu.Lock()
			closing := s.closing
			s.mu.Unlock()
			if method == protocol.MethodShutdown && closing {
				s.quitOnce.Do(func() { close(s.quit) })
			}
		},
	}
	if opts.Debug {
		connOpts.Logger = s.log
	} else {
		connOpts.Logger = slog.New(levelFloor{s.log.Handler(), slog.LevelWarn})
	}
	s.conn = protocol.NewConn(in, out, protocol.ServerHandler(s), connOpts)
	s.ui = protocol.NewClientCaller(s.conn)
	go s.notifyLoop()
	s.start()

	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	runErr := make(chan error, 1)
	go func() { runErr <- s.conn.Run(ctx) }()
	if opts.WatchInterval >= 0 {
		go s.watch(ctx)
	}
	var err error
	select {
	case <-s.quit:
		s.log.Info("shutdown requested")
	case err = <-runErr:
		s.log.Info("input closed; shutting down", "error", err)
	case <-ctx.Done():
		s.log.Info("stopping", "cause", context.Cause(ctx))
	}
	s.close()
	cancel()
	return err
}

// levelFloor drops records below a level.
type levelFloor struct {
	slog.Handler
	min slog.Level
}

func (l levelFloor) Enabled(ctx context.Context, lv slog.Level) bool {
	return lv >= l.min && l.Handler.Enabled(ctx, lv)
}

// service is the runtime behind one UI connection.
type service struct {
	opts ServeOptions
	log  *slog.Logger
	conn *protocol.Conn
	ui   protocol.Client
	m    *runtime.Manager
	// results keeps whole the results cut at the output budget, nil when
	// its directory cannot be used (results are then only cut).
	results *resultstore.Store
	// conv holds each conversation's kept results and runs (conversation.go).
	conv conversations

	quit     chan struct{}
	quitOnce sync.Once

	mu          sync.Mutex
	initialized bool
	caps        protocol.UICapabilities
	agent       *agentrun.Agent
	gate        *permission.Gate
	entries     map[string]config.ServerEntry // as the config files define them
	shown       map[string]config.ServerEntry // as the manager runs them, after the policy
	problems    []string
	files       []string
	runs        map[string]context.CancelFunc
	convs       map[string][]core.Message
	nextRun     int
	nextConv    int
	closing     bool
	// reconnecting holds the servers that show connecting until the
	// manager reports where their reconnect lands, each with the time
	// the UI asked for it (see wireStatus).
	reconnecting map[string]time.Time
	// lastSent is the last mcp.status sent per server; only the
	// notification goroutine uses it.
	lastSent map[string]protocol.ServerStatus
	// apps holds the MCP App instances and UI resources (apps.go).
	apps appState
	// ts is the tool-search budget of the last config load (toolsearch.go).
	ts toolSearch
	// opened holds the URL-mode elicitations the user agreed to open.
	opened openedElicitations

	// Notifications go out in order on one goroutine, so that no state
	// change waits for the UI to read.
	nmu     sync.Mutex
	ncond   *sync.Cond
	nqueue  []func()
	nclosed bool
	ndone   chan struct{}
	// nlatest are the queued notifications a newer one of the same key
	// replaces (see enqueueLatest).
	nlatest map[string]*latestNote
}

func newService(opts ServeOptions) *service {
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.WatchInterval == 0 {
		opts.WatchInterval = DefaultWatchInterval
	}
	s := &service{
		opts:         opts,
		log:          opts.Logger,
		quit:         make(chan struct{}),
		entries:      map[string]config.ServerEntry{},
		runs:         map[string]context.CancelFunc{},
		convs:        map[string][]core.Message{},
		reconnecting: map[string]time.Time{},
		lastSent:     map[string]protocol.ServerStatus{},
		ndone:        make(chan struct{}),
	}
	s.ncond = sync.NewCond(&s.nmu)
	s.nlatest = map[string]*latestNote{}
	return s
}

// start creates the manager and applies the configuration: servers start
// connecting before the UI has even initialized.
func (s *service) start() {
	mo := s.opts.Manager
	mo.Logger = s.log
	mo.OnStatus = s.onStatus
	mo.Elicit = s.elicit
	mo.ElicitationComplete = s.elicitationComplete
	mo.ResourceUpdated = s.resourceUpdated // primitives.go
	// Runs adapt with these options: servers' catalogs are adapted as they
	// are listed.
	adapt := s.opts.Adapter
	mo.Adapter = &adapt
	s.m = runtime.NewManager(mo)
	// Opening the store sweeps results a host left behind over a day ago.
	if st, err := resultstore.Open(resultstore.Options{}); err != nil {
		s.log.Warn("results cut at the output budget will not be kept whole", "error", err)
	} else {
		s.results = st
	}
	s.reload()
}

// reload reads the configuration and applies it to the manager.
func (s *service) reload() {
	eff, err := config.Load(s.opts.Config)
	if err != nil {
		s.log.Error("config", "error", err)
		return
	}
	var problems []string
	for _, e := range eff.Errors {
		problems = append(problems, e.Error())
	}
	entries := map[string]config.ServerEntry{}
	for _, e := range eff.Servers {
		entries[e.ID] = e
	}
	s.mu.Lock()
	// s.entries keeps the config's entries as the files define them; the
	// policy applies to them all afresh below, stale ones included.
	// A file saved half-written must not close the servers it defined:
	// they keep their last good definition and show the file's error.
	for id, prev := range s.entries {
		berr := eff.Broken[prev.Path]
		if berr == nil {
			berr = eff.Broken[prev.DefinedPath]
		}
		if berr != nil && prev.Path != "" {
			prev.Stale = berr
			entries[id] = prev
		}
	}
	final := &config.Effective{Servers: make([]config.ServerEntry, 0, len(entries))}
	for _, e := range entries {
		final.Servers = append(final.Servers, e)
	}
	sort.Slice(final.Servers, func(i, j int) bool { return final.Servers[i].ID < final.Servers[j].ID })
	s.opts.Policy.Load().Apply(final, s.opts.Manager.LookupEnv)
	for _, e := range final.Errors {
		problems = append(problems, e.Error())
	}
	servers := final.Servers
	// Entry problems after the policy: an entry the organization's server
	// replaced is none.
	for _, e := range servers {
		if e.Err != nil {
			problems = append(problems, e.Err.Error())
		}
	}
	var removed []config.ServerEntry
	for id, e := range s.shown {
		if !slices.ContainsFunc(servers, func(n config.ServerEntry) bool { return n.ID == id }) {
			removed = append(removed, e)
		}
	}
	s.shown = map[string]config.ServerEntry{}
	for _, e := range servers {
		s.shown[e.ID] = e
	}
	s.entries, s.problems, s.files = entries, problems, eff.Files
	ready := s.initialized
	s.mu.Unlock()
	s.setToolSearch(eff.ToolSearch)
	for _, p := range problems {
		s.log.Warn("config problem", "problem", p)
	}
	s.m.Apply(servers)
	if ready {
		for _, e := range removed {
			// Sent with the last status the UI saw, or, for a server never
			// reported, its transport and state disabled.
			st := protocol.ServerStatus{ID: e.ID, Transport: e.Config.TransportName(), Source: string(e.Source), State: protocol.StateDisabled, Status: protocol.StateDisabled}
			s.sendStatus(protocol.MCPStatusParams{Server: st, Removed: true})
		}
		for _, pr := range problems {
			p := &protocol.LogParams{Level: "warn", Message: pr}
			s.enqueue(func() { s.ui.Log(context.Background(), p) })
		}
	}
}

// watch reloads the configuration when one of its files changes (or
// appears, or goes away).
func (s *service) watch(ctx context.Context) {
	// The approvals file too: `host mcp approve` in a terminal reaches a
	// running host serve.
	paths := []string{s.opts.Config.GlobalPath, s.opts.Config.ProjectPath, s.opts.Policy.File}
	if a := s.opts.Manager.Approvals; a != nil {
		paths = append(paths, a.Path())
	}
	stamp := func() string {
		var out string
		for _, p := range paths {
			if p == "" {
				continue
			}
			if fi, err := os.Stat(p); err == nil {
				out += fmt.Sprintf("%s:%d:%d;", p, fi.Size(), fi.ModTime().UnixNano())
			} else {
				out += p + ":-;"
			}
		}
		return out
	}
	last := stamp()
	t := time.NewTicker(s.opts.WatchInterval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-s.quit:
			return
		case <-t.C:
		}
		if now := stamp(); now != last {
			last = now
			s.log.Info("configuration changed; applying")
			s.reload()
			s.m.RecheckApprovals()
		}
	}
}

func (s *service) enqueue(fn func()) {
	s.nmu.Lock()
	if !s.nclosed {
		s.nqueue = append(s.nqueue, fn)
		s.ncond.Signal()
	}
	s.nmu.Unlock()
}

func (s *service) notifyLoop() {
	defer close(s.ndone)
	for {
		s.nmu.Lock()
		for len(s.nqueue) == 0 && !s.nclosed {
			s.ncond.Wait()
		}
		if len(s.nqueue) == 0 {
			s.nmu.Unlock()
			return
		}
		fn := s.nqueue[0]
		s.nqueue = s.nqueue[1:]
		s.nmu.Unlock()
		fn()
	}
}

// close cancels every run and closes every server, then flushes the
// notifications already queued.
func (s *service) close() {
	s.mu.Lock()
	s.closing = true
	for _, cancel := range s.runs {
		cancel()
	}
	s.mu.Unlock()
	done := make(chan struct{})
	go func() {
		s.m.Close()
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(DefaultShutdownGrace):
		s.log.Error("servers did not close in time", "grace", DefaultShutdownGrace)
	}
	if s.results != nil {
		s.results.Close()
	}
	s.nmu.Lock()
	s.nclosed = true
	s.ncond.Signal()
	s.nmu.Unlock()
	select {
	case <-s.ndone:
	case <-time.After(time.Second):
	}
}

// admit refuses everything but initialize until the UI has initialized,
// and everything but shutdown once shutting down. It runs in arrival order.
func (s *service) admit(method string) error {
	s.mu.Lock()
	init, closing := s.initialized, s.closing
	s.mu.Unlock()
	if closing && method != protocol.MethodShutdown {
		return protocol.Errorf(protocol.CodeShuttingDown, "the runtime is shutting down")
	}
	if !init && method != protocol.MethodInitialize && method != protocol.MethodShutdown {
		return protocol.Errorf(protocol.CodeNotInitialized, "%s before initialize: send initialize first", method)
	}
	return nil
}

// status returns a server's status, or CodeUnknownServer.
func (s *service) status(id string) (runtime.Status, error) {
	st, err := s.m.Get(id)
	if err != nil {
		return runtime.Status{}, protocol.NewError(protocol.CodeUnknownServer, protocol.ErrorData{Server: id}, "no server %q is configured", id)
	}
	return st, nil
}
