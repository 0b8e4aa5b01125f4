package adapter

import (
	"cmp"
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
// the app alone are left out (visibility.go). It is a [Builder] given every
// tool at once.
func BuildCatalog(server string, tools []*mcp.Tool, caller Caller, filter func(name string) bool, opts Options) (*Catalog, error) {
	b, err := NewBuilder(server, caller, filter, opts)
	if err != nil {
		return nil, err
	}
	if err := b.Add(tools); err != nil {
		return nil, err
	}
	return b.Catalog(), nil
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
	tools map[string]*Tool    // the snapshot's MCP tools by public name
	local map[string]struct{} // the run's other tools' names
}

// Lookup returns the origin of a public name.
func (t *Table) Lookup(name string) (Origin, bool) {
	if tool, ok := t.tools[name]; ok {
		return Origin{Server: tool.server, Tool: tool.def.Name}, true
	}
	if _, ok := t.local[name]; ok {
		return Origin{Tool: name}, true
	}
	return Origin{}, false
}

// Len returns the number of names in the table.
func (t *Table) Len() int { return len(t.tools) + len(t.local) }

// taken reports whether name is in the table.
func (t *Table) taken(name string) bool {
	_, mcpName := t.tools[name]
	_, localName := t.local[name]
	return mcpName || localName
}

// A Snapshot is the tools of several servers merged for one run: a run
// keeps its snapshot while servers change their lists, which take effect in
// the next snapshot.
type Snapshot struct {
	tools []*Tool
	table Table // its tools map is the snapshot's by public name
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
	// One map of every name: a catalog of 10,000 tools is built for each
	// run, and each map of that size is another half megabyte to fill.
	s := &Snapshot{
		tools: make([]*Tool, 0, n),
		table: Table{tools: make(map[string]*Tool, n), local: make(map[string]struct{}, len(local))},
	}
	byName := s.table.tools
	for _, name := range local {
		s.table.local[name] = struct{}{}
	}
	servers := make(map[string]struct{}, len(catalogs))
	clashing := map[string]bool{} // names more than one tool wants
	for _, c := range catalogs {
		if c == nil {
			continue
		}
		if _, dup := servers[c.Server]; dup {
			continue
		}
		servers[c.Server] = struct{}{}
		for _, t := range c.Tools {
			s.tools = append(s.tools, t)
			if _, isLocal := s.table.local[t.name]; isLocal {
				clashing[t.name] = true
			} else if _, dup := byName[t.name]; dup {
				clashing[t.name] = true
			} else {
				byName[t.name] = t
			}
		}
	}
	// Tools whose names are unique keep them; the others are named below.
	var clash []*Tool
	if len(clashing) > 0 {
		for name := range clashing {
			delete(byName, name)
		}
		for _, t := range s.tools {
			if clashing[t.name] {
				clash = append(clash, t)
			}
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
			byName[name] = nt
		}
		for i, t := range s.tools {
			if nt, ok := renamed[t]; ok {
				s.tools[i] = nt
			}
		}
	}
	return s
}

func (s *Snapshot) nameTaken(name string) bool { return s.table.taken(name) }

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
	t, ok := s.table.tools[name]
	return t, ok
}

// Table returns the reverse table of the snapshot's names, local tools
// included.
func (s *Snapshot) Table() *Table { return &s.table }
