package agentrun

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/mcp-host/mcp-host/core"
	"github.com/mcp-host/mcp-host/core/toolsearch"
	"github.com/mcp-host/mcp-host/runtime/adapter"
	"github.com/mcp-host/mcp-host/termsafe"
)

// Bounds of one search's answer.
const (
	// searchDefaultResults and searchMaxResults bound the tools one
	// search returns.
	searchDefaultResults = 5
	searchMaxResults     = 10
	// searchMaxDesc is the most runes of a description in an answer.
	searchMaxDesc = 1000
	// searchMaxSchema is the largest input schema shown in an answer; a
	// larger one is in the tool's definition only.
	searchMaxSchema = 8 << 10
)

// searchRun is one run in search mode: the catalog, its index, and the
// tools the model has found so far.
type searchRun struct {
	ix      *toolsearch.Index
	cat     []*adapter.Tool // in index order
	snap    *adapter.Snapshot
	tool    *searchTool
	maxDefs int
	// fixed are the definitions always offered: the search tool's and
	// the local tools'.
	fixed []core.ToolDef

	mu    sync.Mutex
	seq   int
	found map[string]int // public name -> when last found
	sizes map[string]int // public name -> bytes of its definition as JSON
}

// searchTool is the tool the model searches the catalog with. It only
// reads the local index: no server is reached, so it needs no confirm.
type searchTool struct {
	run     *searchRun
	catalog int
}

var _ core.Tool = (*searchTool)(nil)

// Name returns [SearchToolName].
func (t *searchTool) Name() string { return SearchToolName }

// Description tells the model what the search is for.
func (t *searchTool) Description() string {
	return fmt.Sprintf("Find tools among the %d tools of the connected MCP servers, which are too many to list here. "+
		"Give keywords: what you want to do, a tool or parameter name. Answers the best matches with their input schemas; "+
		"the tools found are offered to you from then on, for the rest of this turn. Search again for other tools.", t.catalog)
}

// Schema is the search tool's input schema.
func (t *searchTool) Schema() json.RawMessage {
	return json.RawMessage(fmt.Sprintf(`{"type":"object","properties":{"query":{"type":"string","description":"keywords"},`+
		`"limit":{"type":"integer","minimum":1,"maximum":%d,"description":"most tools to return (default %d)"}},"required":["query"]}`,
		searchMaxResults, searchDefaultResults))
}

// searchHit is one tool in a search's answer.
type searchHit struct {
	// Name is the public name to call.
	Name        string          `json:"name"`
	Server      string          `json:"server"`
	Tool        string          `json:"tool"`
	Title       string          `json:"title,omitempty"`
	Description string          `json:"description"`
	InputSchema json.RawMessage `json:"input_schema,omitempty"`
	// SchemaNote says why input_schema is left out.
	SchemaNote string `json:"schema_note,omitempty"`
}

// Call searches the index and offers the tools found from the next model
// call on.
func (t *searchTool) Call(_ context.Context, args json.RawMessage) (*core.Result, error) {
	var in struct {
		Query string `json:"query"`
		Limit int    `json:"limit"`
	}
	if err := json.Unmarshal(args, &in); err != nil || strings.TrimSpace(in.Query) == "" {
		return core.ErrorResult(`Give "query": keywords for the tools you need, for example {"query": "create issue"}.`), nil
	}
	limit := in.Limit
	if limit <= 0 {
		limit = searchDefaultResults
	}
	limit = min(limit, searchMaxResults)
	hits := t.run.ix.Search(in.Query, limit)
	out := struct {
		Tools []searchHit `json:"tools"`
	}{Tools: make([]searchHit, 0, len(hits))}
	names := make([]string, 0, len(hits))
	for _, h := range hits {
		if h.Doc < 0 || h.Doc >= len(t.run.cat) {
			continue // cannot happen: the index is the catalog's
		}
		c := t.run.cat[h.Doc]
		hit := searchHit{Name: c.Name(), Server: c.Server(), Tool: c.ToolName(), Title: c.Title(),
			Description: termsafe.TextMax(c.Description(), searchMaxDesc), InputSchema: c.Schema()}
		if len(hit.InputSchema) > searchMaxSchema {
			hit.InputSchema = nil
			hit.SchemaNote = fmt.Sprintf("the schema is %d bytes: it is in the tool's definition", len(c.Schema()))
		}
		out.Tools = append(out.Tools, hit)
		names = append(names, c.Name())
	}
	t.run.markFound(names)
	body, err := json.Marshal(out)
	if err != nil {
		return nil, fmt.Errorf("tool search: %w", err)
	}
	if len(names) == 0 {
		return &core.Result{Content: []core.Content{{Type: core.ContentText,
			Text: fmt.Sprintf("No tool matches %q. Try other words: what the tool does, or a name of one of its parameters.", in.Query)}},
			Structured: body}, nil
	}
	text := fmt.Sprintf("Found %d tools; they are now offered to you, call one by its name:\n%s", len(names), body)
	return &core.Result{Content: []core.Content{{Type: core.ContentText, Text: text}}, Structured: body}, nil
}

// markFound records names as found now, the first of them most recently.
func (r *searchRun) markFound(names []string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for i := len(names) - 1; i >= 0; i-- {
		r.seq++
		r.found[names[i]] = r.seq
	}
}

// defs returns the definitions to offer: the fixed ones, then the tools
// found, most recently found first, while the whole stays within maxDefs
// bytes of JSON. A found tool that does not fit is still callable (the
// search answer showed its schema); it is offered again once found again.
func (r *searchRun) defs() []core.ToolDef {
	out := slices.Clone(r.fixed)
	size := 2 // [ ]
	for _, d := range out {
		size += defSize(d) + 1
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	names := make([]string, 0, len(r.found))
	for n := range r.found {
		names = append(names, n)
	}
	slices.SortFunc(names, func(a, b string) int { return r.found[b] - r.found[a] })
	if r.sizes == nil {
		r.sizes = map[string]int{}
	}
	for _, n := range names {
		t, ok := r.snap.Tool(n)
		if !ok {
			continue
		}
		d := core.DefOf(t)
		sz, ok := r.sizes[n]
		if !ok {
			sz = defSize(d)
			r.sizes[n] = sz
		}
		if size+sz+1 > r.maxDefs {
			continue // a smaller one may still fit
		}
		size += sz + 1
		out = append(out, d)
	}
	return out
}

// defSize is the size of d as JSON.
func defSize(d core.ToolDef) int {
	b, err := json.Marshal(d)
	if err != nil {
		return 1 << 30
	}
	return len(b)
}

// searchProvider hands the model the run's offered definitions in place of
// the whole catalog, which the core holds so that every tool stays
// callable (through the gate) by its public name.
type searchProvider struct {
	next core.Provider
	run  *searchRun
}

// Stream calls the model with the offered definitions.
func (p *searchProvider) Stream(ctx context.Context, req core.Request, onDelta func(core.Delta)) (*core.Response, error) {
	req.Tools = p.run.defs()
	return p.next.Stream(ctx, req, onDelta)
}
