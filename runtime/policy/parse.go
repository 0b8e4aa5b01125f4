package policy

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"path"
	"strings"

	"github.com/mcp-host/mcp-host/runtime/config"
)

// decoder reads a policy file keeping the byte offset of every value, so
// that each error names the file and line:column. It keeps the first
// error and goes on decoding the rest, so that forced servers stay known
// (and keep running) whatever else is wrong.
type decoder struct {
	file string
	data []byte
	err  error
}

// member is one key of a JSON object with the offsets of key and value.
type member struct {
	key            string
	keyOff, valOff int64
	val            json.RawMessage
}

// fail records the first error, at byte offset off of the file.
func (d *decoder) fail(off int64, format string, args ...any) {
	if d.err != nil {
		return
	}
	line, col := config.LineCol(d.data, off)
	d.err = fmt.Errorf("managed policy %s:%d:%d: %s", d.file, line, col, fmt.Sprintf(format, args...))
}

// jsonErr records a decoding error of the value at base.
func (d *decoder) jsonErr(base int64, err error) {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		// Offset counts the offending byte itself.
		d.fail(base+max(se.Offset-1, 0), "%v", err)
	case errors.As(err, &te):
		// The value (an object, for a field of a rule or a server) at
		// base; the field is named.
		d.fail(base, "%s must be %s, not a JSON %s", fieldName(te.Field), te.Type, te.Value)
	default:
		d.fail(base, "%v", err)
	}
}

func fieldName(f string) string {
	if f == "" {
		return "the value"
	}
	return fmt.Sprintf("%q", f)
}

// walk reads the JSON value at base (an object when open is '{', an
// array when '['), calling each with every member (arrays: key "").
func (d *decoder) walk(raw json.RawMessage, base int64, open json.Delim, each func(m member)) bool {
	dec := json.NewDecoder(bytes.NewReader(raw))
	tok, err := dec.Token()
	if err != nil {
		d.jsonErr(base, err)
		return false
	}
	if tok != open {
		kind := map[json.Delim]string{'{': "an object", '[': "an array"}[open]
		d.fail(base, "want %s", kind)
		return false
	}
	seen := map[string]bool{}
	for dec.More() {
		m := member{keyOff: base + d.skipIn(raw, dec.InputOffset())}
		if open == '{' {
			tok, err := dec.Token()
			if err != nil {
				d.jsonErr(base, err)
				return false
			}
			m.key, _ = tok.(string)
			if seen[m.key] {
				d.fail(m.keyOff, "duplicate key %q", m.key)
				return false
			}
			seen[m.key] = true
		}
		m.valOff = base + d.skipIn(raw, dec.InputOffset())
		if err := dec.Decode(&m.val); err != nil {
			d.jsonErr(base, err)
			return false
		}
		each(m)
	}
	if _, err := dec.Token(); err != nil {
		d.jsonErr(base, err)
		return false
	}
	return true
}

// skipIn is skip within raw.
func (d *decoder) skipIn(raw []byte, off int64) int64 {
	for off < int64(len(raw)) && strings.IndexByte(" \t\r\n:,", raw[off]) >= 0 {
		off++
	}
	return off
}

// value decodes the value of m strictly into v.
func (d *decoder) value(m member, v any) bool {
	dec := json.NewDecoder(bytes.NewReader(m.val))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		if name, ok := strings.CutPrefix(err.Error(), "json: unknown field "); ok {
			d.fail(m.valOff, "unknown key %s", name)
			return false
		}
		d.jsonErr(m.valOff, err)
		return false
	}
	return true
}

// policy decodes the whole file into p.
func (d *decoder) policy(p *Policy) {
	if len(bytes.TrimSpace(d.data)) == 0 {
		d.fail(0, "the file is empty")
		return
	}
	// json.Unmarshal's syntax errors carry the offset in the whole file
	// (a Decoder's are relative to the value it was reading).
	if err := json.Unmarshal(d.data, new(json.RawMessage)); err != nil {
		d.jsonErr(0, err)
		return
	}
	ok := d.walk(d.data, 0, '{', func(m member) {
		switch m.key {
		case "version":
			var v int
			if d.value(m, &v) && v != 1 {
				d.fail(m.valOff, "version %d is not supported (want 1)", v)
			}
		case "allow":
			p.Allow = d.rules(m)
		case "deny":
			p.Deny = d.rules(m)
		case "servers":
			p.Servers = d.servers(m)
		case "servers_preapproved":
			d.value(m, &p.ServersPreapproved)
		case "user_servers":
			if d.value(m, &p.UserServers) {
				switch p.UserServers {
				case UserServersAllow, UserServersNone, UserServersRegistryOnly:
				default:
					d.fail(m.valOff, `"user_servers" must be "allow", "none" or "registry_only", not %q`, p.UserServers)
				}
			}
		case "registries":
			p.Registries = d.registries(m)
		case "sandbox_required":
			d.value(m, &p.SandboxRequired)
		case "project_servers":
			d.value(m, &p.ProjectServers)
		case "trust":
			d.value(m, &p.Trust)
		case "auto_allow":
			d.value(m, &p.AutoAllow)
		case "tool_deny":
			if d.value(m, &p.ToolDeny) {
				for _, g := range p.ToolDeny {
					if err := checkToolGlob(g); err != nil {
						d.fail(m.valOff, `"tool_deny": %v`, err)
					}
				}
			}
		case "token_store":
			if d.value(m, &p.TokenStore) && p.TokenStore != "keyring" {
				d.fail(m.valOff, `"token_store" can only be "keyring" (tokens never in a file), not %q`, p.TokenStore)
			}
		case "oauth_callback_ports":
			if d.value(m, &p.OAuthCallbackPorts) {
				for _, port := range p.OAuthCallbackPorts {
					if port < 1 || port > 65535 {
						d.fail(m.valOff, `"oauth_callback_ports": %d is not a port number`, port)
					}
				}
			}
		case "start":
			if d.value(m, &p.Start) && p.Start != config.StartEager && p.Start != config.StartLazy {
				d.fail(m.valOff, `"start" must be "eager" or "lazy", not %q`, p.Start)
			}
		case "$comment", "description":
		default:
			d.fail(m.keyOff, "unknown key %q", m.key)
		}
	})
	if !ok && d.err == nil {
		d.fail(0, "not a JSON object")
	}
}

// rules decodes an "allow" or "deny" list.
func (d *decoder) rules(m member) []Rule {
	var out []Rule
	d.walk(m.val, m.valOff, '[', func(e member) {
		var r Rule
		if !d.value(e, &r) {
			return
		}
		switch {
		case r.URL != "" && r.Command != nil, r.URL == "" && r.Command == nil:
			d.fail(e.valOff, `%s[%d]: a rule has exactly one of "url" and "command"`, m.key, len(out))
		case r.URL != "":
			u, err := parseURLPattern(r.URL)
			if err != nil {
				d.fail(e.valOff, "%s[%d]: %v", m.key, len(out), err)
			}
			r.url = u
		case len(r.Command) == 0 || r.Command[0] == "":
			d.fail(e.valOff, `%s[%d]: "command" needs at least the executable`, m.key, len(out))
		}
		out = append(out, r)
	})
	return out
}

// registries decodes "registries": absolute http(s) URLs, kept without a
// trailing slash (as the registry client and the recorded entries spell
// them).
func (d *decoder) registries(m member) []string {
	var in []string
	if !d.value(m, &in) {
		return nil
	}
	out := make([]string, 0, len(in))
	for i, s := range in {
		u, err := url.Parse(s)
		if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" || u.RawQuery != "" || u.Fragment != "" {
			d.fail(m.valOff, `"registries"[%d]: %q is not an http(s) URL of a registry`, i, s)
			continue
		}
		out = append(out, strings.TrimRight(s, "/"))
	}
	return out
}

// servers decodes the servers the organization provides, each as strictly
// as a config file's.
func (d *decoder) servers(m member) map[string]config.ServerConfig {
	out := map[string]config.ServerConfig{}
	d.walk(m.val, m.valOff, '{', func(e member) {
		if err := config.ValidateServerID(e.key); err != nil {
			d.fail(e.keyOff, "servers: %v", err)
			return
		}
		var c config.ServerConfig
		if !d.value(e, &c) {
			return
		}
		if err := c.Validate(); err != nil {
			d.fail(e.valOff, "servers: server %q: %v", e.key, err)
			return
		}
		out[e.key] = c
	})
	return out
}

// checkToolGlob checks a "server/tool" glob.
func checkToolGlob(g string) error {
	srv, tool, ok := strings.Cut(g, "/")
	if !ok || srv == "" || tool == "" {
		return fmt.Errorf("%q: want server/tool (globs, such as */delete_*)", g)
	}
	for _, part := range []string{srv, tool} {
		if _, err := path.Match(part, ""); err != nil {
			return fmt.Errorf("%q: %v", g, err)
		}
	}
	return nil
}
