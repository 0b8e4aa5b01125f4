package policy

import (
	"fmt"
	"net/url"
	"path"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/mcp-host/mcp-host/runtime/config"
	"github.com/mcp-host/mcp-host/runtime/sandbox"
)

// sandboxed reports whether the stdio server cfg would run confined: its
// sandbox is not turned off ("sandbox": false) and the OS offers one
// (Landlock on Linux, sandbox-exec on macOS; Windows has none).
func sandboxed(cfg *config.ServerConfig) bool {
	ok, _ := sandbox.Available()
	return ok && !cfg.SandboxPolicy().Off
}

// Apply enforces the policy on the effective configuration, in place:
// the servers it provides replace any of the same id and are forced on;
// every other server it forbids gets [config.ServerEntry.Blocked]; each
// entry gets the policy's connect-time check, its tool deny globs, and
// "trust" dropped when the policy turns trust off. lookup expands ${VAR}
// (nil: the process environment) to check what a server will really
// reach; the runtime checks again at connect time. The policy's own
// errors and notes go to eff.Errors.
func (p *Policy) Apply(eff *config.Effective, lookup func(string) (string, bool)) {
	if !p.Active() {
		return
	}
	if p.Err != nil {
		eff.Errors = append(eff.Errors, fmt.Errorf("%w (fail closed: every server the policy does not provide is blocked)", p.Err))
	}
	for _, n := range p.Notes {
		eff.Errors = append(eff.Errors, fmt.Errorf("managed policy: %s", n))
	}
	byID := map[string]int{}
	for i, e := range eff.Servers {
		byID[e.ID] = i
	}
	for _, id := range sortedIDs(p.Servers) {
		e := config.ServerEntry{ID: id, Config: p.Servers[id], Source: config.SourceManaged, Path: p.File, DefinedIn: config.SourceManaged, DefinedPath: p.File}
		e.Config.Enabled = nil
		// A policy that fails closed approves nothing on the user's behalf.
		e.Preapproved = p.ServersPreapproved && p.Err == nil
		if i, ok := byID[id]; ok {
			prev := eff.Servers[i]
			where := prev.DefinedPath
			if where == "" {
				where = "MCP_HOST_SERVERS"
			}
			e.Notes = append(e.Notes, fmt.Sprintf("the organization provides this server (managed policy %s); the definition in %s is ignored", p.File, where))
			eff.Servers[i] = e
			continue
		}
		byID[id] = len(eff.Servers)
		eff.Servers = append(eff.Servers, e)
	}
	sort.Slice(eff.Servers, func(i, j int) bool { return eff.Servers[i].ID < eff.Servers[j].ID })
	for i := range eff.Servers {
		p.applyEntry(&eff.Servers[i], lookup)
	}
}

// Judge returns e as the policy leaves it (blocked or not), for a server
// about to be added: host mcp add refuses a blocked one.
func (p *Policy) Judge(e config.ServerEntry, lookup func(string) (string, bool)) config.ServerEntry {
	if p.Active() {
		p.applyEntry(&e, lookup)
	}
	return e
}

// applyEntry applies the policy to one entry.
func (p *Policy) applyEntry(e *config.ServerEntry, lookup func(string) (string, bool)) {
	e.PolicyRev = p.Rev + p.errText()
	if p.Trust != nil && !*p.Trust && e.Config.Trust {
		e.Config.Trust = false
		e.Notes = append(e.Notes, fmt.Sprintf(`"trust": true is ignored: the managed policy %s sets "trust": false`, p.File))
	}
	if p.AutoAllow != nil && !*p.AutoAllow && e.Config.AutoAllow != "" {
		e.Config.AutoAllow = ""
		e.Notes = append(e.Notes, fmt.Sprintf(`"auto_allow" is ignored: the managed policy %s sets "auto_allow": false`, p.File))
	}
	if p.Start != "" && e.Config.Start != p.Start {
		if e.Config.Start != "" {
			e.Notes = append(e.Notes, fmt.Sprintf(`"start": %q is ignored: the managed policy %s sets "start": %q`, e.Config.Start, p.File, p.Start))
		}
		e.Config.Start = p.Start
	}
	e.DeniedTools = p.toolDeny(e.ID)
	if len(p.OAuthCallbackPorts) > 0 && e.Config.TransportName() != "stdio" && e.Err == nil {
		if o := e.Config.OAuth; o == nil || (o.CallbackPort == 0 && o.RedirectURI == "") {
			// Logins of this server listen on the first allowed port.
			oc := config.OAuthConfig{}
			if o != nil {
				oc = *o
			}
			oc.CallbackPort = p.OAuthCallbackPorts[0]
			e.Config.OAuth = &oc
		}
	}
	entry := *e
	e.Check = func(expanded *config.ServerConfig) *config.PolicyBlock { return p.Check(&entry, expanded) }
	if e.Err != nil {
		// An invalid entry does not run anyway; when the policy forbids
		// it too (a rule that needs no valid definition, or one its
		// definition as written matches), that is what it shows.
		if !e.Forced() {
			e.Blocked = p.Check(e, nil)
		}
		return
	}
	var expanded *config.ServerConfig
	if x, err := e.Config.Expand(lookup); err == nil {
		expanded = &x
	}
	e.Blocked = p.Check(e, expanded)
}

func (p *Policy) errText() string {
	if p.Err == nil {
		return ""
	}
	return p.Err.Error()
}

// Check returns the rule that forbids entry e, or nil. Deny rules are
// matched on the definition as written and, when given, as expanded
// (what it will reach), so a ${VAR} cannot hide a denied URL; allow rules
// must match the expanded form when there is one (else the written one).
// Servers the policy provides pass the allow and deny lists.
func (p *Policy) Check(e *config.ServerEntry, expanded *config.ServerConfig) *config.PolicyBlock {
	if !p.Active() {
		return nil
	}
	block := func(rule, format string, args ...any) *config.PolicyBlock {
		return &config.PolicyBlock{File: p.File, Rule: rule, Reason: fmt.Sprintf(format, args...)}
	}
	raw := &e.Config
	final := raw
	if expanded != nil {
		final = expanded
	}
	if !e.Forced() {
		switch {
		case p.Err != nil:
			return block("unusable policy file", "%v; fail closed: every server the policy does not provide is blocked", p.Err)
		case p.UserServers == UserServersNone:
			return block(`"user_servers": "none"`, "only servers the organization provides may run")
		case p.UserServers == UserServersRegistryOnly:
			if b := p.registryOnly(e); b != nil {
				return b
			}
		}
		switch {
		case p.ProjectServers != nil && !*p.ProjectServers && e.FromProject():
			return block(`"project_servers": false`, "a project file (%s) defines this server", e.DefinedPath)
		}
		// Reasons quote the definition as written: an expanded value may
		// be a secret.
		for i, r := range p.Deny {
			if r.matches(raw, true) {
				return block(fmt.Sprintf("deny[%d] %s", i, r), "%s matches it", describe(raw))
			}
			if expanded != nil && r.matches(expanded, true) {
				return block(fmt.Sprintf("deny[%d] %s", i, r), "%s matches it once its ${VAR} references are expanded", describe(raw))
			}
		}
		if len(p.Allow) > 0 && !slices.ContainsFunc(p.Allow, func(r Rule) bool { return r.matches(final, false) }) {
			how := ""
			if final != raw {
				how = " once its ${VAR} references are expanded"
			}
			return block("allow", "%s matches none of its %d rules%s", describe(raw), len(p.Allow), how)
		}
		if b := p.hostForm(final); b != nil {
			return b
		}
	}
	if p.SandboxRequired && final.TransportName() == "stdio" && !sandboxed(final) {
		return block(`"sandbox_required": true`, "this stdio server would run without a sandbox")
	}
	if port, ok := callbackPort(final); ok && len(p.OAuthCallbackPorts) > 0 && !slices.Contains(p.OAuthCallbackPorts, port) {
		return block(fmt.Sprintf(`"oauth_callback_ports": %v`, p.OAuthCallbackPorts), "its OAuth callback uses port %d", port)
	}
	return nil
}

// hostForm blocks a URL whose host is not ASCII while URL rules exist:
// patterns are written in ASCII (xn--) form, and a Unicode spelling must
// not slip past them.
func (p *Policy) hostForm(c *config.ServerConfig) *config.PolicyBlock {
	if c.TransportName() == "stdio" || !slices.ContainsFunc(append(slices.Clone(p.Allow), p.Deny...), func(r Rule) bool { return r.url != nil }) {
		return nil
	}
	u, err := url.Parse(c.URL)
	if err != nil {
		return nil
	}
	for _, r := range u.Hostname() {
		if r > '~' {
			return &config.PolicyBlock{File: p.File, Rule: "url rules", Reason: "the host is not in ASCII form; write it as xn--… so the policy's URL rules can judge it"}
		}
	}
	return nil
}

// callbackPort is the loopback port a server's OAuth callback uses, when
// its config fixes one.
func callbackPort(c *config.ServerConfig) (int, bool) {
	o := c.OAuth
	switch {
	case o == nil:
		return 0, false
	case o.CallbackPort != 0:
		return o.CallbackPort, true
	case o.RedirectURI != "":
		if u, err := url.Parse(o.RedirectURI); err == nil {
			if n, err := strconv.Atoi(u.Port()); err == nil {
				return n, true
			}
		}
	}
	return 0, false
}

// describe names what a server is, for a reason: its URL or command line.
func describe(c *config.ServerConfig) string {
	if c.TransportName() == "stdio" {
		return fmt.Sprintf("the command line %q", strings.TrimSpace(c.Command+" "+strings.Join(c.Args, " ")))
	}
	return fmt.Sprintf("the URL %q", c.URL)
}

// toolDeny returns the tool globs of "tool_deny" whose server glob
// matches id.
func (p *Policy) toolDeny(id string) []string {
	var out []string
	for _, g := range p.ToolDeny {
		srv, tool, _ := strings.Cut(g, "/")
		if ok, _ := path.Match(srv, id); ok {
			out = append(out, tool)
		}
	}
	return out
}

// ForbidsRemoval returns why the user may not remove or disable server
// id, or nil: the organization provides it.
func (p *Policy) ForbidsRemoval(id string) error {
	if !p.Active() {
		return nil
	}
	if _, ok := p.Servers[id]; ok {
		return fmt.Errorf("server %q is provided by the organization (managed policy %s, \"servers\"): it cannot be removed or disabled", id, p.File)
	}
	return nil
}

// TokenBackend is the token store backend to open for the one requested
// (MCP_HOST_TOKEN_STORE: auto, keyring, file or ""): with "token_store":
// "keyring" always the keyring, never the file fallback, and a note when
// the request is overridden. A policy that fails closed keeps tokens in
// the keyring too.
func (p *Policy) TokenBackend(requested string) (backend, note string) {
	if !p.Active() || (p.TokenStore != "keyring" && p.Err == nil) || requested == "keyring" {
		return requested, ""
	}
	if requested != "" && requested != "auto" {
		note = fmt.Sprintf("MCP_HOST_TOKEN_STORE=%s is ignored: the managed policy %s keeps tokens in the keyring only", requested, p.File)
	}
	return "keyring", note
}

func sortedIDs(m map[string]config.ServerConfig) []string {
	ids := make([]string, 0, len(m))
	for id := range m {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	return ids
}
