package config

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/mcp-host/mcp-host/internal/statefile"
	"github.com/mcp-host/mcp-host/runtime/sandbox"
)

// Sources of a server entry.
const (
	SourceGlobal  = "global"
	SourceProject = "project"
	SourceEnv     = "env"
	// SourceManaged is a server the organization's managed policy
	// provides (package policy): forced on, not removable by the user.
	SourceManaged = "managed"
)

// PolicyBlock says which rule of the organization's managed policy keeps a
// server from running. Package policy sets it; the runtime shows the
// server as blocked_by_policy with it.
type PolicyBlock struct {
	// File is the policy file.
	File string
	// Rule names the rule: `deny[0] {"url": "…"}`, `"user_servers":
	// "none"`, or the file's position when it does not parse.
	Rule string
	// Reason says in words why the rule applies to this server.
	Reason string
}

// Error says the file, the rule and the reason in one line.
func (b *PolicyBlock) Error() string {
	return fmt.Sprintf("blocked by the managed policy %s: %s: %s", b.File, b.Rule, b.Reason)
}

// ServerEntry is one server of the effective configuration.
type ServerEntry struct {
	ID     string
	Config ServerConfig
	// Source is SourceGlobal, SourceProject or SourceEnv.
	Source string
	// Path is the file the entry came from ("" for MCP_HOST_SERVERS).
	Path string
	// DefinedIn and DefinedPath name the layer and file that supplied the
	// definition. They differ from Source and Path when a higher layer
	// only turned a lower layer's server on or off ({"enabled": …}).
	DefinedIn, DefinedPath string
	// Err, when set, says why the entry is invalid; the server does not run
	// and shows this error.
	Err error
	// Stale, when set, says that the entry is the last good one from a
	// file that no longer parses (see [Effective.Broken]): it keeps
	// running and shows the file's error.
	Stale error
	// Blocked, when set, is the managed policy's rule that forbids the
	// server: it does not run (state blocked_by_policy).
	Blocked *PolicyBlock
	// Check, when set, is the managed policy's check of the definition
	// the server is about to run (after ${VAR} expansion): a non-nil
	// block stops the connect. PolicyRev names the policy Check applies,
	// so that a changed policy restarts the server.
	Check     func(expanded *ServerConfig) *PolicyBlock
	PolicyRev string
	// DeniedTools are the managed policy's tool globs for this server:
	// such tools are hidden and refused, whatever the config says.
	DeniedTools []string
	// Notes are warnings the managed policy adds (a setting it overrode).
	Notes []string
	// SandboxWarnings say what of a project's (or MCP_HOST_SERVERS')
	// "sandbox" was ignored because it would loosen the policy.
	SandboxWarnings []string
	// Preapproved marks a server the managed policy provides and itself
	// approves ("servers_preapproved": true): it starts without asking.
	Preapproved bool
}

// Forced reports a server the managed policy provides: the user cannot
// remove or disable it.
func (e *ServerEntry) Forced() bool { return e.DefinedIn == SourceManaged }

// ToolAllowed applies the config's include_tools and exclude_tools and
// then the managed policy's tool deny globs, which win.
func (e *ServerEntry) ToolAllowed(name string) bool {
	return e.Config.ToolAllowed(name) && !matchAny(e.DeniedTools, name)
}

// Wrap returns err with the entry's file (or MCP_HOST_SERVERS) and server id in
// front of it, the context every error about an entry carries.
func (e *ServerEntry) Wrap(err error) error {
	where := e.Path
	if e.Source == SourceManaged {
		where = "managed policy " + where
	} else if where == "" {
		where = "MCP_HOST_SERVERS"
	}
	return fmt.Errorf("config %s: server %q: %w", where, e.ID, err)
}

// FromProject reports that a project file supplied the definition: what it
// runs was chosen by whoever wrote the repository, so it needs the user's
// approval before it starts.
func (e *ServerEntry) FromProject() bool { return e.DefinedIn == SourceProject }

// NeedsApproval reports a server that starts only once the user approved
// its definition: one a project file defines, and one the organization
// forces unless its policy approves its servers itself. The user sees
// what the organization runs in their name, and may refuse it.
func (e *ServerEntry) NeedsApproval() bool {
	return e.FromProject() || (e.Forced() && !e.Preapproved)
}

// Origin names who defined the server, for an approval question: the
// project file, or the managed policy.
func (e *ServerEntry) Origin() string {
	if e.Forced() {
		return "the managed policy " + e.DefinedPath
	}
	return e.DefinedPath
}

// Trusted reports "trust": true from the user's global config or from
// the organization's managed policy, the only layers allowed to switch the
// confirm prompt off.
func (e *ServerEntry) Trusted() bool {
	return e.Config.Trust && (e.DefinedIn == SourceGlobal || e.DefinedIn == SourceManaged)
}

// AutoAllowReadOnly reports "auto_allow": "read_only" from the user's
// global config or the organization's managed policy, the only layers
// allowed to let tools run unasked on their own read-only claim.
func (e *ServerEntry) AutoAllowReadOnly() bool {
	return e.Config.AutoAllow == AutoAllowReadOnly && (e.DefinedIn == SourceGlobal || e.DefinedIn == SourceManaged)
}

// Warnings are problems with the entry that do not stop the server.
func (e *ServerEntry) Warnings() []string {
	var w []string
	where := e.DefinedPath
	if where == "" {
		where = "MCP_HOST_SERVERS"
	}
	if e.Config.Trust && !e.Trusted() {
		w = append(w, fmt.Sprintf(`"trust": true in %s is ignored: only the global config can skip confirmations`, where))
	}
	w = append(w, e.SandboxWarnings...)
	if e.Config.AutoAllow != "" && !e.AutoAllowReadOnly() {
		w = append(w, fmt.Sprintf(`"auto_allow" in %s is ignored: only the global config or the managed policy can let tools run without a question`, where))
	}
	if e.Stale != nil {
		w = append(w, fmt.Sprintf("running the last good definition: %v", e.Stale))
	}
	return append(w, e.Notes...)
}

// Effective is the merged configuration of every layer.
type Effective struct {
	// Servers is sorted by id.
	Servers []ServerEntry
	// Errors are file-level problems (unreadable or malformed files); the
	// layers without problems still load.
	Errors []error
	// Files are the config files that were read, for watching.
	Files []string
	// Broken maps each file that could not be read or parsed to its
	// error; none of its servers is in Servers. A caller that reloads
	// can keep running the servers it last loaded from such a file (see
	// [ServerEntry.Stale]), so that saving a half-written file does not
	// close them.
	Broken map[string]error
	// ToolSearch is the global file's tool-search budget (see
	// [ToolSearch]); a bad one is reported in Errors and left zero.
	ToolSearch ToolSearch
}

// LoadOptions says where the layers are.
type LoadOptions struct {
	GlobalPath  string
	ProjectPath string
	// EnvServers is the content of MCP_HOST_SERVERS: a JSON object of
	// servers keyed by id.
	EnvServers string
}

// DefaultPaths returns the global config path ($MCP_HOST_CONFIG, else
// <user config dir>/mcp-host/config.json) and the project one
// (<cwd>/.mcp-host/config.json).
func DefaultPaths(cwd string) (global, project string) {
	global = os.Getenv("MCP_HOST_CONFIG")
	if global == "" {
		dir, err := os.UserConfigDir()
		if err != nil {
			dir = filepath.Join(os.Getenv("HOME"), ".config")
		}
		global = filepath.Join(dir, "mcp-host", "config.json")
	}
	return global, filepath.Join(cwd, ".mcp-host", "config.json")
}

// Load reads and merges the layers: global, then project, then env. A bad
// file or entry never stops the rest from loading; see [Effective.Errors]
// and [ServerEntry.Err].
func Load(opts LoadOptions) (*Effective, error) {
	eff := &Effective{}
	merged := map[string]ServerEntry{}
	layer := func(source, where string, data []byte) {
		raw, err := decodeServers(where, data, source == SourceEnv)
		if err != nil {
			eff.broken(where, err)
			return
		}
		for id, msg := range raw {
			path := where
			if source == SourceEnv {
				path = ""
			}
			e := ServerEntry{ID: id, Source: source, Path: path, DefinedIn: source, DefinedPath: path}
			e.Err = decodeEntry(msg, &e.Config)
			if e.Err == nil {
				if err := ValidateServerID(id); err != nil {
					e.Err = err
				}
			}
			if prev, ok := merged[id]; ok && e.Err == nil && isEnabledOverride(msg) {
				// {"enabled": false} in a higher layer turns a lower one
				// off (or on) and keeps its definition.
				prev.Config.Enabled = e.Config.Enabled
				prev.Source, prev.Path = source, path
				merged[id] = prev
				continue
			}
			if e.Err == nil {
				if err := e.Config.Validate(); err != nil {
					e.Err = err
				}
			}
			if e.Err != nil {
				e.Err = e.Wrap(e.Err)
			} else {
				prev, had := merged[id]
				e.Config.Sandbox, e.SandboxWarnings = layerSandbox(source, prev, had, e.Config.Sandbox)
			}
			merged[id] = e
		}
	}
	for _, l := range []struct{ source, path string }{{SourceGlobal, opts.GlobalPath}, {SourceProject, opts.ProjectPath}} {
		if l.path == "" {
			continue
		}
		data, err := readFile(l.path)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		eff.Files = append(eff.Files, l.path)
		if err != nil {
			eff.broken(l.path, err)
			continue
		}
		layer(l.source, l.path, data)
		if l.source == SourceGlobal {
			ts, err := decodeToolSearch(l.path, data)
			if err != nil {
				eff.Errors = append(eff.Errors, err)
			}
			eff.ToolSearch = ts
		}
	}
	if strings.TrimSpace(opts.EnvServers) != "" {
		layer(SourceEnv, "MCP_HOST_SERVERS", []byte(opts.EnvServers))
	}
	for _, e := range merged {
		eff.Servers = append(eff.Servers, e)
	}
	sort.Slice(eff.Servers, func(i, j int) bool { return eff.Servers[i].ID < eff.Servers[j].ID })
	return eff, nil
}

// MaxFileBytes bounds a configuration file: a larger one is an error
// naming it, read no further.
const MaxFileBytes = 16 << 20

// readFile reads a configuration file, bounded (MaxFileBytes) and checked
// for nesting (statefile.MaxDepth) before it is decoded; every error but
// a missing file's (fs.ErrNotExist) names the file.
func readFile(path string) ([]byte, error) {
	data, err := statefile.Read(path, MaxFileBytes)
	if err == nil {
		err = statefile.CheckDepth(data, statefile.MaxDepth)
	}
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("config %s: %w", path, err)
	}
	return data, err
}

// broken records a file-level problem.
func (eff *Effective) broken(where string, err error) {
	eff.Errors = append(eff.Errors, err)
	if eff.Broken == nil {
		eff.Broken = map[string]error{}
	}
	eff.Broken[where] = err
}

// isEnabledOverride reports whether an entry sets nothing but "enabled".
func isEnabledOverride(msg json.RawMessage) bool {
	var m map[string]json.RawMessage
	if json.Unmarshal(msg, &m) != nil {
		return false
	}
	_, ok := m["enabled"]
	return ok && len(m) == 1
}

// decodeServers returns the raw server entries of a file (or, for
// MCP_HOST_SERVERS, of a bare servers object).
func decodeServers(where string, data []byte, bare bool) (map[string]json.RawMessage, error) {
	if bare {
		var servers map[string]json.RawMessage
		if err := json.Unmarshal(data, &servers); err != nil {
			return nil, syntaxError(where, data, err)
		}
		return servers, nil
	}
	var f struct {
		Version *int `json:"version"`
		MCP     *struct {
			Servers map[string]json.RawMessage `json:"servers"`
		} `json:"mcp"`
	}
	if err := json.Unmarshal(data, &f); err != nil {
		return nil, syntaxError(where, data, err)
	}
	if f.Version != nil && *f.Version != 1 {
		return nil, fmt.Errorf("config %s: version %d is not supported (want 1)", where, *f.Version)
	}
	if f.MCP == nil {
		return nil, nil
	}
	return f.MCP.Servers, nil
}

// decodeEntry decodes one server strictly: an unknown field is an error
// naming it, so a typo never silently drops a setting.
func decodeEntry(msg json.RawMessage, c *ServerConfig) error {
	dec := json.NewDecoder(bytes.NewReader(msg))
	dec.DisallowUnknownFields()
	if err := dec.Decode(c); err != nil {
		var te *json.UnmarshalTypeError
		switch {
		case errors.As(err, &te):
			return &FieldError{Field: te.Field, Problem: fmt.Sprintf("must be %s, not a JSON %s", te.Type, te.Value)}
		case strings.HasPrefix(err.Error(), "json: unknown field "):
			name := strings.Trim(strings.TrimPrefix(err.Error(), "json: unknown field "), `"`)
			return &FieldError{Field: name, Problem: "unknown field"}
		}
		return err
	}
	return nil
}

// syntaxError turns a JSON decoding error into one that names the file,
// line and column.
func syntaxError(where string, data []byte, err error) error {
	var off int64 = -1
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		off = se.Offset
	case errors.As(err, &te):
		off = te.Offset
	}
	if off < 0 {
		return fmt.Errorf("config %s: %w", where, err)
	}
	line, col := LineCol(data, off)
	return fmt.Errorf("config %s:%d:%d: %w", where, line, col, err)
}

// LineCol turns a byte offset in data (a JSON decoder's) into a 1-based
// line and column, for errors that name a position in a file.
func LineCol(data []byte, off int64) (line, col int) {
	if off > int64(len(data)) {
		off = int64(len(data))
	}
	before := data[:off]
	line = bytes.Count(before, []byte("\n")) + 1
	col = int(off) - bytes.LastIndexByte(before, '\n')
	return line, col
}

// layerSandbox is the sandbox policy of an entry of layer source that
// replaces prev (when had): only the global config may loosen a policy or
// turn it off. A later layer's policy is tightened against the definition
// it replaces (see [sandbox.Tighten]); a project's server of its own keeps
// its grants (the approval shows them) but not a false.
func layerSandbox(source string, prev ServerEntry, had bool, p *sandbox.Policy) (*sandbox.Policy, []string) {
	if source == SourceGlobal {
		return p, nil
	}
	if had && prev.Err == nil && prev.Config.TransportName() == "stdio" {
		t, warn := sandbox.Tighten(prev.Config.SandboxPolicy(), policyOrDefault(p))
		if t.IsDefault() {
			return nil, warn
		}
		return &t, warn
	}
	if p != nil && p.Off {
		return nil, []string{`"sandbox": false is ignored: only the global config can turn the sandbox off`}
	}
	return p, nil
}

func policyOrDefault(p *sandbox.Policy) sandbox.Policy {
	if p == nil {
		return sandbox.Policy{}
	}
	return *p
}
