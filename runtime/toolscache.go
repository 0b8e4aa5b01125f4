package runtime

import (
	"encoding/json"
	"sort"

	"github.com/mcp-host/mcp-host/runtime/config"
)

// toolsCacheKey is the key under which a server's catalog may be kept
// across connects (ManagerOptions.ToolsCache): the server's id and its
// whole expanded definition, so that any change that could change the
// catalog (URL, command, arguments, working directory, environment and
// header values, filters) is another key. The key holds expanded secrets;
// caches only ever store its hash.
func toolsCacheKey(id string, cfg *config.ServerConfig) string {
	raw, err := json.Marshal(cfg)
	if err != nil {
		return "" // no caching rather than a key that could collide
	}
	return id + "\x00" + string(raw)
}

// CatalogKey is the key of a server's kept catalog
// (ManagerOptions.Catalogs): its id and its definition as written, with
// the names of its environment variables and headers but not their
// values, so that a rotated token does not discard the catalog. The
// catalog is shown only until the server starts; the live one replaces
// it. Shell completion reads the kept catalog under it too.
func CatalogKey(id string, cfg *config.ServerConfig) string {
	def := struct {
		Transport, URL, Command, Cwd, ProtocolVersion string
		Args, Env, EnvVars, Headers                   []string
	}{cfg.TransportName(), cfg.URL, cfg.Command, cfg.Cwd, cfg.ProtocolVersion, cfg.Args, sortedNames(cfg.Env), cfg.EnvVars, sortedNames(cfg.Headers)}
	raw, err := json.Marshal(def)
	if err != nil {
		return ""
	}
	return "catalog\x00" + id + "\x00" + string(raw)
}

func sortedNames(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
