package sandbox

import (
	"fmt"
	"os"
	"path/filepath"
	goruntime "runtime"
	"slices"
	"strings"
)

// Context is what a policy is resolved against for one server start.
type Context struct {
	// Home is the user's home directory.
	Home string
	// Cwd is the server's working directory (writable under both bases
	// of the default policy; see docs/SANDBOX.md).
	Cwd string
	// TempDir is the server's private temporary directory; TMPDIR points
	// at it.
	TempDir string
	// Command is the resolved executable; Args are its arguments. The
	// strict policy reads the server's own files found through them.
	Command string
	Args    []string
	// HostPaths are the host's own state: global config dir, token file,
	// approvals and permissions, caches. Never readable by a server.
	HostPaths []string
}

// Effective is a policy resolved to absolute paths for one start: what
// the launcher enforces and what the status shows.
type Effective struct {
	// Off is true when the server runs unconfined ("sandbox": false).
	Off bool `json:"off,omitempty"`
	// Base is the policy's base.
	Base string `json:"base"`
	// ReadAll makes the whole filesystem readable except Deny.
	ReadAll bool `json:"read_all,omitempty"`
	// Deny are the secret places ReadAll leaves out.
	Deny []string `json:"deny,omitempty"`
	// Protect are places a broader write grant leaves out (shell
	// start-up files, autostart); Deny places are left out too.
	Protect []string `json:"protect,omitempty"`
	// Read are readable (and executable) paths beyond ReadAll.
	Read []string `json:"read,omitempty"`
	// Write are readable and writable paths.
	Write []string `json:"write,omitempty"`
	// Network is NetworkAll, NetworkNone or NetworkAllow; Allow lists
	// the granted "host:port" pairs.
	Network string   `json:"network"`
	Allow   []string `json:"allow,omitempty"`
	// ProxyPort, when set with NetworkAllow, is the port of the host's
	// filtering proxy for this server (package netproxy): the sandbox
	// grants TCP connect to it alone, and the proxy holds the server to
	// Allow's hosts.
	ProxyPort uint16 `json:"proxy_port,omitempty"`
	// Proxied says, before a start, that the host will run the proxy
	// (the summary says "via proxy"); see [Effective.PlanProxy].
	Proxied bool `json:"-"`
	// Required refuses the start when the policy cannot be enforced.
	Required bool `json:"required,omitempty"`
	// Home, Cwd and TempDir are kept to shorten paths in the summary.
	Home    string `json:"home,omitempty"`
	Cwd     string `json:"cwd,omitempty"`
	TempDir string `json:"tmp,omitempty"`
	// Granted are the policy's own grants, as resolved, for the summary.
	Granted []string `json:"granted,omitempty"`
}

// Resolve turns a policy into the effective one for ctx: the base's
// reads, writes and network, plus the policy's grants.
func Resolve(p Policy, ctx Context) (*Effective, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	eff := &Effective{Off: p.Off, Base: p.BaseName(), Required: p.Required, Home: ctx.Home, Cwd: ctx.Cwd, TempDir: ctx.TempDir}
	if p.Off {
		eff.Network = NetworkAll
		return eff, nil
	}
	abs := func(path string) string { return absPath(path, ctx) }
	var reads, writes []string
	for _, r := range p.Read {
		reads = append(reads, abs(r))
	}
	for _, w := range p.Write {
		writes = append(writes, abs(w))
	}
	eff.Granted = append(append([]string{}, reads...), writes...)

	if ctx.TempDir != "" {
		eff.Write = append(eff.Write, ctx.TempDir)
	}
	eff.Write = append(eff.Write, deviceWrites...)
	switch eff.Base {
	case BaseStrict:
		eff.Network = NetworkNone
		eff.Read = append(eff.Read, systemReads...)
		eff.Read = append(eff.Read, ownFiles(ctx)...)
	default:
		eff.Network = NetworkAll
		eff.ReadAll = true
		if ctx.Cwd != "" {
			eff.Write = append([]string{ctx.Cwd}, eff.Write...)
		}
		eff.Write = append(eff.Write, caches(ctx)...)
	}
	for _, s := range secretPlaces {
		if ctx.Home != "" {
			eff.Deny = append(eff.Deny, filepath.Join(ctx.Home, filepath.FromSlash(s)))
		}
	}
	for _, s := range protectedPlaces {
		if ctx.Home != "" {
			eff.Protect = append(eff.Protect, filepath.Join(ctx.Home, filepath.FromSlash(s)))
		}
	}
	for _, h := range ctx.HostPaths {
		if h != "" {
			eff.Deny = append(eff.Deny, filepath.Clean(h))
		}
	}
	// A secret place reached through a symlink is denied where it
	// really is too.
	for _, d := range slices.Clone(eff.Deny) {
		if real, err := filepath.EvalSymlinks(d); err == nil && real != d {
			eff.Deny = append(eff.Deny, real)
		}
	}
	// A grant that names a secret place itself opens it; a grant of a
	// directory above one (say "~") does not, and a grant inside one
	// opens only what it names.
	eff.Deny = slices.DeleteFunc(eff.Deny, func(d string) bool { return slices.Contains(eff.Granted, d) })
	eff.Protect = slices.DeleteFunc(eff.Protect, func(d string) bool { return slices.Contains(writes, d) })
	eff.Read = append(eff.Read, reads...)
	eff.Write = append(eff.Write, writes...)
	if p.Network != nil {
		eff.Network, eff.Allow = p.Network.Mode, slices.Clone(p.Network.Allow)
	}
	eff.Deny = dedupe(eff.Deny)
	eff.Protect = dedupe(eff.Protect)
	eff.Read = dedupe(eff.Read)
	eff.Write = dedupe(eff.Write)
	return eff, nil
}

// absPath resolves "~", "~/x" and paths relative to the server's cwd.
func absPath(p string, ctx Context) string {
	switch {
	case p == "~":
		return filepath.Clean(ctx.Home)
	case strings.HasPrefix(p, "~/"):
		return filepath.Join(ctx.Home, filepath.FromSlash(p[2:]))
	case filepath.IsAbs(p):
		return filepath.Clean(p)
	default:
		return filepath.Join(ctx.Cwd, p)
	}
}

// caches returns the launcher caches that exist and the ones the server's
// own launcher needs (npx needs ~/.npm, uvx ~/.cache/uv; see
// [PrepareCaches]).
func caches(ctx Context) []string {
	if ctx.Home == "" {
		return nil
	}
	var out []string
	for _, c := range launcherCaches {
		dir := filepath.Join(ctx.Home, filepath.FromSlash(c.dir))
		if _, err := os.Stat(dir); err == nil || slices.Contains(c.launchers, launcherName(ctx.Command)) {
			out = append(out, dir)
		}
	}
	return out
}

// PrepareCaches creates the package caches the server's launcher needs
// (~/.npm for npx, ~/.cache/uv for uvx, ...), which the default policy
// lets it write: a cache that does not exist when the server starts
// cannot be granted, and the server could not create it in the home
// directory it may not write. Errors are left to the launcher to report.
func PrepareCaches(ctx Context) {
	if ctx.Home == "" {
		return
	}
	for _, c := range launcherCaches {
		if slices.Contains(c.launchers, launcherName(ctx.Command)) {
			_ = os.MkdirAll(filepath.Join(ctx.Home, filepath.FromSlash(c.dir)), 0o700)
		}
	}
}

func launcherName(command string) string {
	return strings.TrimSuffix(strings.ToLower(filepath.Base(command)), ".exe")
}

// ownFiles are the server's own files for the strict policy: the
// directory of its executable and of each script argument, widened to the
// whole node_modules tree when the file is inside one (its dependencies
// sit beside it). Directories named in arguments are not granted: the
// user grants those.
func ownFiles(ctx Context) []string {
	var out []string
	add := func(file string) {
		real, err := filepath.EvalSymlinks(file)
		if err != nil {
			return
		}
		fi, err := os.Stat(real)
		if err != nil || fi.IsDir() {
			return
		}
		root := packageRoot(real)
		if broad(root, ctx.Home) {
			root = real // a program lying loose in ~ or /tmp: just itself
		}
		out = append(out, root)
	}
	if ctx.Command != "" {
		add(ctx.Command)
	}
	for _, a := range ctx.Args {
		if strings.HasPrefix(a, "-") {
			continue
		}
		add(absPath(a, ctx))
	}
	return out
}

// broad reports a directory too wide to grant as a program's own files.
func broad(dir, home string) bool {
	dir = filepath.Clean(dir)
	tmp := filepath.Clean(os.TempDir())
	return dir == tmp || dir == filepath.Dir(dir) || (home != "" && within(filepath.Clean(home), dir))
}

// packageRoot is the outermost node_modules directory above file, else
// file's directory.
func packageRoot(file string) string {
	dir := filepath.Dir(file)
	parts := strings.Split(filepath.ToSlash(dir), "/")
	for i, p := range parts {
		if p == "node_modules" {
			return filepath.FromSlash(strings.Join(parts[:i+1], "/"))
		}
	}
	return dir
}

func dedupe(s []string) []string {
	var out []string
	for _, x := range s {
		if x != "" && !slices.Contains(out, x) {
			out = append(out, x)
		}
	}
	return out
}

// Summary says in one line what the server may do: reads, writes,
// network. Paths under home show as ~/..., the cwd as "cwd", the
// temporary directory as "temp".
func (e *Effective) Summary() string {
	if e == nil {
		return "default"
	}
	if e.Off {
		return "off (\"sandbox\": false): reads, writes and network unrestricted"
	}
	var reads string
	if e.ReadAll {
		names := make([]string, 0, 4)
		for _, d := range e.Deny {
			if len(names) == 4 {
				break
			}
			names = append(names, e.short(d))
		}
		more := ""
		if n := len(e.Deny) - len(names); n > 0 {
			more = fmt.Sprintf(", … %d more", n)
		}
		reads = fmt.Sprintf("all but secrets (%s%s)", strings.Join(names, ", "), more)
		if extra := e.listed(e.Granted, e.Read); extra != "" {
			reads += "; granted " + extra
		}
	} else {
		reads = "system, own files"
		if extra := e.listed(e.Granted, e.Read); extra != "" {
			reads += ", " + extra
		}
	}
	var writes []string
	for _, w := range e.Write {
		if strings.HasPrefix(w, "/dev/") {
			continue
		}
		writes = append(writes, e.short(w))
	}
	net := e.Network
	if e.Network == NetworkAllow {
		// Landlock and Seatbelt match the port, not the host; the proxy
		// matches the host.
		net = "only " + strings.Join(e.Allow, ", ") + " (by port: any host on those ports)"
		if e.ProxyPort != 0 || e.Proxied {
			net = "via proxy: " + strings.Join(e.Allow, ", ")
		}
	}
	return fmt.Sprintf("%s: reads %s; writes %s; network %s", e.Base, reads, strings.Join(writes, ", "), net)
}

// listed shortens the entries of paths that are also granted.
func (e *Effective) listed(granted, paths []string) string {
	var out []string
	for _, p := range paths {
		if slices.Contains(granted, p) {
			out = append(out, e.short(p))
		}
	}
	return strings.Join(out, ", ")
}

func (e *Effective) short(p string) string {
	switch {
	case e.Cwd != "" && p == e.Cwd:
		return "cwd"
	case e.TempDir != "" && p == e.TempDir:
		return "temp"
	case e.Home != "" && p == e.Home:
		return "~"
	case e.Home != "" && within(p, e.Home):
		return "~/" + filepath.ToSlash(strings.TrimPrefix(p, e.Home+string(filepath.Separator)))
	}
	return p
}

// PlanProxy marks a host-list policy as one the host will enforce through
// its filtering proxy (package netproxy) on this OS: all but Windows,
// which has no sandbox. It changes the summary only.
func (e *Effective) PlanProxy() {
	e.Proxied = e.Network == NetworkAllow && !e.Off && goruntime.GOOS != "windows"
}
