package runtime

import (
	"context"
	"fmt"
	"time"

	"github.com/mcp-host/mcp-host/runtime/config"
	"github.com/mcp-host/mcp-host/runtime/listcache"
	"github.com/mcp-host/mcp-host/runtime/permission"
	"github.com/mcp-host/mcp-host/runtime/session"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// lazyState is what a server that starts on first use needs (start mode
// "lazy" with [ManagerOptions.Catalogs] set): its kept catalog, whether
// its goroutine is parked waiting for a use, and what keeps it awake.
// Every field but on, key and wakec is guarded by server.mu.
type lazyState struct {
	on    bool          // lazy start applies to this server
	now   bool          // start at once all the same (startNow)
	key   string        // its key in ManagerOptions.Catalogs
	wakec chan struct{} // a use wakes the parked goroutine

	cat      *listcache.Catalog // the last catalog, kept or listed; nil: none
	parked   bool               // the goroutine waits for a use (park)
	starts   int                // connect attempts begun
	inflight int                // tool calls under way
	subs     int                // resource subscriptions of the live session
	lastUse  time.Time          // when the last call or request ended
}

// initLazy decides whether sv starts on first use and loads its kept
// catalog.
func (sv *server) initLazy() {
	c := sv.m.opts.Catalogs
	e := &sv.entry
	sv.lazy.wakec = make(chan struct{}, 1)
	if c == nil || e.Blocked != nil || e.Err != nil || e.Config.StartMode() != config.StartLazy {
		return
	}
	sv.lazy.on, sv.lazy.key = true, CatalogKey(e.ID, &e.Config)
	if cat, ok := c.Load(sv.lazy.key); ok {
		sv.lazy.cat = cat
	}
}

// startNow makes a server that has not started yet connect at once
// rather than wait idle for a use: a person turned it on.
func (sv *server) startNow() {
	sv.mu.Lock()
	defer sv.mu.Unlock()
	sv.lazy.now = true
	if sv.status.State == StateIdle {
		sv.status.State, sv.lazy.parked = StateConnecting, false
	}
}

// parkFirst reports whether the server waits for a use before its first
// connect: it is lazy and has a kept catalog to offer meanwhile.
func (sv *server) parkFirst() bool {
	sv.mu.Lock()
	defer sv.mu.Unlock()
	return sv.lazy.on && sv.lazy.cat != nil
}

// park waits, in state, until the server is used (wake), reconnected
// (kick) or stopped (false). A lazy server with a kept catalog parks
// before its first start, after an idle stop, and after a failed start
// or a lost session, instead of retrying on its own: its next use starts
// it again.
func (sv *server) park(state State) bool {
	sv.update(func(st *Status) {
		sv.lazy.parked = true
		st.State, st.NextRetryAt = state, time.Time{}
		if state == StateIdle {
			st.LastError, st.Attempts = "", 0
		}
	})
	defer func() {
		sv.mu.Lock()
		sv.lazy.parked = false
		sv.mu.Unlock()
	}()
	select {
	case <-sv.ctx.Done():
		return false
	case <-sv.kick:
	case <-sv.lazy.wakec:
	}
	return true
}

// wake starts a parked server.
func (sv *server) wake() {
	select {
	case sv.lazy.wakec <- struct{}{}:
	default:
	}
}

// use counts a call or request under way (delta 1) or ended (-1): an
// idle stop waits until none is.
func (sv *server) use(delta int) {
	sv.mu.Lock()
	sv.lazy.inflight += delta
	sv.lazy.lastUse = time.Now()
	sv.mu.Unlock()
}

// ready returns the server's live session, starting a parked server and
// waiting for it within ctx. An eager server, or one in a state a use
// cannot change (auth_required, blocked …), answers at once with why it
// has no session; a start that fails answers with its error.
func (sv *server) ready(ctx context.Context) (*session.Session, error) {
	woke, since := false, 0
	for {
		changed := sv.m.changedChan()
		sv.mu.Lock()
		s, parked, state, starts := sv.sess, sv.lazy.parked, sv.status.State, sv.lazy.starts
		if s != nil {
			sv.lazy.lastUse = time.Now()
		}
		sv.mu.Unlock()
		switch {
		case s != nil:
			return s, nil
		case woke && starts > since && state != StateConnecting:
			return sv.liveSession() // the start failed: its error
		case parked && !woke:
			woke, since = true, starts
			sv.wake()
		case state == StateConnecting && (woke || sv.lazy.on):
		case !woke:
			return sv.liveSession()
		}
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("server %q did not start in time: %w", sv.entry.ID, ctx.Err())
		case <-sv.ctx.Done():
			return sv.liveSession()
		case <-changed:
		}
	}
}

// keepCatalog makes the listed tools of session s the server's catalog,
// in memory and in ManagerOptions.Catalogs.
func (sv *server) keepCatalog(s *session.Session, tools []*mcp.Tool) {
	if !sv.lazy.on {
		return
	}
	info := s.Info()
	cat := &listcache.Catalog{ServerName: info.ServerName, ServerVersion: info.ServerVersion, Instructions: info.Instructions, SavedAt: time.Now(), Tools: tools}
	sv.mu.Lock()
	sv.lazy.cat = cat
	sv.mu.Unlock()
	sv.m.opts.Catalogs.Store(sv.lazy.key, cat)
}

// rekeepCatalog keeps tools, a server's new list after list_changed, in
// place of its catalog.
func (sv *server) rekeepCatalog(tools []*mcp.Tool) {
	if !sv.lazy.on {
		return
	}
	sv.mu.Lock()
	var cat listcache.Catalog
	if sv.lazy.cat != nil {
		cat = *sv.lazy.cat
	}
	cat.Tools, cat.SavedAt = tools, time.Now()
	sv.lazy.cat = &cat
	sv.mu.Unlock()
	sv.m.opts.Catalogs.Store(sv.lazy.key, &cat)
}

// cachedCatalog is the kept catalog a lazy server without a session
// offers: nil when it has a session, is not lazy, has none, or is in a
// state a use cannot change.
func (sv *server) cachedCatalog() *listcache.Catalog {
	sv.mu.Lock()
	defer sv.mu.Unlock()
	if sv.sess != nil || !sv.lazy.on || sv.lazy.cat == nil {
		return nil
	}
	switch sv.status.State {
	case StateIdle, StateConnecting:
		return sv.lazy.cat
	case StateError:
		if sv.lazy.parked {
			return sv.lazy.cat // a use tries again
		}
	}
	return nil
}

// offered is the list a run's catalog takes from the server in state:
// its live tools when ready, its kept ones (cached) while a lazy server
// is stopped, else nil.
func (sv *server) offered(state State) (defs []*mcp.Tool, cached bool) {
	if state == StateReady {
		if s, err := sv.liveSession(); err == nil {
			return s.Tools(), false
		}
	}
	if cat := sv.cachedCatalog(); cat != nil {
		return cat.Tools, true
	}
	return nil, false
}

// idleTimer returns a timer for the idle stop of a lazy server, nil when
// it never stops.
func (sv *server) idleTimer() *time.Timer {
	d := sv.entry.Config.IdleTimeout()
	if !sv.lazy.on || d <= 0 {
		return nil
	}
	return time.NewTimer(d)
}

// idleLeft is how long the server must still be unused before its idle
// stop; 0 means now. A call under way or a subscription keeps it awake.
func (sv *server) idleLeft() time.Duration {
	sv.mu.Lock()
	defer sv.mu.Unlock()
	return sv.idleLeftLocked()
}

// idleLeftLocked is idleLeft with sv.mu held.
//
// lastUse is time.Now of this process, never stored: time.Since reads the
// monotonic clock, so setting the clock back or forward neither stops a
// server early nor keeps one running forever. That clock does not count a
// suspend (Linux): a server unused for 4 of its 5 idle minutes before the
// machine slept stops a minute after it wakes, as does the idle timer.
func (sv *server) idleLeftLocked() time.Duration {
	d := sv.entry.Config.IdleTimeout()
	if sv.lazy.inflight > 0 || sv.lazy.subs > 0 {
		return d
	}
	return max(0, d-time.Since(sv.lazy.lastUse))
}

// idleStop detaches the session of a server unused for its idle timeout
// and makes it idle, in one change: a use from now on starts it again
// rather than meet a closing session. It reports false, with the time
// still to wait, when a use came meanwhile.
func (sv *server) idleStop() (bool, time.Duration) {
	if left := sv.idleLeft(); left > 0 {
		return false, left
	}
	var left time.Duration
	sv.update(func(st *Status) {
		if left = sv.idleLeftLocked(); left > 0 {
			return
		}
		sv.sess, sv.gone = nil, nil
		st.State, st.LastError, st.Attempts, st.Tools = StateIdle, "", 0, 0
		sv.lazy.parked = true
	})
	return left == 0, left
}

// timerC is t's channel, nil for no timer.
func timerC(t *time.Timer) <-chan time.Time {
	if t == nil {
		return nil
	}
	return t.C
}

// cachedDefKey carries, in a call's context, the kept definition a
// catalog offered the tool with (cachedCaller).
type cachedDefKey struct{}

// cachedCaller calls the tools of a catalog offered from the cache: the
// call carries the definition the model and the permission gate saw, so
// that a tool that changed or went away while the server was stopped is
// not called under its old definition.
type cachedCaller struct {
	serverCaller
	defs map[string]*mcp.Tool
}

func newCachedCaller(m *Manager, id string, defs []*mcp.Tool) cachedCaller {
	c := cachedCaller{serverCaller{m, id}, make(map[string]*mcp.Tool, len(defs))}
	for _, d := range defs {
		if d != nil {
			c.defs[d.Name] = d
		}
	}
	return c
}

func (c cachedCaller) CallTool(ctx context.Context, name string, args any) (*mcp.CallToolResult, error) {
	if def := c.defs[name]; def != nil {
		ctx = context.WithValue(ctx, cachedDefKey{}, def)
	}
	return c.serverCaller.CallTool(ctx, name, args)
}

// checkCachedDef refuses a call made from a kept definition that the
// live server no longer offers, or offers changed.
func checkCachedDef(ctx context.Context, id, tool string, s *session.Session) error {
	def, _ := ctx.Value(cachedDefKey{}).(*mcp.Tool)
	if def == nil {
		return nil
	}
	live := findTool(s.Tools(), tool)
	if live == nil {
		return fmt.Errorf("server %q no longer offers tool %q: its tools changed while it was stopped (the next model turn gets its current tools)", id, tool)
	}
	if live != def && permission.Digest(live) != permission.Digest(def) {
		return fmt.Errorf("server %q changed tool %q while it was stopped; it was not called: the next model turn offers its new definition, and the permission gate asks again", id, tool)
	}
	return nil
}

func findTool(tools []*mcp.Tool, name string) *mcp.Tool {
	for _, t := range tools {
		if t != nil && t.Name == name {
			return t
		}
	}
	return nil
}

// Wake starts a lazy server that is stopped and waits, within ctx, until
// it is ready or fails to start; for any other server it reports why it
// has no session, if it has none. A UI asking for a server's details,
// prompts or resources wakes it this way.
func (m *Manager) Wake(ctx context.Context, id string) error {
	sv, err := m.server(id)
	if err != nil {
		return err
	}
	sv.use(1)
	defer sv.use(-1)
	_, err = sv.ready(ctx)
	return err
}

// Subscribed counts a resource subscription made (delta 1) or ended (-1)
// on the server's live session: a lazy server is not stopped for being
// idle while a UI watches one of its resources.
func (m *Manager) Subscribed(id string, delta int) {
	sv, err := m.server(id)
	if err != nil {
		return
	}
	sv.mu.Lock()
	sv.lazy.subs = max(0, sv.lazy.subs+delta)
	sv.lazy.lastUse = time.Now()
	sv.mu.Unlock()
}

// changedChan is the channel the next state change closes.
func (m *Manager) changedChan() <-chan struct{} {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.changed
}
