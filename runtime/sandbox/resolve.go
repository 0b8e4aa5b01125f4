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
	// Cwd is the server's working directory (writable under the default
	// policy; see docs/SANDBOX.md).
	Cwd string
	// TempDir is the server's private temporary directory; TMPDIR points
	// at it.
	TempDir string
	// StateDir is the server's private place that outlives a start: its
	// launcher caches (npm's, uv's, pip's, XDG_CACHE_HOME) and its
	// default working directory. Writable under the default policy.
	StateDir string
	// LauncherDir is where the host installs, before a start without
	// network, what the server's launcher would download (see
	// [PlanFetch]). It lies among the host's own state: no server writes
	// it under any policy, so nothing a server once left there can steer
	// an install or change what a strict server runs; the strict base
	// reads it. "" without private state.
	LauncherDir string
	// Command is the resolved executable; Args are its arguments. Both
	// bases read the server's own files found through them, and the
	// default reads (and where it needs, writes) the paths its arguments
	// name: the user's own words.
	Command string
	Args    []string
	// Env is the server's "env" setting: a value that names a path is
	// granted like an argument (MEMORY_FILE_PATH, say).
	Env map[string]string
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
	// Deny are the places no read grant reaches unless it names them:
	// the secret places under home (a second wall behind reads by
	// grant), the host's own state and the terminals.
	Deny []string `json:"deny,omitempty"`
	// Protect are places a broader write grant leaves out (shell
	// start-up files, autostart); Deny places are left out too.
	Protect []string `json:"protect,omitempty"`
	// Read are the readable (and executable) paths.
	Read []string `json:"read,omitempty"`
	// Write are readable and writable paths.
	Write []string `json:"write,omitempty"`
	// Network is NetworkAll, NetworkNone or NetworkAllow; Allow lists
	// the granted "host:port" pairs.
	Network string   `json:"network"`
	Allow   []string `json:"allow,omitempty"`
	// UnixSockets are the pathname UNIX sockets the server may connect to.
	UnixSockets []string `json:"unix_sockets,omitempty"`
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
	// Home, Cwd, TempDir, StateDir and LauncherDir are kept to shorten
	// paths in the summary.
	Home        string `json:"home,omitempty"`
	Cwd         string `json:"cwd,omitempty"`
	TempDir     string `json:"tmp,omitempty"`
	StateDir    string `json:"state,omitempty"`
	LauncherDir string `json:"launcher,omitempty"`
	// Granted are the policy's own grants, as resolved, for the summary.
	Granted []string `json:"granted,omitempty"`
	// Words are the paths granted because the server's own arguments or
	// env name them (see [wordGrants]), for the summary.
	Words []string `json:"words,omitempty"`
	// Exposed are places in a writable grant that run code later outside
	// the sandbox (.git/hooks, .vscode, ...), which Landlock cannot keep
	// read-only inside a writable directory: the status names them.
	Exposed []string `json:"exposed,omitempty"`
	// ExposedPartial says the search for them stopped before the end of
	// the writable places (see [exposed]).
	ExposedPartial bool `json:"exposed_partial,omitempty"`
}

// Resolve turns a policy into the effective one for ctx: the base's
// reads, writes and network, plus the policy's grants. Both bases read by
// grant (the system, the launcher's toolchain, the server's own files);
// the default adds its cwd, its private state and what its arguments and
// env name, and the network.
func Resolve(p Policy, ctx Context) (*Effective, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	eff := &Effective{Off: p.Off, Base: p.BaseName(), Required: p.Required, Home: ctx.Home, Cwd: ctx.Cwd, TempDir: ctx.TempDir, StateDir: ctx.StateDir, LauncherDir: ctx.LauncherDir}
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
	for _, u := range p.UnixSockets {
		eff.UnixSockets = append(eff.UnixSockets, abs(u))
	}
	eff.Granted = append(append([]string{}, reads...), writes...)

	if ctx.TempDir != "" {
		eff.Write = append(eff.Write, ctx.TempDir)
	}
	eff.Write = append(eff.Write, deviceWrites...)
	eff.Read = append(eff.Read, systemReads...)
	eff.Read = append(eff.Read, toolchains(ctx.Home)...)
	eff.Read = append(eff.Read, ownFiles(ctx)...)
	switch eff.Base {
	case BaseStrict:
		eff.Network = NetworkNone
		if ctx.StateDir != "" && ctx.Cwd != "" && within(ctx.Cwd, ctx.StateDir) {
			// Its private work directory (no config named a cwd) holds
			// nothing of the user's.
			eff.Write = append([]string{ctx.Cwd}, eff.Write...)
		}
		if ctx.LauncherDir != "" && exists(ctx.LauncherDir) {
			// Read only: what the host installed for its launcher before
			// it started (see [PlanFetch]).
			eff.Read = append(eff.Read, ctx.LauncherDir)
		}
	default:
		eff.Network = NetworkAll
		if ctx.Cwd != "" {
			eff.Write = append([]string{ctx.Cwd}, eff.Write...)
		}
		if ctx.StateDir != "" {
			eff.Write = append(eff.Write, ctx.StateDir)
		}
		wr, ww := wordGrants(ctx)
		eff.Read = append(eff.Read, wr...)
		eff.Write = append(eff.Write, ww...)
		eff.Words = dedupe(append(append([]string{}, ww...), wr...))
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
	// The system's closed places (about a hundred device nodes), as they
	// are: no symlink to follow.
	eff.Deny = append(eff.Deny, terminals()...)
	eff.Deny = append(eff.Deny, privateRuntime...)
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
	eff.UnixSockets = dedupe(eff.UnixSockets)
	eff.Exposed, eff.ExposedPartial = exposed(eff.Write, []string{eff.TempDir, eff.StateDir})
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
// network, UNIX sockets. The cwd is named with its real path; paths under
// home show as ~/..., the temporary directory as "temp <path>" and the
// server's private state as "private cache <path>": every place with its
// real path, as each view shows it.
func (e *Effective) Summary() string {
	if e == nil {
		return "default"
	}
	if e.Off {
		return "off (\"sandbox\": false): reads, writes, network and sockets unrestricted"
	}
	reads := "system, toolchains, own files"
	var extra []string
	for _, p := range e.Read {
		if slices.Contains(e.Granted, p) || slices.Contains(e.Words, p) || p == e.LauncherDir {
			extra = append(extra, e.named(p))
		}
	}
	if len(extra) > 0 {
		reads += ", " + strings.Join(extra, ", ")
	}
	var writes []string
	for _, w := range e.Write {
		if strings.HasPrefix(w, "/dev/") {
			continue
		}
		if w == e.Cwd && e.Cwd != "" {
			writes = append(writes, "cwd "+e.shortHome(w))
			continue
		}
		writes = append(writes, e.named(w))
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
	sockets := "none"
	if len(e.UnixSockets) > 0 {
		var names []string
		for _, u := range e.UnixSockets {
			names = append(names, e.short(u))
		}
		sockets = strings.Join(names, ", ")
	}
	if len(writes) == 0 {
		writes = []string{"nothing"}
	}
	return fmt.Sprintf("%s: reads %s; writes %s; network %s; UNIX sockets %s", e.Base, reads, strings.Join(writes, ", "), net, sockets)
}

func (e *Effective) short(p string) string {
	switch {
	case e.TempDir != "" && p == e.TempDir:
		return "temp " + e.shortHome(p)
	case e.StateDir != "" && p == e.StateDir:
		return "private cache " + e.shortHome(p)
	case e.LauncherDir != "" && p == e.LauncherDir:
		return "its launcher's install " + e.shortHome(p)
	}
	return e.shortHome(p)
}

// named is short(p), marked when the grant comes from the server's own
// arguments or env rather than its policy.
func (e *Effective) named(p string) string {
	if slices.Contains(e.Words, p) && !slices.Contains(e.Granted, p) {
		return e.short(p) + " (named in its config)"
	}
	return e.short(p)
}

// shortHome writes a path under home as ~/...
func (e *Effective) shortHome(p string) string {
	switch {
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
