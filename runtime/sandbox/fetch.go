package sandbox

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
)

// A launcher such as npx downloads the server's package when the server
// starts; a server without network (the strict base) cannot, and npm
// writes its cache even to read it offline. So before such a server's
// first start its packages are installed by npm, with the network,
// without running any of their code (no install scripts), into the
// server's launcher directory (Context.LauncherDir, among the host's own
// state: no server writes it under any policy); the server then runs the
// package's program from there, without npm, reading it and changing
// nothing of it.

// Fetch is the install a server's launcher needs before the server starts
// without network (see [PlanFetch]).
type Fetch struct {
	// Cmd runs npm: it installs Packages into Prefix without install
	// scripts. It is not yet confined: start it under Policy, resolved
	// like the server's. The caller skips it when Record already holds
	// RecordData (an earlier start installed the same packages), and
	// writes that there after it.
	Cmd *exec.Cmd
	// Policy is what the fetch runs under: strict, writing Prefix and its
	// own npm cache, both in the launcher directory, with the network.
	Policy Policy
	// Packages are the package specs npx would install, as the server's
	// arguments name them.
	Packages []string
	// Prefix is where they are installed (<LauncherDir>/prefix).
	Prefix string
	// Record is the file that says what is installed
	// (<LauncherDir>/installed).
	Record string

	program string   // the program npx would run ("" is the first package's)
	args    []string // its arguments
}

// fetchRecord names the file in the launcher directory that records the
// packages installed.
const fetchRecord = "installed"

// PlanFetch returns the install a server that runs command (npx) with args
// under eff needs before it starts, or nil when it needs none: only an npx
// launcher that names its package, only without network, only with a
// launcher directory (ctx.LauncherDir), and not when the server's env names
// its own npm cache. env is the server's environment (npm's offline and cache
// settings are dropped from it for the fetch); host is the host's, from
// which npm gets what it needs to reach the registry ([fetchEnv]).
func PlanFetch(eff *Effective, ctx Context, command string, args, env, host []string) *Fetch {
	if eff == nil || eff.Off || eff.Network != NetworkNone || ctx.LauncherDir == "" {
		return nil
	}
	if !IsNpx(command) {
		return nil
	}
	if _, own := ctx.Env["npm_config_cache"]; own {
		return nil
	}
	pkgs, flags, program, rest := npxCommandLine(args)
	if len(pkgs) == 0 {
		return nil
	}
	f := &Fetch{Packages: pkgs, Prefix: filepath.Join(ctx.LauncherDir, "prefix"), Record: filepath.Join(ctx.LauncherDir, fetchRecord),
		program: program, args: rest}
	cache := filepath.Join(ctx.LauncherDir, "cache")
	npmArgs := append([]string{"install", "--prefix", f.Prefix, "--ignore-scripts", "--no-audit", "--no-fund", "--loglevel=error"}, flags...)
	f.Cmd = exec.Command(filepath.Join(filepath.Dir(command), "npm"), append(npmArgs, pkgs...)...)
	// npm reads the project's .npmrc from --prefix, which no server
	// writes; the install runs there too, not in the server's work
	// directory, which it writes.
	f.Cmd.Dir = f.Prefix
	f.Cmd.Env = fetchEnv(env, host, "npm_config_cache="+cache, "npm_config_update_notifier=false")
	f.Policy = Policy{Base: BaseStrict, Write: []string{f.Prefix, cache}, Network: &Network{Mode: NetworkAll}}
	if rc := filepath.Join(ctx.Home, ".npmrc"); ctx.Home != "" && exists(rc) {
		// The user's npm settings (a private registry, its token): npm
		// reads them, as the user's own npm would; no package code runs
		// here, and the server itself never reads them.
		f.Policy.Read = []string{rc}
	}
	return f
}

// fetchEnv is the install's environment: the server's, with what npm
// needs from the host's to reach the registry as the user's own npm does
// (proxies, extra CA certificates, npm's configuration), without npm's
// offline and cache settings, then set.
func fetchEnv(env, host []string, set ...string) []string {
	out := slices.Clone(env)
	for _, kv := range host {
		k, _, _ := strings.Cut(kv, "=")
		switch strings.ToUpper(k) {
		case "HTTP_PROXY", "HTTPS_PROXY", "NO_PROXY", "NODE_EXTRA_CA_CERTS", "SSL_CERT_FILE", "SSL_CERT_DIR":
			out = append(out, kv)
		default:
			if strings.HasPrefix(strings.ToLower(k), "npm_config_") {
				out = append(out, kv)
			}
		}
	}
	out = slices.DeleteFunc(out, func(kv string) bool {
		k, _, _ := strings.Cut(kv, "=")
		return strings.EqualFold(k, "npm_config_offline") || strings.EqualFold(k, "npm_config_cache")
	})
	return append(out, set...)
}

// Program is the installed program the server runs instead of npx, and
// its arguments: the bin npx would pick (the named command, else the
// first package's only bin or the one named after it). read reads a
// package's manifest (the caller bounds it).
func (f *Fetch) Program(read func(path string) ([]byte, error)) (string, []string, error) {
	name := f.program
	if name == "" {
		var err error
		if name, err = f.defaultBin(read); err != nil {
			return "", nil, err
		}
	}
	bin := filepath.Join(f.Prefix, "node_modules", ".bin", name)
	if _, err := os.Stat(bin); err != nil {
		return "", nil, fmt.Errorf("sandbox: %s installs no program %q: %w", strings.Join(f.Packages, ", "), name, err)
	}
	return bin, f.args, nil
}

// defaultBin is the bin npx runs for the first package: its only one, or
// the one named after the package without its scope.
func (f *Fetch) defaultBin(read func(string) ([]byte, error)) (string, error) {
	pkg := packageName(f.Packages[0])
	data, err := read(filepath.Join(f.Prefix, "node_modules", filepath.FromSlash(pkg), "package.json"))
	if err != nil {
		return "", fmt.Errorf("sandbox: read the manifest of %s: %w", pkg, err)
	}
	var m struct {
		Name string          `json:"name"`
		Bin  json.RawMessage `json:"bin"`
	}
	if err := json.Unmarshal(data, &m); err != nil {
		return "", fmt.Errorf("sandbox: the manifest of %s: %w", pkg, err)
	}
	short := m.Name[strings.LastIndex(m.Name, "/")+1:]
	var one string
	if json.Unmarshal(m.Bin, &one) == nil && one != "" {
		return short, nil
	}
	var bins map[string]string
	_ = json.Unmarshal(m.Bin, &bins)
	if len(bins) == 1 {
		for name := range bins {
			return name, nil
		}
	}
	if _, ok := bins[short]; ok {
		return short, nil
	}
	return "", fmt.Errorf("sandbox: %s has %d programs and none named %q: name one with npx --package %s <program>", pkg, len(bins), short, pkg)
}

// String says what the fetch does, for a status line.
func (f *Fetch) String() string {
	return "npx's " + strings.Join(f.Packages, ", ") + " installed with the network before its first start, without running its code (no install scripts); it runs from its private copy without npm, reading it, changing nothing"
}

// IsNpx reports whether command is npx, the launcher [PlanFetch] installs
// for.
func IsNpx(command string) bool {
	return strings.TrimSuffix(filepath.Base(command), ".cmd") == "npx"
}

// RecordData is what Record holds once the packages are installed.
func (f *Fetch) RecordData() []byte { return []byte(strings.Join(f.Packages, "\n") + "\n") }

// packageName is a package spec's name: "@scope/name@1" is "@scope/name".
func packageName(spec string) string {
	at := strings.LastIndex(spec, "@")
	if at > 0 {
		return spec[:at]
	}
	return spec
}

// npxCommandLine reads an npx command line: the packages it installs
// (each --package, or else its first word that is not a flag), the npm
// configuration flags it carries ("--registry=..."), which the install
// passes on, and the program it runs with that program's arguments
// (program "" is the first package's own).
func npxCommandLine(args []string) (pkgs, flags []string, program string, rest []string) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			i++
			if i >= len(args) {
				return pkgs, flags, "", nil
			}
			if len(pkgs) == 0 {
				return []string{args[i]}, flags, "", args[i+1:]
			}
			return pkgs, flags, args[i], args[i+1:]
		case a == "-p" || a == "--package":
			if i+1 < len(args) {
				pkgs = append(pkgs, args[i+1])
				i++
			}
		case strings.HasPrefix(a, "--package="):
			pkgs = append(pkgs, strings.TrimPrefix(a, "--package="))
		case a == "-c" || a == "--call":
			return nil, nil, "", nil // a shell command line: not read here
		case a == "-y" || a == "--yes" || a == "--no" || a == "-q" || a == "--quiet":
		case strings.HasPrefix(a, "--") && strings.Contains(a, "="):
			flags = append(flags, a)
		case strings.HasPrefix(a, "-"):
			return nil, nil, "", nil // a flag not known here: npx itself must read it
		default:
			if len(pkgs) == 0 {
				return []string{a}, flags, "", args[i+1:]
			}
			return pkgs, flags, a, args[i+1:]
		}
	}
	return nil, nil, "", nil
}
