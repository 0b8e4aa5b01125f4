package main

import (
	"io"
	"os"
	"slices"
	"strings"
	"unicode"

	"github.com/mcp-host/mcp-host/runtime"
	"github.com/mcp-host/mcp-host/runtime/config"
	"github.com/mcp-host/mcp-host/runtime/listcache"
	"github.com/mcp-host/mcp-host/termsafe"
)

// maxCompWord bounds a server id or tool name completion offers.
const maxCompWord = 128

// completer answers one host __complete. It reads the configuration once,
// when a candidate needs it, and starts no server: server ids come from
// the config files, tool names from the catalogs host serve keeps.
type completer struct {
	loaded  bool
	servers []config.ServerEntry
}

// entries are the effective servers, loaded as host mcp loads them (the
// managed policy applied), their warnings dropped; none when the
// configuration cannot be read.
func (cc *completer) entries() []config.ServerEntry {
	if cc.loaded {
		return cc.servers
	}
	cc.loaded = true
	cwd, err := os.Getwd()
	if err != nil {
		return nil
	}
	global, project := config.DefaultPaths(cwd)
	c := &cli{stdin: strings.NewReader(""), stdout: io.Discard, stderr: io.Discard, global: global, project: project}
	eff, err := c.load()
	if err != nil {
		return nil
	}
	cc.servers = eff.Servers
	return cc.servers
}

// serverIDs are the ids of the configured servers, sorted, but those in
// skip. A project file may hold anything: ids that are not plain words
// are left out (see compWord).
func (cc *completer) serverIDs(skip []string) []string {
	var out []string
	for _, e := range cc.entries() {
		if compWord(e.ID) && !slices.Contains(skip, e.ID) {
			out = append(out, e.ID)
		}
	}
	return sortedUnique(out)
}

// tools are the names of server id's tools in the catalog host serve
// keeps for it (runtime.ManagerOptions.Catalogs), as the server's
// include/exclude filters and the managed policy let them through: none
// when no catalog is kept. The server is not started. Tool names come
// from the server: those that are not plain words are left out.
func (cc *completer) tools(id string) []string {
	var entry *config.ServerEntry
	for i, e := range cc.entries() {
		if e.ID == id {
			entry = &cc.servers[i]
			break
		}
	}
	if entry == nil {
		return nil
	}
	dir, err := listcache.CacheDir("catalogs")
	if err != nil {
		return nil
	}
	cat, ok := (&listcache.Catalogs{Dir: listcache.Dir{Path: dir}}).Load(runtime.CatalogKey(entry.ID, &entry.Config))
	if !ok {
		return nil
	}
	var out []string
	for _, t := range cat.Tools {
		if t != nil && compWord(t.Name) && entry.ToolAllowed(t.Name) {
			out = append(out, t.Name)
		}
	}
	return sortedUnique(out)
}

// compWord reports whether s, which a server or a project file chose, may
// be offered to a shell: a plain word of letters, digits, '_', '-', '.',
// '/' and ':' that does not start with '-' (it would read as a flag) and
// that termsafe prints unchanged. Anything else (spaces, quotes, shell
// metacharacters, terminal controls, invisible characters) is dropped,
// not rewritten: a rewritten name would name nothing.
func compWord(s string) bool {
	if s == "" || len(s) > maxCompWord || s[0] == '-' || termsafe.Strip(s) != s {
		return false
	}
	for _, r := range s {
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) && !strings.ContainsRune("_-./:", r) {
			return false
		}
	}
	return true
}

// sortedUnique sorts list and drops repeats.
func sortedUnique(list []string) []string {
	slices.Sort(list)
	return slices.Compact(list)
}
