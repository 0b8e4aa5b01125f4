package agentrun

import (
	"encoding/json"
	"hash/maphash"
	"sync"

	"github.com/mcp-host/mcp-host/core"
	"github.com/mcp-host/mcp-host/core/toolsearch"
	"github.com/mcp-host/mcp-host/runtime/adapter"
)

// Defaults of [ToolSearchOptions].
const (
	// DefaultSearchMaxTools is the most MCP tools a run is offered
	// directly; a larger catalog is searched.
	DefaultSearchMaxTools = 128
	// DefaultSearchMaxBytes is the most bytes of names, descriptions and
	// input schemas a run is offered directly; a larger catalog is
	// searched.
	DefaultSearchMaxBytes = 64 << 10
	// DefaultSearchDefsBytes bounds the tool definitions (as JSON) handed
	// to the model in search mode: the search tool, the local tools and
	// the tools found, most recently found first, while they fit.
	DefaultSearchDefsBytes = 16 << 10
)

// SearchToolName is the public name of the search tool a run gets in
// search mode. No adapted MCP tool can have it: their names end in a hash.
const SearchToolName = "mcp_tool_search"

// ToolSearchOptions say when a run's MCP catalog is too large to hand to
// the model whole: above MaxTools tools or MaxBytes bytes of names,
// descriptions and input schemas, the model gets a search tool instead,
// and the tools it finds. The zero value uses the defaults.
type ToolSearchOptions struct {
	// MaxTools is the tool budget; 0 means DefaultSearchMaxTools.
	MaxTools int
	// MaxBytes is the size budget; 0 means DefaultSearchMaxBytes.
	MaxBytes int
	// MaxDefsBytes bounds the definitions handed to the model in search
	// mode; 0 means DefaultSearchDefsBytes.
	MaxDefsBytes int
}

func (o ToolSearchOptions) withDefaults() ToolSearchOptions {
	if o.MaxTools <= 0 {
		o.MaxTools = DefaultSearchMaxTools
	}
	if o.MaxBytes <= 0 {
		o.MaxBytes = DefaultSearchMaxBytes
	}
	if o.MaxDefsBytes <= 0 {
		o.MaxDefsBytes = DefaultSearchDefsBytes
	}
	return o
}

// ToolSearchInfo describes a run in search mode: the catalog that exceeded
// the budget, and the budget.
type ToolSearchInfo struct {
	// Tool is the search tool's public name ([SearchToolName]).
	Tool string
	// Tools and Bytes measure the catalog behind the search tool: its MCP
	// tools, and the bytes of their names, descriptions and schemas.
	Tools, Bytes int
	// MaxTools and MaxBytes are the budget it exceeded.
	MaxTools, MaxBytes int
}

// toolSearch is an agent's search state: its budget, and the index of the
// last catalog that exceeded it, kept until the catalog changes.
type toolSearch struct {
	mu   sync.Mutex
	opts ToolSearchOptions
	// key identifies the indexed catalog; ix is its index.
	key uint64
	ix  *toolsearch.Index
	// builds counts index builds, for tests.
	builds int
}

// seed makes catalog keys comparable for the life of the process.
var seed = maphash.MakeSeed()

// SetToolSearch changes the budget of the runs started from now on (a
// config reload calls it).
func (a *Agent) SetToolSearch(o ToolSearchOptions) {
	a.ts.mu.Lock()
	a.ts.opts = o
	a.ts.mu.Unlock()
}

// ToolSearch reports whether a run offered cat would be in search mode,
// and how large the catalog is; nil means it is offered whole.
func (a *Agent) ToolSearch(cat []*adapter.Tool) *ToolSearchInfo {
	a.ts.mu.Lock()
	o := a.ts.opts.withDefaults()
	a.ts.mu.Unlock()
	size := 0
	for _, t := range cat {
		size += len(t.Name()) + len(t.Description()) + len(t.Schema())
	}
	if len(cat) <= o.MaxTools && size <= o.MaxBytes {
		return nil
	}
	return &ToolSearchInfo{Tool: SearchToolName, Tools: len(cat), Bytes: size, MaxTools: o.MaxTools, MaxBytes: o.MaxBytes}
}

// index returns the index of cat: the cached one when the catalog has not
// changed since it was built (same tools, names, descriptions and schemas,
// in the same order), else a new one, which replaces it.
func (a *Agent) index(cat []*adapter.Tool) *toolsearch.Index {
	// Each field is hashed whole (no buffering) and folded into the key.
	key := uint64(len(cat))
	fold := func(x uint64) { key = (key^x)*0x100000001b3 + 0x9e3779b97f4a7c15 }
	for _, t := range cat {
		fold(maphash.String(seed, t.Name()))
		fold(maphash.String(seed, t.Title()))
		fold(maphash.String(seed, t.Description()))
		fold(maphash.Bytes(seed, t.Schema()))
	}
	a.ts.mu.Lock()
	defer a.ts.mu.Unlock()
	if a.ts.ix != nil && a.ts.key == key && a.ts.ix.Len() == len(cat) {
		return a.ts.ix
	}
	docs := make([]toolsearch.Doc, len(cat))
	for i, t := range cat {
		docs[i] = toolsearch.Doc{
			Names:       []string{t.Name(), t.ToolName(), t.Server() + "/" + t.ToolName()},
			Title:       t.Title(),
			Description: t.Description(),
			Params:      paramNames(t.Schema()),
		}
	}
	a.ts.key, a.ts.ix = key, toolsearch.New(docs)
	a.ts.builds++
	return a.ts.ix
}

// paramNames returns the property names of an object schema.
func paramNames(schema json.RawMessage) []string {
	var s struct {
		Properties map[string]json.RawMessage `json:"properties"`
	}
	if json.Unmarshal(schema, &s) != nil {
		return nil
	}
	out := make([]string, 0, len(s.Properties))
	for k := range s.Properties {
		out = append(out, k)
	}
	return out
}

// searchMode prepares a run over snap and local in search mode, when the
// catalog exceeds the budget: the core gets the search tool first, the
// local tools, and every catalog tool (each still checked by the gate when
// called), while the model is offered only the search tool, the local
// tools and the tools it has found. Below the budget it returns tools and
// p unchanged and a nil info.
func (a *Agent) searchMode(snap *adapter.Snapshot, tools []core.Tool, p core.Provider) ([]core.Tool, core.Provider, *ToolSearchInfo) {
	cat := snap.Tools()
	info := a.ToolSearch(cat)
	if info == nil || p == nil {
		return tools, p, nil // a nil provider is the core's error to report
	}
	a.ts.mu.Lock()
	o := a.ts.opts.withDefaults()
	a.ts.mu.Unlock()
	r := &searchRun{
		ix:      a.index(cat),
		cat:     cat,
		snap:    snap,
		maxDefs: o.MaxDefsBytes,
		found:   map[string]int{},
	}
	r.tool = &searchTool{run: r, catalog: len(cat)}
	local := tools[len(cat):]
	r.fixed = append(r.fixed, core.DefOf(r.tool))
	for _, t := range local {
		r.fixed = append(r.fixed, core.DefOf(t))
	}
	all := make([]core.Tool, 0, 1+len(tools))
	all = append(all, r.tool)
	all = append(all, local...)
	all = append(all, tools[:len(cat)]...)
	return all, &searchProvider{next: p, run: r}, info
}
