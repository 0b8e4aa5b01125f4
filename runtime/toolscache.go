package runtime

import (
	"encoding/json"

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
