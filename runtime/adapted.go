package runtime

import (
	"sync"

	"github.com/mcp-host/mcp-host/runtime/adapter"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// adapted keeps one server's adapted catalog, so that a run does not adapt
// every tool again (a catalog of 10,000 tools takes tens of milliseconds
// to adapt): [Manager.Catalog] reuses the last catalog it built while the
// server's tool list is the same list (the same tools, in order), and
// builds a new one when it is not. With [ManagerOptions.Adapter] set, the
// catalog is built while the server's tools/list pages arrive, each page
// while the next is on its way, and the first run finds it ready.
type adapted struct {
	mu      sync.Mutex
	pending *adaptation // fed by the pages of the listing under way
	done    *adaptation // the last catalog handed out
}

// An adaptation is the catalog of one tool list.
type adaptation struct {
	opts adapter.Options
	defs []*mcp.Tool // the list it adapts, before include/exclude filters
	b    *adapter.Builder
	err  error
	// cached marks a catalog of kept definitions (cachedCaller).
	cached bool
}

// matches reports whether a adapts the list defs with opts.
func (a *adaptation) matches(defs []*mcp.Tool, cached bool, opts adapter.Options) bool {
	if a == nil || a.opts != opts || a.cached != cached || len(a.defs) != len(defs) {
		return false
	}
	for i, d := range defs {
		if a.defs[i] != d {
			return false
		}
	}
	return true
}

// adaptPage adapts the tools of one page of a listing
// (session.Options.OnToolsPage).
func (sv *server) adaptPage(first bool, tools []*mcp.Tool) {
	opts := sv.m.opts.Adapter
	if opts == nil {
		return
	}
	a := &sv.adapted
	a.mu.Lock()
	defer a.mu.Unlock()
	if first || a.pending == nil {
		a.pending = sv.newAdaptation(sv.adapterOptions(*opts), serverCaller{sv.m, sv.entry.ID})
	}
	p := a.pending
	if p.err == nil {
		p.err = p.b.Add(tools)
	}
	p.defs = append(p.defs, tools...)
}

// adapterOptions are opts with the server's own output budget
// ("max_output_tokens"), within the byte ceiling.
func (sv *server) adapterOptions(opts adapter.Options) adapter.Options {
	if n := sv.entry.Config.MaxOutputTokens; n > 0 {
		opts.MaxOutputTokens = n
	}
	return opts
}

// newAdaptation starts the catalog of the server's tools with opts, its
// tools calling through caller.
func (sv *server) newAdaptation(opts adapter.Options, caller adapter.Caller) *adaptation {
	b, err := adapter.NewBuilder(sv.entry.ID, caller, sv.filterFunc(), opts)
	return &adaptation{opts: opts, b: b, err: err}
}

// catalog returns the adapted catalog of defs, the server's current list
// (cached: its kept catalog, while it is stopped).
func (sv *server) catalog(defs []*mcp.Tool, cached bool, opts adapter.Options) (*adapter.Catalog, error) {
	opts = sv.adapterOptions(opts)
	a := &sv.adapted
	a.mu.Lock()
	defer a.mu.Unlock()
	switch {
	case a.pending.matches(defs, cached, opts):
		a.done, a.pending = a.pending, nil
	case a.done.matches(defs, cached, opts):
	default:
		var caller adapter.Caller = serverCaller{sv.m, sv.entry.ID}
		if cached {
			caller = newCachedCaller(sv.m, sv.entry.ID, defs)
		}
		n := sv.newAdaptation(opts, caller)
		if n.err == nil {
			n.err = n.b.Add(defs)
		}
		n.defs, n.cached = defs, cached
		a.done = n
	}
	if a.done.err != nil {
		return nil, a.done.err
	}
	return a.done.b.Catalog(), nil
}
