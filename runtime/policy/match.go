package policy

import (
	"fmt"
	"net/url"
	"path"
	"strconv"
	"strings"

	"github.com/mcp-host/mcp-host/runtime/config"
)

// urlPattern is a parsed {"url": …} rule: scheme, host (each label may
// hold '*', which matches within that label), port ("" for the scheme's
// default, "*" for any) and path (a prefix when it ends in '*'; any path
// when the pattern has none).
type urlPattern struct {
	scheme  string
	labels  []string
	port    string
	path    string
	prefix  bool
	anyPath bool
}

// parseURLPattern parses a rule's URL pattern; an error says what is wrong
// with it.
func parseURLPattern(s string) (*urlPattern, error) {
	scheme, rest, ok := strings.Cut(s, "://")
	if !ok {
		return nil, fmt.Errorf("URL pattern %q: want scheme://host[:port][/path]", s)
	}
	p := &urlPattern{scheme: strings.ToLower(scheme)}
	if p.scheme != "http" && p.scheme != "https" {
		return nil, fmt.Errorf("URL pattern %q: scheme must be http or https", s)
	}
	if strings.ContainsAny(rest, "?#@\\ ") {
		return nil, fmt.Errorf("URL pattern %q: no query, fragment, userinfo, backslash or space", s)
	}
	hostport, pth := rest, ""
	if i := strings.IndexByte(rest, '/'); i >= 0 {
		hostport, pth = rest[:i], rest[i:]
	}
	host := hostport
	if strings.HasPrefix(hostport, "[") {
		end := strings.IndexByte(hostport, ']')
		if end < 0 {
			return nil, fmt.Errorf("URL pattern %q: unclosed [ in host", s)
		}
		host = hostport[:end+1]
		if after := hostport[end+1:]; after != "" {
			if !strings.HasPrefix(after, ":") {
				return nil, fmt.Errorf("URL pattern %q: unexpected %q after host", s, after)
			}
			p.port = after[1:]
		}
	} else if h, port, ok := strings.Cut(hostport, ":"); ok {
		host, p.port = h, port
	}
	if host == "" {
		return nil, fmt.Errorf("URL pattern %q: no host", s)
	}
	for _, r := range host {
		if r > '~' {
			return nil, fmt.Errorf("URL pattern %q: write the host in its ASCII (xn--) form", s)
		}
	}
	p.labels = strings.Split(strings.TrimSuffix(strings.ToLower(host), "."), ".")
	for _, l := range p.labels {
		if l == "" {
			return nil, fmt.Errorf("URL pattern %q: empty label in host", s)
		}
	}
	if p.port != "" && p.port != "*" {
		if n, err := strconv.Atoi(p.port); err != nil || n < 1 || n > 65535 {
			return nil, fmt.Errorf("URL pattern %q: port must be a number from 1 to 65535 or *", s)
		}
	}
	switch {
	case pth == "" || pth == "/*":
		p.anyPath = true
	case strings.HasSuffix(pth, "*"):
		p.path, p.prefix = strings.TrimSuffix(pth, "*"), true
	default:
		p.path = pth
	}
	if strings.Contains(p.path, "*") {
		return nil, fmt.Errorf("URL pattern %q: '*' may only end the path", s)
	}
	return p, nil
}

// defaultPort is the port a URL of scheme uses when it names none.
func defaultPort(scheme string) string {
	if scheme == "https" {
		return "443"
	}
	return "80"
}

// match reports whether the URL raw matches. With anyForm (deny rules) a
// path matches when any of its forms does (as written, decoded, with dot
// segments removed); without it (allow rules) all of them must. A URL
// that does not parse matches nothing.
func (p *urlPattern) match(raw string, anyForm bool) bool {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return false
	}
	scheme := strings.ToLower(u.Scheme)
	if scheme != p.scheme {
		return false
	}
	port := u.Port()
	if port == "" {
		port = defaultPort(scheme)
	}
	want := p.port
	if want == "" {
		want = defaultPort(p.scheme)
	}
	if want != "*" && want != port {
		return false
	}
	host := strings.TrimSuffix(strings.ToLower(u.Hostname()), ".")
	if strings.Contains(u.Host, "[") {
		host = "[" + host + "]"
	}
	labels := strings.Split(host, ".")
	if len(labels) != len(p.labels) {
		return false
	}
	for i, l := range p.labels {
		if !wild(l, labels[i]) {
			return false
		}
	}
	if p.anyPath {
		return true
	}
	forms := []string{u.EscapedPath(), u.Path, cleanPath(u.Path)}
	for _, f := range forms {
		if f == "" {
			f = "/"
		}
		ok := f == p.path || (p.prefix && strings.HasPrefix(f, p.path))
		if ok && anyForm {
			return true
		}
		if !ok && !anyForm {
			return false
		}
	}
	return !anyForm
}

// cleanPath removes dot segments and doubled slashes, keeping a final
// slash.
func cleanPath(p string) string {
	if p == "" {
		return "/"
	}
	c := path.Clean("/" + p)
	if strings.HasSuffix(p, "/") && c != "/" {
		c += "/"
	}
	return c
}

// wild matches s against pattern, where each '*' stands for any run of
// characters (none a dot, as callers match one host label at a time).
func wild(pattern, s string) bool {
	star := strings.IndexByte(pattern, '*')
	if star < 0 {
		return pattern == s
	}
	if !strings.HasPrefix(s, pattern[:star]) {
		return false
	}
	rest := pattern[star+1:]
	for i := star; i <= len(s); i++ {
		if wild(rest, s[i:]) {
			return true
		}
	}
	return false
}

// matchCommand reports whether the command line (exe, args) matches the
// pattern: the same number of arguments, each equal, or "*" for any one.
// With anyForm (deny rules) a pattern executable without a directory also
// matches a path to an executable of that name (npx matches
// /usr/local/bin/npx and npx.cmd), so a path does not slip past a deny;
// for allow rules the executable must be as written.
func matchCommand(pattern []string, exe string, args []string, anyForm bool) bool {
	if len(pattern) != len(args)+1 {
		return false
	}
	if !sameExe(pattern[0], exe, anyForm) {
		return false
	}
	for i, a := range args {
		if p := pattern[i+1]; p != "*" && p != a {
			return false
		}
	}
	return true
}

func sameExe(pattern, exe string, anyForm bool) bool {
	if pattern == "*" || pattern == exe {
		return true
	}
	if !anyForm || strings.ContainsAny(pattern, `/\`) {
		return false
	}
	base := exe
	if i := strings.LastIndexAny(base, `/\`); i >= 0 {
		base = base[i+1:]
	}
	lower := strings.ToLower(base)
	for _, ext := range []string{".exe", ".cmd", ".bat", ".com"} {
		if strings.HasSuffix(lower, ext) {
			base = base[:len(base)-len(ext)]
			break
		}
	}
	// Deny rules err on the side of matching: names differ only in case
	// on Windows and macOS.
	return strings.EqualFold(base, pattern)
}

// matches reports whether the rule matches the server definition cfg.
func (r *Rule) matches(cfg *config.ServerConfig, anyForm bool) bool {
	switch {
	case r.url != nil:
		return cfg.TransportName() != "stdio" && r.url.match(cfg.URL, anyForm)
	case r.Command != nil:
		return cfg.TransportName() == "stdio" && matchCommand(r.Command, cfg.Command, cfg.Args, anyForm)
	}
	return false
}
