package config

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	goruntime "runtime"
	"strings"
)

// ImportSources maps the names accepted by "host mcp import --from" to the
// files those hosts keep their servers in, on this OS.
func ImportSources() map[string]string {
	home, _ := os.UserHomeDir()
	cwd, _ := os.Getwd()
	claude := filepath.Join(home, ".config", "Claude", "claude_desktop_config.json")
	switch goruntime.GOOS {
	case "darwin":
		claude = filepath.Join(home, "Library", "Application Support", "Claude", "claude_desktop_config.json")
	case "windows":
		claude = filepath.Join(os.Getenv("APPDATA"), "Claude", "claude_desktop_config.json")
	}
	return map[string]string{
		"claude-desktop": claude,
		"cursor":         filepath.Join(home, ".cursor", "mcp.json"),
		"vscode":         filepath.Join(cwd, ".vscode", "mcp.json"),
	}
}

// ImportedServer is one server read from another host's file.
type ImportedServer struct {
	// Name is the server's name in the source file.
	Name string
	// ID is the id it gets here: Name, or a valid id made from it (see
	// Renamed).
	ID     string
	Config ServerConfig
	// Err says why the server cannot be imported as is.
	Err error
	// Moved lists the secrets taken out of Config: each value in the
	// source became a ${VAR} reference, and the variable must be set in
	// the host's environment. The values are not kept anywhere.
	Moved []MovedSecret
}

// Renamed reports whether the server's id differs from its name in the
// source file.
func (s ImportedServer) Renamed() bool { return s.ID != s.Name }

// MovedSecret is one secret [ParseImport] moved out of an imported entry.
type MovedSecret struct {
	// Field is where it was: "env.API_KEY" or "headers.Authorization".
	Field string
	// Var is the environment variable the entry now references.
	Var string
}

// ParseImport reads the "mcpServers" object used by Claude Desktop, Cursor
// and .mcp.json files, or VS Code's "servers" object (format "vscode").
func ParseImport(data []byte, format string) ([]ImportedServer, error) {
	var doc struct {
		MCPServers map[string]json.RawMessage `json:"mcpServers"`
		Servers    map[string]json.RawMessage `json:"servers"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		return nil, syntaxError("import", data, err)
	}
	servers := doc.MCPServers
	if format == "vscode" || len(servers) == 0 {
		if len(doc.Servers) > 0 {
			servers = doc.Servers
		}
	}
	if len(servers) == 0 {
		return nil, errors.New(`no "mcpServers" (or VS Code "servers") object found`)
	}
	out := make([]ImportedServer, 0, len(servers))
	for _, name := range sortedKeys(servers) {
		out = append(out, importOne(name, servers[name]))
	}
	return finishImport(out), nil
}

// finishImport gives every imported server a unique valid id and moves
// its secrets out. in holds one entry per name, sorted by name.
func finishImport(out []ImportedServer) []ImportedServer {
	ids := map[string]bool{}
	vars := map[string]bool{}
	for i := range out {
		if ValidateServerID(out[i].Name) != nil {
			out[i].ID = slugID(out[i].Name)
		} else {
			out[i].ID = out[i].Name
			ids[out[i].ID] = true
		}
	}
	for i := range out {
		s := &out[i]
		if s.Renamed() {
			// A made-up id may be another entry's name ("a b" and
			// "a-b"), or another made-up id: it gets a suffix, and the
			// rename is reported like any other.
			base := s.ID
			for n := 2; ids[s.ID]; n++ {
				s.ID = fmt.Sprintf("%.60s-%d", base, n)
			}
			ids[s.ID] = true
		}
		if s.Err == nil {
			// Imports are untrusted: another client's "trust" (or a
			// project file's) never skips our confirm.
			s.Config.Trust = false
			s.Moved = moveSecrets(s.ID, &s.Config, vars)
		}
	}
	return out
}

func importOne(name string, raw json.RawMessage) ImportedServer {
	s := ImportedServer{Name: name, ID: name}
	var in struct {
		Type    string            `json:"type"`
		Command string            `json:"command"`
		Args    []string          `json:"args"`
		Env     map[string]string `json:"env"`
		Cwd     string            `json:"cwd"`
		URL     string            `json:"url"`
		Headers map[string]string `json:"headers"`
		// Disabled is Claude Code's and Cursor's switch; Enabled ours.
		Disabled *bool `json:"disabled"`
		Enabled  *bool `json:"enabled"`
		// OAuth is Claude Code's pre-registered client (mcp add
		// --client-id, --callback-port).
		OAuth *struct {
			ClientID     string `json:"clientId"`
			CallbackPort int    `json:"callbackPort"`
		} `json:"oauth"`
	}
	if err := json.Unmarshal(raw, &in); err != nil {
		s.Err = fmt.Errorf("not a server object: %w", err)
		return s
	}
	c := ServerConfig{URL: in.URL, Headers: in.Headers, Command: in.Command, Args: in.Args, Env: in.Env, Cwd: in.Cwd}
	if in.OAuth != nil && (in.OAuth.ClientID != "" || in.OAuth.CallbackPort != 0) {
		c.OAuth = &OAuthConfig{ClientID: in.OAuth.ClientID, CallbackPort: in.OAuth.CallbackPort}
	}
	if (in.Disabled != nil && *in.Disabled) || (in.Enabled != nil && !*in.Enabled) {
		off := false
		c.Enabled = &off
	}
	switch in.Type {
	case "", "stdio":
		if in.URL != "" && in.Command == "" {
			c.Transport = "http"
		} else {
			c.Transport = "stdio"
		}
	case "http", "streamable-http", "streamableHttp":
		c.Transport = "http"
	case "sse":
		c.Transport = "sse"
	default:
		s.Err = fmt.Errorf("unknown type %q", in.Type)
		return s
	}
	return checkImported(s, c)
}

// checkImported sets s's Config to c, or its Err to why c cannot be
// imported as it is.
func checkImported(s ImportedServer, c ServerConfig) ImportedServer {
	s.Config = c
	if err := c.Validate(); err != nil {
		s.Err = err
		return s
	}
	for _, v := range append(append(mapValues(c.Env), mapValues(c.Headers)...), c.Args...) {
		if strings.Contains(v, "${input:") {
			s.Err = fmt.Errorf("uses a VS Code input variable (%s); set it with ${ENV_VAR} after import", v)
			return s
		}
	}
	return s
}

func mapValues(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for _, k := range sortedKeys(m) {
		out = append(out, m[k])
	}
	return out
}

// slugID makes a valid server id from any name.
func slugID(name string) string {
	var b strings.Builder
	for _, r := range name {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '_', r == '-':
			b.WriteRune(r)
		default:
			b.WriteByte('-')
		}
	}
	id := strings.Trim(b.String(), "-")
	if id == "" {
		id = "server"
	}
	if len(id) > 64 {
		id = id[:64]
	}
	return id
}
