// Package approval keeps the user's answers about servers that a project
// file defines: a cloned repository's .mcp-host/config.json may name any
// command, so such a server starts only after the user approved exactly
// that definition. An approval is pinned to a digest of the fields that
// decide what runs and where data goes ([Definition]); a changed definition
// asks again.
//
// The package knows nothing of config files or the manager: callers build a
// [Definition] and ask a [Store]. It must not import runtime packages.
package approval

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
)

// A Definition is what an approval is pinned to: the fields of a server
// entry that decide what command runs, with which environment, and where
// requests (and credentials) go. Header and environment values that come
// from ${VAR} are pinned by their literal text in the file, never by their
// expanded values, so no secret is hashed or shown.
type Definition struct {
	Transport string            `json:"transport"`
	Command   string            `json:"command,omitempty"`
	Args      []string          `json:"args,omitempty"`
	Cwd       string            `json:"cwd,omitempty"`
	Env       map[string]string `json:"env,omitempty"`
	// EnvVars are the names of the host's variables the server gets
	// (env_vars): a project that names GITHUB_TOKEN there asks again.
	EnvVars []string `json:"env_vars,omitempty"`
	// Sandbox is the server's sandbox policy as canonical text, "" for
	// the default: a project that loosens it (grants a path, opens the
	// network) asks again.
	Sandbox string `json:"sandbox,omitempty"`
	URL     string `json:"url,omitempty"`
	// Headers are the header names only: values are secrets more often
	// than not and do not change where a request goes.
	Headers []string `json:"headers,omitempty"`
}

// canonical returns the definition with sorted header names, so equal
// definitions encode equally (encoding/json sorts map keys itself).
func (d Definition) canonical() Definition {
	c := d
	c.Headers = append([]string(nil), d.Headers...)
	for i, h := range c.Headers {
		c.Headers[i] = strings.ToLower(h)
	}
	sort.Strings(c.Headers)
	if len(d.EnvVars) > 0 {
		c.EnvVars = append([]string(nil), d.EnvVars...)
		sort.Strings(c.EnvVars)
	}
	return c
}

// Digest is the hex sha256 of the definition's canonical JSON.
func (d Definition) Digest() string {
	b, err := json.Marshal(d.canonical())
	if err != nil {
		// A struct of strings always encodes.
		panic(fmt.Sprintf("approval: encoding a definition: %v", err))
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// Summary lists the definition's fields as "name: value" lines in a fixed
// order, for the question the user answers. Values are the file's literal
// text; callers that print them on a terminal sanitize them first.
func (d Definition) Summary() []string {
	var lines []string
	add := func(k, v string) {
		if v != "" {
			lines = append(lines, k+": "+v)
		}
	}
	add("transport", d.Transport)
	add("command", d.Command)
	if len(d.Args) > 0 {
		b, _ := json.Marshal(d.Args)
		add("args", string(b))
	}
	add("cwd", d.Cwd)
	if len(d.Env) > 0 {
		keys := make([]string, 0, len(d.Env))
		for k := range d.Env {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		parts := make([]string, len(keys))
		for i, k := range keys {
			parts[i] = k + "=" + d.Env[k]
		}
		add("env", strings.Join(parts, " "))
	}
	if len(d.EnvVars) > 0 {
		add("env_vars", strings.Join(d.canonical().EnvVars, ", "))
	}
	add("sandbox", d.Sandbox)
	add("url", d.URL)
	if len(d.Headers) > 0 {
		add("headers", strings.Join(d.canonical().Headers, ", "))
	}
	return lines
}

// Decision is what the store knows about a definition.
type Decision string

// Decisions.
const (
	// Unknown: the user was never asked about this server in this project.
	Unknown Decision = "unknown"
	// Approved: the user approved exactly this definition.
	Approved Decision = "approved"
	// Denied: the user refused exactly this definition.
	Denied Decision = "denied"
	// Changed: the user answered about an earlier definition of this
	// server; this one has not been approved.
	Changed Decision = "changed"
)
