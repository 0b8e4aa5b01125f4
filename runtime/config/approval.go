package config

import (
	"sort"

	"github.com/mcp-host/mcp-host/runtime/approval"
)

// Definition returns what an approval of the entry is pinned to: its
// transport, command, args, cwd, environment (env and env_vars), sandbox policy, URL and
// header names, as the file wrote them (${VAR} unexpanded, so no secret is
// hashed or shown).
func (e *ServerEntry) Definition() approval.Definition {
	c := &e.Config
	d := approval.Definition{
		Transport: c.TransportName(),
		Command:   c.Command,
		Args:      append([]string(nil), c.Args...),
		Cwd:       c.Cwd,
		URL:       c.URL,
	}
	if len(c.Env) > 0 {
		d.Env = make(map[string]string, len(c.Env))
		for k, v := range c.Env {
			d.Env[k] = v
		}
	}
	d.EnvVars = append([]string(nil), c.EnvVars...)
	if c.Sandbox != nil && !c.Sandbox.IsDefault() {
		d.Sandbox = c.Sandbox.DigestInput()
	}
	for k := range c.Headers {
		d.Headers = append(d.Headers, k)
	}
	sort.Strings(d.Headers)
	return d
}
