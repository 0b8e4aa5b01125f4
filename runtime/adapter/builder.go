package adapter

import (
	"errors"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A Builder adapts the tools of one server a part at a time, for instance
// each page of a tools/list as it arrives, so that adapting a large
// catalog overlaps with reading it. The catalog it ends with is the one
// [BuildCatalog] makes of all the parts in order.
type Builder struct {
	cat    *Catalog
	caller Caller
	filter func(name string) bool
	opts   Options
	seen   map[string]struct{}
	enc    schemaEncoder
	added  int // tools given to Add so far, for the problems' "tool #n"
}

// NewBuilder starts the catalog of server; filter and opts are as for
// [BuildCatalog].
func NewBuilder(server string, caller Caller, filter func(name string) bool, opts Options) (*Builder, error) {
	if server == "" {
		return nil, errors.New("adapter: build catalog: empty server id")
	}
	if caller == nil {
		return nil, fmt.Errorf("adapter: build catalog for server %q: nil caller", server)
	}
	return &Builder{
		cat:    &Catalog{Server: server},
		caller: caller,
		filter: filter,
		opts:   opts.withDefaults(),
		seen:   make(map[string]struct{}),
	}, nil
}

// Add adapts the next tools of the server's list. It must not be called
// after [Builder.Catalog].
func (b *Builder) Add(tools []*mcp.Tool) error {
	server := b.cat.Server
	// One block of Tool values for the part instead of one allocation per
	// tool.
	store := make([]Tool, 0, len(tools))
	if b.cat.Tools == nil {
		b.cat.Tools = make([]*Tool, 0, len(tools))
	}
	for i, def := range tools {
		i += b.added
		if def == nil || def.Name == "" {
			b.cat.Problems = append(b.cat.Problems, fmt.Sprintf("server %q: tool #%d has no name; skipped", server, i))
			continue
		}
		if b.filter != nil && !b.filter(def.Name) {
			continue
		}
		if !modelVisible(def) {
			continue // app-only (visibility.go)
		}
		if !SafeName(def.Name) {
			b.cat.Problems = append(b.cat.Problems, fmt.Sprintf("server %q: tool %q has control or invisible characters in its name; skipped", server, def.Name))
			continue
		}
		if _, dup := b.seen[def.Name]; dup {
			b.cat.Problems = append(b.cat.Problems, fmt.Sprintf("server %q: tool %q listed more than once; kept the first", server, def.Name))
			continue
		}
		b.seen[def.Name] = struct{}{}
		store = append(store, Tool{})
		t := &store[len(store)-1]
		if err := t.init(server, def, b.caller, b.opts, &b.enc); err != nil {
			return fmt.Errorf("adapter: build catalog: %w", err)
		}
		b.cat.Tools = append(b.cat.Tools, t)
	}
	b.added += len(tools)
	return nil
}

// Catalog returns the catalog of the tools added so far.
func (b *Builder) Catalog() *Catalog { return b.cat }
