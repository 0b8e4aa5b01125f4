package config

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"

	toml "github.com/pelletier/go-toml/v2"
)

// ImportFile is one file a peer client keeps servers in.
type ImportFile struct {
	// Path is the file.
	Path string
	// Scope is the client's name for it: "user", "local" or "project".
	Scope string
}

// PeerFiles lists, highest precedence first, the files Claude Code
// ("claude-code"), Codex ("codex") and Gemini CLI ("gemini") keep MCP
// servers in for a user whose home is home, working in cwd. It returns
// nil for any other name.
func PeerFiles(peer, home, cwd string) []ImportFile {
	switch peer {
	case "claude-code":
		// Local (this project, kept in ~/.claude.json), project
		// (.mcp.json), user (~/.claude.json): Claude Code's order.
		return []ImportFile{
			{filepath.Join(home, ".claude.json"), "local"},
			{filepath.Join(cwd, ".mcp.json"), "project"},
			{filepath.Join(home, ".claude.json"), "user"},
		}
	case "codex":
		return []ImportFile{
			{filepath.Join(cwd, ".codex", "config.toml"), "project"},
			{filepath.Join(home, ".codex", "config.toml"), "user"},
		}
	case "gemini":
		return []ImportFile{
			{filepath.Join(cwd, ".gemini", "settings.json"), "project"},
			{filepath.Join(home, ".gemini", "settings.json"), "user"},
		}
	}
	return nil
}

// ReadPeerImport reads the servers Claude Code, Codex or Gemini CLI (see
// [PeerFiles]) would run for a user whose home is home, working in cwd: a
// server defined in several scopes is taken from the one the client
// prefers. It returns the servers and the files they were read from; a
// missing file is skipped, and no file at all is an error.
func ReadPeerImport(peer, home, cwd string) ([]ImportedServer, []string, error) {
	files := PeerFiles(peer, home, cwd)
	if files == nil {
		return nil, nil, fmt.Errorf("unknown client %q", peer)
	}
	byName := map[string]ImportedServer{}
	var read []string
	found := false
	for _, f := range files {
		data, err := os.ReadFile(f.Path)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		found = true
		if err != nil {
			return nil, nil, fmt.Errorf("import from %s: %w", peer, err)
		}
		servers, err := parsePeer(peer, f.Scope, data, home, cwd)
		if err != nil {
			return nil, nil, fmt.Errorf("import from %s: %s: %w", peer, f.Path, err)
		}
		if len(servers) > 0 && !contains(read, f.Path) {
			read = append(read, f.Path)
		}
		for _, s := range servers {
			if _, seen := byName[s.Name]; !seen {
				byName[s.Name] = s
			}
		}
	}
	if !found {
		return nil, nil, fmt.Errorf("import from %s: %w: none of its files exists (%s)", peer, ErrNothingToImport, describeFiles(files))
	}
	if len(read) == 0 {
		return nil, nil, fmt.Errorf("import from %s: %w: no servers in %s", peer, ErrNothingToImport, describeFiles(files))
	}
	out := make([]ImportedServer, 0, len(byName))
	for _, name := range sortedKeys(byName) {
		out = append(out, byName[name])
	}
	return finishImport(out), read, nil
}

// ErrNothingToImport is wrapped when a client's files hold no server (or
// do not exist): the command line was right, there is nothing to take.
var ErrNothingToImport = errors.New("nothing to import")

func describeFiles(files []ImportFile) string {
	var paths []string
	for _, f := range files {
		if !contains(paths, f.Path) {
			paths = append(paths, f.Path)
		}
	}
	return strings.Join(paths, ", ")
}

func parsePeer(peer, scope string, data []byte, home, cwd string) ([]ImportedServer, error) {
	switch peer {
	case "claude-code":
		if scope == "project" {
			// Whether each .mcp.json server is on is kept in
			// ~/.claude.json, for this project.
			user, _ := os.ReadFile(filepath.Join(home, ".claude.json"))
			return parseClaudeCode(scope, data, user, cwd)
		}
		return parseClaudeCode(scope, data, data, cwd)
	case "codex":
		return parseCodex(data)
	default:
		return parseGemini(data)
	}
}

// parseClaudeCode reads one scope of Claude Code's servers: "user" is
// ~/.claude.json's "mcpServers", "local" its "projects"[cwd]
// "mcpServers", "project" a .mcp.json (data). Servers the user turned off
// in the project (~/.claude.json, user: "disabledMcpServers",
// "disabledMcpjsonServers") are imported disabled.
func parseClaudeCode(scope string, data, user []byte, cwd string) ([]ImportedServer, error) {
	type project struct {
		MCPServers             map[string]json.RawMessage `json:"mcpServers"`
		DisabledMCPServers     []string                   `json:"disabledMcpServers"`
		DisabledMCPJSONServers []string                   `json:"disabledMcpjsonServers"`
	}
	type file struct {
		project
		Projects map[string]project `json:"projects"`
	}
	var doc, settings file
	if err := json.Unmarshal(data, &doc); err != nil {
		return nil, syntaxError("import", data, err)
	}
	// A ~/.claude.json that does not parse was reported for the other
	// scopes; here it only turns nothing off.
	_ = json.Unmarshal(user, &settings)
	here := settings.Projects[cwd]
	servers, off := doc.MCPServers, here.DisabledMCPServers
	switch scope {
	case "local":
		servers = doc.Projects[cwd].MCPServers
	case "project":
		off = here.DisabledMCPJSONServers
	}
	out := make([]ImportedServer, 0, len(servers))
	for _, name := range sortedKeys(servers) {
		s := importOne(name, servers[name])
		if s.Err == nil && contains(off, name) {
			s.Config.Enabled = new(false)
		}
		out = append(out, s)
	}
	return out, nil
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// codexServer is one [mcp_servers.<id>] table of Codex's config.toml.
type codexServer struct {
	Command           string            `toml:"command"`
	Args              []string          `toml:"args"`
	Env               map[string]string `toml:"env"`
	EnvVars           []string          `toml:"env_vars"`
	Cwd               string            `toml:"cwd"`
	URL               string            `toml:"url"`
	BearerTokenEnvVar string            `toml:"bearer_token_env_var"`
	HTTPHeaders       map[string]string `toml:"http_headers"`
	EnvHTTPHeaders    map[string]string `toml:"env_http_headers"`
	Enabled           *bool             `toml:"enabled"`
	StartupTimeoutSec float64           `toml:"startup_timeout_sec"`
	StartupTimeoutMS  int               `toml:"startup_timeout_ms"`
	ToolTimeoutSec    float64           `toml:"tool_timeout_sec"`
	EnabledTools      []string          `toml:"enabled_tools"`
	DisabledTools     []string          `toml:"disabled_tools"`
	Scopes            []string          `toml:"scopes"`
}

// parseCodex reads the [mcp_servers] tables of Codex's config.toml.
// Codex names environment variables where others write ${VAR}
// (bearer_token_env_var, env_http_headers, env_vars): each becomes the
// matching ${VAR} reference or env_vars entry.
func parseCodex(data []byte) ([]ImportedServer, error) {
	var doc struct {
		Servers map[string]any `toml:"mcp_servers"`
	}
	if err := toml.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("not TOML: %w", err)
	}
	out := make([]ImportedServer, 0, len(doc.Servers))
	for _, name := range sortedKeys(doc.Servers) {
		s := ImportedServer{Name: name, ID: name}
		var in codexServer
		raw, err := toml.Marshal(doc.Servers[name])
		if err == nil {
			err = toml.Unmarshal(raw, &in)
		}
		if err != nil {
			s.Err = fmt.Errorf("not a server table: %w", err)
			out = append(out, s)
			continue
		}
		c := ServerConfig{Command: in.Command, Args: in.Args, Env: in.Env, EnvVars: in.EnvVars, Cwd: in.Cwd, URL: in.URL,
			IncludeTools: in.EnabledTools, ExcludeTools: in.DisabledTools}
		c.Transport = "stdio"
		if in.URL != "" {
			c.Transport = "http"
		}
		headers := map[string]string{}
		for k, v := range in.HTTPHeaders {
			headers[k] = v
		}
		for k, v := range in.EnvHTTPHeaders {
			headers[k] = "${" + v + "}"
		}
		if in.BearerTokenEnvVar != "" {
			headers["Authorization"] = "Bearer ${" + in.BearerTokenEnvVar + "}"
		}
		if len(headers) > 0 {
			c.Headers = headers
		}
		if in.Enabled != nil && !*in.Enabled {
			c.Enabled = new(false)
		}
		c.StartupTimeoutMS = in.StartupTimeoutMS
		if in.StartupTimeoutSec > 0 {
			c.StartupTimeoutMS = int(in.StartupTimeoutSec * 1000)
		}
		if in.ToolTimeoutSec > 0 {
			c.RequestTimeoutMS = int(in.ToolTimeoutSec * 1000)
		}
		if len(in.Scopes) > 0 {
			c.OAuth = &OAuthConfig{Scope: strings.Join(in.Scopes, " ")}
		}
		out = append(out, checkImported(s, c))
	}
	return out, nil
}

// geminiServer is one entry of Gemini CLI's "mcpServers".
type geminiServer struct {
	Type         string            `json:"type"`
	Command      string            `json:"command"`
	Args         []string          `json:"args"`
	Env          map[string]string `json:"env"`
	Cwd          string            `json:"cwd"`
	URL          string            `json:"url"`
	HTTPURL      string            `json:"httpUrl"`
	Headers      map[string]string `json:"headers"`
	Timeout      int               `json:"timeout"`
	IncludeTools []string          `json:"includeTools"`
	ExcludeTools []string          `json:"excludeTools"`
	OAuth        *struct {
		Enabled          *bool    `json:"enabled"`
		ClientID         string   `json:"clientId"`
		ClientSecret     string   `json:"clientSecret"`
		AuthorizationURL string   `json:"authorizationUrl"`
		TokenURL         string   `json:"tokenUrl"`
		Scopes           []string `json:"scopes"`
		RedirectURI      string   `json:"redirectUri"`
	} `json:"oauth"`
}

// geminiVar matches Gemini CLI's $VAR and ${VAR} (and %VAR% on Windows).
var geminiVar = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`\$\{([A-Za-z_][A-Za-z0-9_]*)\}|\$([A-Za-z_][A-Za-z0-9_]*)|%([A-Za-z_][A-Za-z0-9_]*)%`)
})

// geminiRefs rewrites Gemini's variable forms to ${VAR}.
func geminiRefs(s string) string {
	return geminiVar().ReplaceAllStringFunc(s, func(m string) string {
		p := geminiVar().FindStringSubmatch(m)
		return "${" + p[1] + p[2] + p[3] + "}"
	})
}

// parseGemini reads Gemini CLI's settings.json: "url" is SSE and
// "httpUrl" Streamable HTTP unless "type" says otherwise; names in
// "mcp.excluded" are imported disabled. "trust" is not carried over.
func parseGemini(data []byte) ([]ImportedServer, error) {
	var doc struct {
		MCPServers map[string]json.RawMessage `json:"mcpServers"`
		MCP        struct {
			Excluded []string `json:"excluded"`
		} `json:"mcp"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		return nil, syntaxError("import", data, err)
	}
	out := make([]ImportedServer, 0, len(doc.MCPServers))
	for _, name := range sortedKeys(doc.MCPServers) {
		s := ImportedServer{Name: name, ID: name}
		var in geminiServer
		if err := json.Unmarshal(doc.MCPServers[name], &in); err != nil {
			s.Err = fmt.Errorf("not a server object: %w", err)
			out = append(out, s)
			continue
		}
		c := ServerConfig{Command: in.Command, Cwd: in.Cwd, RequestTimeoutMS: in.Timeout,
			IncludeTools: splitCommas(in.IncludeTools), ExcludeTools: splitCommas(in.ExcludeTools)}
		for _, a := range in.Args {
			c.Args = append(c.Args, geminiRefs(a))
		}
		c.Env = mapRefs(in.Env)
		c.Headers = mapRefs(in.Headers)
		switch {
		case in.HTTPURL != "":
			c.Transport, c.URL = "http", geminiRefs(in.HTTPURL)
		case in.URL != "" && in.Type == "http":
			c.Transport, c.URL = "http", geminiRefs(in.URL)
		case in.URL != "":
			c.Transport, c.URL = "sse", geminiRefs(in.URL)
		default:
			c.Transport = "stdio"
		}
		if o := in.OAuth; o != nil && (o.Enabled == nil || *o.Enabled) {
			c.OAuth = &OAuthConfig{ClientID: o.ClientID, ClientSecret: o.ClientSecret, AuthorizationURL: o.AuthorizationURL,
				TokenURL: o.TokenURL, Scope: strings.Join(o.Scopes, " "), RedirectURI: o.RedirectURI}
			if *c.OAuth == (OAuthConfig{}) {
				c.OAuth = nil
			}
		}
		if contains(doc.MCP.Excluded, name) {
			c.Enabled = new(false)
		}
		out = append(out, checkImported(s, c))
	}
	return out, nil
}

func mapRefs(m map[string]string) map[string]string {
	if len(m) == 0 {
		return nil
	}
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[k] = geminiRefs(v)
	}
	return out
}

// splitCommas splits entries such as "a,b", which `gemini mcp add
// --include-tools a,b` writes as one, into their names.
func splitCommas(list []string) []string {
	var out []string
	for _, v := range list {
		for _, n := range strings.Split(v, ",") {
			if n = strings.TrimSpace(n); n != "" {
				out = append(out, n)
			}
		}
	}
	return out
}
