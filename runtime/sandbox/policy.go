package sandbox

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// Bases a policy can start from.
const (
	BaseDefault = "default"
	BaseStrict  = "strict"
)

// Network modes.
const (
	NetworkAll   = "all"
	NetworkNone  = "none"
	NetworkAllow = "allow" // only the listed host:port pairs
)

// Policy is a server's "sandbox" setting as a config file writes it:
//
//	"default" | "strict" | false |
//	{"base": "default"|"strict", "filesystem": {"read": [...], "write": [...]},
//	 "network": "all" | "none" | ["host:port", ...],
//	 "unix_sockets": ["/run/x.sock", ...], "required": true}
//
// The zero value is the default policy.
type Policy struct {
	// Off is "sandbox": false: the server runs unconfined. It counts only
	// from the global config (see [Tighten]).
	Off bool
	// Base is BaseDefault or BaseStrict; "" means BaseDefault.
	Base string
	// Read and Write are extra grants: absolute paths, "~" or "~/...", or
	// paths relative to the server's working directory.
	Read, Write []string
	// Network, when set, replaces the base's network rule.
	Network *Network
	// UnixSockets are pathname UNIX sockets the server may connect to
	// (absolute, "~/..." or relative to its cwd); without one it may
	// connect to none outside its own places.
	UnixSockets []string
	// Required refuses to start the server when the OS cannot enforce the
	// policy, instead of starting it unconfined with a status saying so.
	Required bool
}

// Network is the network part of a policy.
type Network struct {
	// Mode is NetworkAll, NetworkNone or NetworkAllow.
	Mode string
	// Allow lists "host:port" pairs for NetworkAllow.
	Allow []string
}

// BaseName returns the base, BaseDefault when unset.
func (p Policy) BaseName() string {
	if p.Base == "" {
		return BaseDefault
	}
	return p.Base
}

// IsDefault reports a policy that says nothing beyond the default.
func (p Policy) IsDefault() bool {
	return !p.Off && p.BaseName() == BaseDefault && len(p.Read) == 0 && len(p.Write) == 0 && p.Network == nil && len(p.UnixSockets) == 0 && !p.Required
}

// policyObject is the object form on the wire.
type policyObject struct {
	Base       string          `json:"base,omitempty"`
	Filesystem *filesystemJSON `json:"filesystem,omitempty"`
	Network    json.RawMessage `json:"network,omitempty"`
	Unix       []string        `json:"unix_sockets,omitempty"`
	Required   bool            `json:"required,omitempty"`
}

type filesystemJSON struct {
	Read  []string `json:"read,omitempty"`
	Write []string `json:"write,omitempty"`
}

// UnmarshalJSON reads every form of the setting; errors name the field
// ("sandbox.network", "sandbox.filesystem.read[1]", ...).
func (p *Policy) UnmarshalJSON(data []byte) error {
	*p = Policy{}
	data = bytes.TrimSpace(data)
	switch {
	case bytes.Equal(data, []byte("false")):
		p.Off = true
		return nil
	case bytes.Equal(data, []byte("true")), bytes.Equal(data, []byte("null")):
		return nil
	case len(data) > 0 && data[0] == '"':
		var s string
		if err := json.Unmarshal(data, &s); err != nil {
			return fmt.Errorf("sandbox: %w", err)
		}
		if s != BaseDefault && s != BaseStrict {
			return fmt.Errorf(`sandbox: want "default", "strict", false or an object, got %q`, s)
		}
		p.Base = s
		return nil
	case len(data) > 0 && data[0] == '{':
	default:
		return fmt.Errorf(`sandbox: want "default", "strict", false or an object, got %s`, clip(data))
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var o policyObject
	if err := dec.Decode(&o); err != nil {
		if name, ok := strings.CutPrefix(err.Error(), "json: unknown field "); ok {
			return fmt.Errorf("sandbox: unknown field %s", name)
		}
		return fmt.Errorf("sandbox: %w", err)
	}
	if o.Base != "" && o.Base != BaseDefault && o.Base != BaseStrict {
		return fmt.Errorf(`sandbox.base: want "default" or "strict", got %q`, o.Base)
	}
	p.Base, p.Required, p.UnixSockets = o.Base, o.Required, o.Unix
	if o.Filesystem != nil {
		p.Read, p.Write = o.Filesystem.Read, o.Filesystem.Write
	}
	if len(o.Network) > 0 {
		n, err := parseNetwork(o.Network)
		if err != nil {
			return err
		}
		p.Network = n
	}
	return p.Validate()
}

func parseNetwork(raw json.RawMessage) (*Network, error) {
	var s string
	if err := json.Unmarshal(raw, &s); err == nil {
		if s != NetworkAll && s != NetworkNone {
			return nil, fmt.Errorf(`sandbox.network: want "all", "none" or a list of "host:port", got %q`, s)
		}
		return &Network{Mode: s}, nil
	}
	var list []string
	if err := json.Unmarshal(raw, &list); err != nil {
		return nil, fmt.Errorf(`sandbox.network: want "all", "none" or a list of "host:port", got %s`, clip(raw))
	}
	return &Network{Mode: NetworkAllow, Allow: list}, nil
}

// Validate checks the paths and network entries; errors name the field.
func (p Policy) Validate() error {
	for field, paths := range map[string][]string{"read": p.Read, "write": p.Write} {
		for i, path := range paths {
			if strings.TrimSpace(path) == "" || strings.ContainsRune(path, 0) {
				return fmt.Errorf("sandbox.filesystem.%s[%d]: empty or invalid path %q", field, i, path)
			}
		}
	}
	for i, path := range p.UnixSockets {
		if strings.TrimSpace(path) == "" || strings.ContainsRune(path, 0) {
			return fmt.Errorf("sandbox.unix_sockets[%d]: empty or invalid path %q", i, path)
		}
	}
	if p.Network != nil && p.Network.Mode == NetworkAllow {
		for i, hp := range p.Network.Allow {
			if _, _, err := splitHostPort(hp); err != nil {
				return fmt.Errorf("sandbox.network[%d]: %w", i, err)
			}
		}
	}
	return nil
}

// splitHostPort parses "host:port" ("*.example.com:443" allowed). The
// port "*" (any port of that host, which only the proxy can enforce) is
// port 0.
func splitHostPort(hp string) (string, uint16, error) {
	host, port, err := net.SplitHostPort(hp)
	if err != nil || host == "" {
		return "", 0, fmt.Errorf(`want "host:port", got %q`, hp)
	}
	if port == "*" {
		return host, 0, nil
	}
	n, err := strconv.ParseUint(port, 10, 16)
	if err != nil || n == 0 {
		return "", 0, fmt.Errorf("bad port in %q", hp)
	}
	return host, uint16(n), nil
}

// MarshalJSON writes the shortest form: false, "default", "strict" or the object.
func (p Policy) MarshalJSON() ([]byte, error) {
	if p.Off {
		return []byte("false"), nil
	}
	if len(p.Read) == 0 && len(p.Write) == 0 && p.Network == nil && len(p.UnixSockets) == 0 && !p.Required {
		return json.Marshal(p.BaseName())
	}
	o := policyObject{Base: p.Base, Required: p.Required, Unix: p.UnixSockets}
	if len(p.Read) > 0 || len(p.Write) > 0 {
		o.Filesystem = &filesystemJSON{Read: p.Read, Write: p.Write}
	}
	if p.Network != nil {
		var err error
		if p.Network.Mode == NetworkAllow {
			o.Network, err = json.Marshal(p.Network.Allow)
		} else {
			o.Network, err = json.Marshal(p.Network.Mode)
		}
		if err != nil {
			return nil, fmt.Errorf("sandbox.network: %w", err)
		}
	}
	return json.Marshal(o)
}

// DigestInput is a stable text of the policy for the project-approval
// digest: equal policies give equal text (grants sorted), so a changed
// policy asks again.
func (p Policy) DigestInput() string {
	c := p
	c.Read = sortedCopy(p.Read)
	c.Write = sortedCopy(p.Write)
	c.UnixSockets = sortedCopy(p.UnixSockets)
	if p.Network != nil {
		n := *p.Network
		n.Allow = sortedCopy(n.Allow)
		c.Network = &n
	}
	b, err := c.MarshalJSON()
	if err != nil {
		return "invalid"
	}
	return string(b)
}

// Tighten merges a project layer's policy over the global layer's for the
// same server: the project can only tighten. Its false is ignored (a
// warning is returned), the stricter base wins, its grants count only where
// a global grant already covers them, the stricter network wins, and
// required from either layer holds.
func Tighten(global, project Policy) (Policy, []string) {
	var warn []string
	if project.Off {
		warn = append(warn, `"sandbox": false in a project file is ignored: only the global config can turn the sandbox off`)
		project = Policy{}
	}
	if global.Off {
		return project, warn
	}
	out := Policy{Required: global.Required || project.Required}
	out.Base = BaseDefault
	if global.BaseName() == BaseStrict || project.BaseName() == BaseStrict {
		out.Base = BaseStrict
	}
	out.Read = covered(project.Read, append(append([]string{}, global.Read...), global.Write...))
	out.Write = covered(project.Write, global.Write)
	out.UnixSockets = covered(project.UnixSockets, global.UnixSockets)
	out.Network = tighterNetwork(networkOf(global), networkOf(project))
	if out.Network.Mode == networkOf(out).Mode && out.Network.Mode != NetworkAllow {
		out.Network = nil // the base's own
	}
	dropped := append(notCovered(project.Read, append(append([]string{}, global.Read...), global.Write...)), notCovered(project.Write, global.Write)...)
	for _, dropped := range append(dropped, notCovered(project.UnixSockets, global.UnixSockets)...) {
		warn = append(warn, fmt.Sprintf("sandbox grant %q in a project file is ignored: the global config does not grant it", dropped))
	}
	return out, warn
}

// networkOf is p's network rule, its base's when it sets none.
func networkOf(p Policy) *Network {
	switch {
	case p.Network != nil:
		return p.Network
	case p.BaseName() == BaseStrict:
		return &Network{Mode: NetworkNone}
	}
	return &Network{Mode: NetworkAll}
}

// tighterNetwork returns the stricter of two network rules.
func tighterNetwork(a, b *Network) *Network {
	switch {
	case a.Mode == NetworkNone || b.Mode == NetworkNone:
		return &Network{Mode: NetworkNone}
	case a.Mode == NetworkAll:
		return b
	case b.Mode == NetworkAll:
		return a
	}
	var both []string
	for _, x := range b.Allow {
		if coversPair(a.Allow, x) {
			both = append(both, x)
		}
	}
	for _, x := range a.Allow {
		if !slices.Contains(both, x) && coversPair(b.Allow, x) {
			both = append(both, x)
		}
	}
	if len(both) == 0 {
		return &Network{Mode: NetworkNone}
	}
	return &Network{Mode: NetworkAllow, Allow: both}
}

// coversPair reports whether a "host:port" list admits the pair x: the
// same entry, or "host:*" for x's host.
func coversPair(list []string, x string) bool {
	if slices.Contains(list, x) {
		return true
	}
	host, _, err := splitHostPort(x)
	if err != nil {
		return false
	}
	return slices.ContainsFunc(list, func(e string) bool {
		h, port, err := splitHostPort(e)
		return err == nil && port == 0 && strings.EqualFold(h, host)
	})
}

func covered(paths, by []string) []string {
	var out []string
	for _, p := range paths {
		if coveredBy(p, by) {
			out = append(out, p)
		}
	}
	return out
}

func notCovered(paths, by []string) []string {
	var out []string
	for _, p := range paths {
		if !coveredBy(p, by) {
			out = append(out, p)
		}
	}
	return out
}

// coveredBy compares paths as written (both layers resolve them the
// same way), each cleaned first: "~/projects/../.ssh" is "~/.ssh", which
// a grant of "~/projects" does not cover. A relative path that climbs out
// of the cwd is covered by nothing but a grant that climbs as far.
func coveredBy(p string, by []string) bool {
	p = path.Clean(filepath.ToSlash(p))
	for _, b := range by {
		if within(p, path.Clean(filepath.ToSlash(b))) {
			return true
		}
	}
	return false
}

// within reports p == dir or p under dir (slash-separated, cleaned paths).
func within(p, dir string) bool {
	if dir == "" {
		return false
	}
	if p == dir || dir == "/" {
		return true
	}
	return strings.HasPrefix(p, dir+"/") || strings.HasPrefix(p, dir+`\`)
}

func sortedCopy(s []string) []string {
	if len(s) == 0 {
		return nil
	}
	c := append([]string(nil), s...)
	slices.Sort(c)
	return c
}

func clip(b []byte) string {
	if len(b) > 40 {
		return string(b[:40]) + "…"
	}
	return string(b)
}
