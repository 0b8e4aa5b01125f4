package policy

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	goruntime "runtime"

	"github.com/mcp-host/mcp-host/internal/statefile"
	"github.com/mcp-host/mcp-host/runtime/config"
)

// EnvVar names a policy file to use where the system location has none
// (tests, fleets that deploy elsewhere).
const EnvVar = "MCP_HOST_MANAGED_POLICY"

// maxFileSize bounds the policy file, and maxDepth its nesting: a bigger
// or deeper one fails closed.
const (
	maxFileSize = 1 << 20
	maxDepth    = 64
)

// Values of "user_servers".
const (
	UserServersAllow        = "allow"
	UserServersNone         = "none"
	UserServersRegistryOnly = "registry_only"
)

// Rule is one entry of "allow" or "deny": a URL pattern or a command line.
type Rule struct {
	// URL is a pattern scheme://host[:port][/path] (see package doc).
	URL string `json:"url,omitempty"`
	// Command is the executable and its arguments, exact, with "*" for
	// any one argument.
	Command []string `json:"command,omitempty"`

	url *urlPattern
}

// String is the rule as the file writes it, for errors and statuses.
func (r Rule) String() string {
	b, _ := json.Marshal(r)
	return string(b)
}

// Policy is a parsed managed policy. The zero value (no File) is no policy:
// everything is allowed, as without an organization.
type Policy struct {
	// File is the policy file; "" when none applies.
	File string
	// Err, when set, is why the file cannot be used (unreadable, not
	// JSON, an unknown key, a bad pattern), naming file and line:column:
	// every server the policy does not provide is blocked.
	Err error
	// Rev is a digest of the file's content.
	Rev string
	// Notes are warnings about where the policy came from.
	Notes []string

	Allow []Rule
	Deny  []Rule
	// Servers are the servers the organization provides, forced on.
	// Each starts once the user approved its definition, as a project's
	// server does, unless ServersPreapproved.
	Servers map[string]config.ServerConfig
	// ServersPreapproved ("servers_preapproved": true) approves Servers
	// on the organization's behalf: they start without asking the user.
	ServersPreapproved bool
	// UserServers is "allow" (default), "none" or "registry_only".
	UserServers string
	// Registries are the organization's registry base URLs (no trailing
	// slash): the only ones host mcp search and add --from-registry use,
	// and, with "registry_only", the only ones a user server may come from.
	Registries []string
	// Verify checks that a user server under "registry_only" runs exactly
	// what its recorded registry entry produces; nil means
	// [registry.Verify] (tests set their own).
	Verify func(id string, c config.ServerConfig) error
	// SandboxRequired keeps any stdio server without a sandbox from
	// starting.
	SandboxRequired bool
	// ProjectServers false blocks every server a project file defines.
	ProjectServers *bool
	// Trust false ignores every server's "trust": true.
	Trust *bool
	// AutoAllow false ignores every server's "auto_allow".
	AutoAllow *bool
	// ToolDeny are "server/tool" globs (path.Match syntax on each side)
	// of tools no one may call.
	ToolDeny []string
	// TokenStore, when "keyring", keeps tokens in the OS keyring only.
	TokenStore string
	// OAuthCallbackPorts are the only loopback ports OAuth callbacks may
	// use; empty allows any.
	OAuthCallbackPorts []int
	// Start, when set ("eager" or "lazy"), is every server's start mode,
	// whatever its "start" says.
	Start string
}

// Active reports whether a policy file applies.
func (p *Policy) Active() bool { return p != nil && p.File != "" }

// SystemPath is the policy's location on goos: /etc/mcp-host/managed.json
// on Linux and other Unix systems, /Library/Application
// Support/mcp-host/managed.json on macOS, %ProgramData%\mcp-host\managed.json
// on Windows.
func SystemPath(goos string, getenv func(string) string) string {
	switch goos {
	case "windows":
		dir := getenv("ProgramData")
		if dir == "" {
			dir = `C:\ProgramData`
		}
		return dir + `\mcp-host\managed.json`
	case "darwin":
		return "/Library/Application Support/mcp-host/managed.json"
	}
	return "/etc/mcp-host/managed.json"
}

// Locate returns the policy file that applies: the system one when it
// exists (a user's MCP_HOST_MANAGED_POLICY cannot replace it, and is then
// ignored with a note), else the file MCP_HOST_MANAGED_POLICY names, else
// the system path (which need not exist). explicit reports a file named
// by the variable, which must then exist.
func Locate(getenv func(string) string) (file string, explicit bool, note string) {
	return locate(SystemPath(goruntime.GOOS, getenv), getenv)
}

// locate is [Locate] with the system path given.
func locate(sys string, getenv func(string) string) (file string, explicit bool, note string) {
	env := getenv(EnvVar)
	if env == "" {
		return sys, false, ""
	}
	if _, err := os.Stat(sys); !errors.Is(err, fs.ErrNotExist) && filepath.Clean(env) != filepath.Clean(sys) {
		return sys, false, fmt.Sprintf("%s=%s is ignored: the system policy %s applies", EnvVar, env, sys)
	}
	return env, true, ""
}

// Source says where the policy is: [Locate]'s answer, kept so that a
// long-running host re-reads (and watches) the same file.
type Source struct {
	// File is the policy file; "" means no policy at all.
	File string
	// Explicit marks a file MCP_HOST_MANAGED_POLICY named: it must exist.
	Explicit bool
	// Note is a warning about the choice (the variable ignored).
	Note string
}

// DefaultSource locates the policy in the process environment.
func DefaultSource() Source {
	file, explicit, note := Locate(os.Getenv)
	return Source{File: file, Explicit: explicit, Note: note}
}

// Load reads the policy of the source.
func (s Source) Load() *Policy {
	p := Load(s.File, s.Explicit)
	if s.Note != "" {
		p.Notes = append(p.Notes, s.Note)
	}
	return p
}

// Load reads the policy file. A system file that does not exist is no
// policy; one that must exist (explicit) and does not, or that cannot be
// read or parsed, is a policy with Err set, which fails closed.
func Load(file string, explicit bool) *Policy {
	if file == "" {
		return &Policy{}
	}
	data, err := statefile.Read(file, maxFileSize)
	if errors.Is(err, fs.ErrNotExist) && !explicit {
		return &Policy{}
	}
	if err == nil {
		err = statefile.CheckDepth(data, maxDepth)
	}
	if err != nil {
		return &Policy{File: file, Err: fmt.Errorf("managed policy %s: %w", file, err)}
	}
	p := Parse(file, data)
	if n := writableNote(file); n != "" {
		p.Notes = append(p.Notes, n)
	}
	return p
}

// Parse parses the content of the policy file named file.
func Parse(file string, data []byte) *Policy {
	sum := sha256.Sum256(data)
	p := &Policy{File: file, Rev: hex.EncodeToString(sum[:8])}
	d := &decoder{file: file, data: data}
	d.policy(p)
	p.Err = d.err
	return p
}
