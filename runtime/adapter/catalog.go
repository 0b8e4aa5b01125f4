package adapter

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"strconv"

	"github.com/mcp-host/mcp-host/core"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A Catalog is the adapted tools of one server.
type Catalog struct {
	// Server is the server id.
	Server string
	// Tools are the adapters, in the server's order, after the filter.
	Tools []*Tool
	// Problems lists tools that were skipped (no name, listed twice), each
	// naming the server and the tool.
	Problems []string
}

// BuildCatalog adapts the tools of server. filter, when not nil, keeps only
// the tools whose original name it accepts (include_tools / exclude_tools).
// Unusable entries are skipped and reported in [Catalog.Problems]; only a
// missing server id or caller is an error. Tools that MCP Apps marks for
// the app alone are left out (visibility.go).
func BuildCatalog(server string, tools []*mcp.Tool, caller Caller, filter func(name string) bool, opts Options) (*Catalog, error) {
	if server == "" {
		return nil, errors.New("adapter: build catalog: empty server id")
	}
	if caller == nil {
		return nil, fmt.Errorf("adapter: build catalog for server %q: nil caller", server)
	}
	opts = opts.withDefaults()
	cat := &Catalog{Server: server}
	// One block of Tool values and one of pointers: two allocations for the
	// whole server instead of one per tool.
	store := make([]Tool, 0, len(tools))
	cat.Tools = make([]*Tool, 0, len(tools))
	seen := make(map[string]struct{}, len(tools))
	var enc schemaEncoder
	for i, def := range tools {
		if def == nil || def.Name == "" {
			cat.Problems = append(cat.Problems, fmt.Sprintf("server %q: tool #%d has no name; skipped", server, i))
			continue
		}
		if filter != nil && !filter(def.Name) {
			continue
		}
		if !modelVisible(def) {
			continue // app-only (visibility.go)
		}
		if !SafeName(def.Name) {
			cat.Problems = append(cat.Problems, fmt.Sprintf("server %q: tool %q has control or invisible characters in its name; skipped", server, def.Name))
			continue
		}
		if _, dup := seen[def.Name]; dup {
			cat.Problems = append(cat.Problems, fmt.Sprintf("server %q: tool %q listed more than once; kept the first", server, def.Name))
			continue
		}
		seen[def.Name] = struct{}{}
		store = append(store, Tool{})
		t := &store[len(store)-1]
		if err := t.init(server, def, caller, opts, &enc); err != nil {
			return nil, fmt.Errorf("adapter: build catalog: %w", err)
		}
		cat.Tools = append(cat.Tools, t)
	}
	return cat, nil
}

// Origin is where a public name leads: a server's tool, or a local tool
// when Server is empty.
type Origin struct {
	Server string
	Tool   string
}

// A Table maps public names back to their origins. Names are unique across
// servers and local tools; see [NewSnapshot] for how collisions resolve.
type Table struct {
	byName map[string]Origin
}

// Lookup returns the origin of a public name.
func (t *Table) Lookup(name string) (Origin, bool) {
	o, ok := t.byName[name]
	return o, ok
}

// Len returns the number of names in the table.
func (t *Table) Len() int { return len(t.byName) }

// A Snapshot is the tools of several servers merged for one run: a run
// keeps its snapshot while servers change their lists, which take effect in
// the next snapshot.
type Snapshot struct {
	tools  []*Tool
	byName map[string]*Tool
	table  Table
	// Renamed lists tools that got an alternative name because of a
	// collision.
	Renamed []string
}

// NewSnapshot merges catalogs into one set of uniquely named tools. local
// names the run's other tools: they keep their names, and an MCP tool whose
// public name equals one of them, or another MCP tool's, is renamed. The
// resolution does not depend on the order of catalogs or tools: among the
// tools sharing a name, the one first by (server id, tool name) keeps it and
// the others get "mcp_<server>_<tool>_<hash8 of server:tool#k>" for the
// smallest k that is free. Catalogs with the same server id are a mistake;
// only the first is used.
func NewSnapshot(catalogs []*Catalog, local []string) *Snapshot {
	n := 0
	for _, c := range catalogs {
		if c != nil {
			n += len(c.Tools)
		}
	}
	s := &Snapshot{
		tools:  make([]*Tool, 0, n),
		byName: make(map[string]*Tool, n),
		table:  Table{byName: make(map[string]Origin, n+len(local))},
	}
	taken := make(map[string]struct{}, len(local))
	for _, name := range local {
		taken[name] = struct{}{}
		s.table.byName[name] = Origin{Tool: name}
	}
	servers := make(map[string]struct{}, len(catalogs))
	var clash []*Tool
	count := make(map[string]int, n)
	for _, c := range catalogs {
		if c == nil {
			continue
		}
		if _, dup := servers[c.Server]; dup {
			continue
		}
		servers[c.Server] = struct{}{}
		for _, t := range c.Tools {
			count[t.name]++
			s.tools = append(s.tools, t)
		}
	}
	for _, t := range s.tools {
		_, isLocal := taken[t.name]
		if isLocal || count[t.name] > 1 {
			clash = append(clash, t)
		}
	}
	// Tools whose names are unique keep them.
	for _, t := range s.tools {
		if _, isLocal := taken[t.name]; !isLocal && count[t.name] == 1 {
			s.byName[t.name] = t
			s.table.byName[t.name] = Origin{Server: t.server, Tool: t.def.Name}
		}
	}
	if len(clash) > 0 {
		slices.SortFunc(clash, func(a, b *Tool) int {
			return cmp.Or(cmp.Compare(a.server, b.server), cmp.Compare(a.def.Name, b.def.Name))
		})
		renamed := make(map[*Tool]*Tool, len(clash))
		for _, t := range clash {
			name := t.name
			for k := 1; s.nameTaken(name); k++ {
				name = publicName(t.server, t.def.Name, "#"+strconv.Itoa(k))
			}
			nt := t
			if name != t.name {
				nt = t.withName(name)
				s.Renamed = append(s.Renamed, fmt.Sprintf("server %q tool %q: %s is taken; named %s", t.server, t.def.Name, t.name, name))
			}
			renamed[t] = nt
			s.byName[name] = nt
			s.table.byName[name] = Origin{Server: t.server, Tool: t.def.Name}
		}
		for i, t := range s.tools {
			if nt, ok := renamed[t]; ok {
				s.tools[i] = nt
			}
		}
	}
	return s
}

func (s *Snapshot) nameTaken(name string) bool {
	_, ok := s.table.byName[name]
	return ok
}

// Tools returns the snapshot's tools in catalog order. Callers must not
// modify the slice.
func (s *Snapshot) Tools() []*Tool { return s.tools }

// CoreTools returns the tools as core tools.
func (s *Snapshot) CoreTools() []core.Tool {
	out := make([]core.Tool, len(s.tools))
	for i, t := range s.tools {
		out[i] = t
	}
	return out
}

// Tool returns the tool with the given public name.
func (s *Snapshot) Tool(name string) (*Tool, bool) {
	t, ok := s.byName[name]
	return t, ok
}

// Table returns the reverse table of the snapshot's names, local tools
// included.
func (s *Snapshot) Table() *Table { return &s.table }
