package sandbox

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
)

// wordGrants are the paths the server's own words name: each argument
// (and the value of a "--flag=value" argument) and each env value that is
// an absolute path, "~" or "~/...". The user wrote them for this server,
// so the default policy grants them as the user's intent
// (docs/SANDBOX.md, "The user's own words"):
//
//   - an existing directory: read and write, unless it is too broad to
//     write (the root, the home directory, the temp root, a system
//     directory): then read only;
//   - an existing file: read and write, and its directory too when that
//     is not too broad (a server that keeps a file replaces it through a
//     temporary file beside it: the memory server's MEMORY_FILE_PATH);
//   - a file that does not exist yet: its directory, if it exists and is
//     not too broad;
//   - a path inside an argument that is a whole command line (sh -c
//     "exec /opt/x/server"): read only.
//
// The secret places, the host's own state and the places that run code
// later stay out of these grants as out of any other.
func wordGrants(ctx Context) (reads, writes []string) {
	var words []string
	for _, a := range ctx.Args {
		if strings.ContainsAny(a, " \t\n") {
			// A command line in one argument ("sh", "-c", "exec /opt/x
			// --db /data/x.db"): the paths in it are read, not written.
			for _, f := range strings.Fields(a) {
				f = strings.Trim(f, `'";`)
				if filepath.IsAbs(f) && exists(f) {
					reads = append(reads, filepath.Clean(f))
				}
			}
			continue
		}
		if _, v, ok := strings.Cut(a, "="); ok && strings.HasPrefix(a, "-") {
			a = v
		}
		words = append(words, a)
	}
	keys := make([]string, 0, len(ctx.Env))
	for k := range ctx.Env {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		words = append(words, ctx.Env[k])
	}
	command, _ := filepath.EvalSymlinks(ctx.Command)
	for _, w := range words {
		if !(filepath.IsAbs(w) || w == "~" || strings.HasPrefix(w, "~/")) || strings.Contains(w, "${") {
			continue
		}
		p := absPath(w, ctx)
		if real, err := filepath.EvalSymlinks(p); err == nil && (real == command || installedCode(real)) {
			continue // the server's own program: read only (ownFiles)
		}
		if slices.ContainsFunc(ctx.HostPaths, func(h string) bool { return h != "" && within(p, filepath.Clean(h)) }) {
			continue // the host's own state (installed bundles among it): never a word's
		}
		fi, err := os.Stat(p)
		switch {
		case err == nil && fi.IsDir():
			if tooBroad(p, ctx.Home) {
				reads = append(reads, p)
			} else {
				writes = append(writes, p)
			}
		case err == nil:
			writes = append(writes, p)
			if dir := filepath.Dir(p); !tooBroad(dir, ctx.Home) {
				writes = append(writes, dir)
			}
		default:
			dir := filepath.Dir(p)
			if di, err := os.Stat(dir); err == nil && di.IsDir() && !tooBroad(dir, ctx.Home) {
				writes = append(writes, dir)
			}
		}
	}
	return dedupe(reads), dedupe(writes)
}

// installedCode reports a path inside an installed package (a
// node_modules or Python site-packages tree): a script argument, which
// is code to read, never a place to write.
func installedCode(p string) bool {
	p = filepath.ToSlash(p)
	for _, d := range []string{"/node_modules/", "/site-packages/", "/dist-packages/"} {
		if strings.Contains(p, d) {
			return true
		}
	}
	return false
}

// tooBroad reports a directory no word grants write to: the root, an
// ancestor of home or home itself, the temp root, or a system place.
func tooBroad(dir, home string) bool {
	dir = filepath.Clean(dir)
	if dir == filepath.Dir(dir) || dir == filepath.Clean(os.TempDir()) {
		return true
	}
	if home != "" && within(filepath.Clean(home), dir) {
		return true
	}
	for _, s := range systemReads {
		if within(dir, s) {
			return true
		}
	}
	return false
}

// toolchainPlaces are the places under home where launchers and their
// runtimes live (nvm, volta, fnm, asdf, mise, pyenv, uv's tools and
// Pythons, pip's user site, cargo and rustup, deno, bun, the Playwright
// browsers) and the read-only settings a tool commonly needs: readable by
// every sandboxed server, writable by none. npx's own store (~/.npm) is
// readable, so an installed package runs; a server's npm writes go to
// its private cache (see [LauncherEnv]).
var toolchainPlaces = []string{
	".nvm", ".volta", ".fnm", ".local/share/fnm", ".asdf", ".local/share/mise",
	".pyenv", ".local/share/uv", ".cache/uv", ".local/lib", ".local/bin",
	".cargo/bin", ".rustup", ".deno", ".bun", ".npm", ".cache/ms-playwright",
	".gitconfig", ".config/git/config", ".config/git/ignore",
}

// toolchains returns the toolchain places that exist under home.
func toolchains(home string) []string {
	if home == "" {
		return nil
	}
	var out []string
	for _, t := range toolchainPlaces {
		p := filepath.Join(home, filepath.FromSlash(t))
		if _, err := os.Lstat(p); err == nil {
			out = append(out, p)
		}
	}
	return out
}

// terminals are the terminal devices: a server gets none (it runs in a
// session of its own without a controlling terminal), so it can neither
// write past the host's sanitizer nor read what the user types. Listed
// once per process: the consoles and serial lines are the system's, and
// new pseudo-terminals appear inside /dev/pts, which is closed whole.
var terminals = sync.OnceValue(func() []string {
	var out []string
	for _, g := range []string{"/dev/tty", "/dev/tty[0-9]*", "/dev/ttyS*", "/dev/console", "/dev/ptmx", "/dev/pts", "/dev/vcs*", "/dev/ttys*"} {
		m, _ := filepath.Glob(g)
		out = append(out, m...)
	}
	return out
})

// codePlaces are the entries of a writable directory that run code later,
// outside the sandbox: git's hooks and config (the user's next git
// command, often the shell prompt, runs them), editor tasks, direnv, and
// the project configs of MCP hosts.
var codePlaces = []string{
	".git/hooks", ".git/config", ".gitmodules", ".vscode", ".idea", ".envrc",
	".mcp-host", ".mcp.json", ".cursor", ".claude", ".gemini", ".codex",
}

// exposed lists the code places that exist inside the writable
// directories, down to [exposedDepth] levels (a grant of ~/Developer
// holds its repositories one level down), with a repository's hooks
// directory named by core.hooksPath (husky's .husky/_) when it lies in a
// writable place, and the hooks and config of its submodules (kept in
// .git/modules). Landlock cannot keep them read-only there (a right to
// create files in a directory reaches every directory below it), so the
// helper binds them read-only in a mount namespace of the server's own
// where it can (mountns_linux.go), and the status names them. A write
// grant that names one (".../.git/config") leaves it writable. skip are
// places looked at only at their top (the server's own temp and state).
// partial says the walk stopped at [exposedDirs] directories.
func exposed(writes, skip []string) (out []string, partial bool) {
	add := func(p string) {
		// A grant that names the place (or a path inside it) opens it.
		named := slices.ContainsFunc(writes, func(w string) bool { return within(w, p) })
		if !named && !slices.Contains(out, p) {
			out = append(out, p)
		}
	}
	inWritable := func(p string) bool { return slices.ContainsFunc(writes, func(d string) bool { return within(p, d) }) }
	visited := 0
	var look func(dir string, depth int)
	look = func(dir string, depth int) {
		visited++
		repo := false
		if st, err := os.Lstat(filepath.Join(dir, ".git")); err == nil {
			repo = true
			if st.Mode().IsRegular() {
				add(filepath.Join(dir, ".git")) // "gitdir: <path>": a worktree's or submodule's pointer
			}
		}
		for _, c := range codePlaces {
			if p := filepath.Join(dir, filepath.FromSlash(c)); exists(p) || isLink(p) {
				add(p)
			}
		}
		if h := hooksPath(dir); h != "" && exists(h) && inWritable(h) {
			add(h)
		}
		if repo {
			for _, pattern := range []string{".git/modules/*/hooks", ".git/modules/*/config"} {
				m, _ := filepath.Glob(filepath.Join(dir, pattern))
				for _, p := range m {
					add(p)
				}
			}
		}
		if repo || depth >= exposedDepth || slices.Contains(skip, dir) {
			return // a repository's own tree holds no other (submodules point into .git/modules)
		}
		entries, err := os.ReadDir(dir)
		if err != nil {
			return
		}
		for _, e := range entries {
			if !e.IsDir() || strings.HasPrefix(e.Name(), ".") || e.Name() == "node_modules" {
				continue
			}
			if visited >= exposedDirs {
				partial = true
				return
			}
			look(filepath.Join(dir, e.Name()), depth+1)
		}
	}
	for _, w := range writes {
		if strings.HasPrefix(w, "/dev/") {
			continue
		}
		look(w, 0)
	}
	return out, partial
}

// How far [exposed] looks: three levels (~/src/github.com/org/repo is
// four, so a grant of ~/src/github.com reaches it) and at most 500
// directories, a few milliseconds.
const (
	exposedDepth = 3
	exposedDirs  = 500
)

// hooksPath is core.hooksPath of the repository at w, absolute, or "".
// Git's config syntax is read only as far as this one key needs: the
// [core] section (case-insensitive) and "hooksPath = value", a value
// relative to the working tree; no library of ours reads git config.
func hooksPath(w string) string {
	b, err := os.ReadFile(filepath.Join(w, ".git", "config"))
	if err != nil {
		return ""
	}
	inCore, value := false, ""
	for _, line := range strings.Split(string(b), "\n") {
		line = strings.TrimSpace(line)
		if strings.HasPrefix(line, "[") {
			inCore = strings.EqualFold(strings.TrimSpace(strings.Trim(line, "[]")), "core")
			continue
		}
		k, v, ok := strings.Cut(line, "=")
		if inCore && ok && strings.EqualFold(strings.TrimSpace(k), "hookspath") {
			value = strings.Trim(strings.TrimSpace(v), "\"")
		}
	}
	switch {
	case value == "":
		return ""
	case strings.HasPrefix(value, "~/"):
		home, _ := os.UserHomeDir()
		return filepath.Join(home, value[2:])
	case filepath.IsAbs(value):
		return filepath.Clean(value)
	}
	return filepath.Join(w, value)
}

// LauncherEnv is the environment that sends a server's launcher caches to
// its private state (ctx.StateDir) instead of the user's shared ones,
// which it may only read: a server cannot rewrite code that another
// server, an unconfined one or the user's own npx runs next. A variable
// the server's env already sets is left alone. The directories are made.
// offline (a policy without network) tells npm and uv so, so that a
// launcher that would download fails at once with its own words instead
// of retrying until the start times out.
func LauncherEnv(ctx Context, offline bool) map[string]string {
	if ctx.StateDir == "" {
		return nil
	}
	env := map[string]string{
		"XDG_CACHE_HOME":        filepath.Join(ctx.StateDir, "cache"),
		"npm_config_cache":      filepath.Join(ctx.StateDir, "npm"),
		"UV_CACHE_DIR":          filepath.Join(ctx.StateDir, "cache", "uv"),
		"PIP_CACHE_DIR":         filepath.Join(ctx.StateDir, "cache", "pip"),
		"DENO_DIR":              filepath.Join(ctx.StateDir, "cache", "deno"),
		"BUN_INSTALL_CACHE_DIR": filepath.Join(ctx.StateDir, "cache", "bun"),
	}
	if offline {
		env["npm_config_offline"] = "true"
		env["UV_OFFLINE"] = "1"
	}
	if ctx.Home != "" {
		// Playwright looks for its browsers under XDG_CACHE_HOME.
		if pw := filepath.Join(ctx.Home, ".cache", "ms-playwright"); exists(pw) {
			env["PLAYWRIGHT_BROWSERS_PATH"] = pw
		}
	}
	for k := range env {
		if _, set := ctx.Env[k]; set {
			delete(env, k)
		}
	}
	for _, d := range env {
		if within(d, ctx.StateDir) {
			_ = os.MkdirAll(d, 0o700)
		}
	}
	return env
}

func exists(p string) bool { _, err := os.Stat(p); return err == nil }

// isLink says whether p is a symbolic link.
func isLink(p string) bool {
	st, err := os.Lstat(p)
	return err == nil && st.Mode()&os.ModeSymlink != 0
}
