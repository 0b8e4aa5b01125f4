package process

import (
	"os"
	"runtime"
	"sort"
	"strings"
)

// This file holds the environment allowlist as pure functions of the
// target system's name, so that the Windows rules are tested on every
// platform.
//
// A stdio server is untrusted code: it gets a small base set of the host's
// variables (what programs and their launchers, such as npx, uvx and node,
// need to start: where programs are, the home directory, the locale, the
// temporary directory), the variables its configuration sets ("env") and
// the host's variables it names ("env_vars"). Nothing else: the user's
// API keys and tokens stay with the host.

// unixBase is the base set on every system.
var unixBase = []string{
	"PATH", "HOME", "USER", "LOGNAME", "LANG", "TZ",
	"TMPDIR", "TEMP", "TMP", "SHELL", "TERM",
}

// windowsBase is what Windows adds: the variables a process needs to start
// (SystemRoot for its DLLs, ComSpec for batch files, PATHEXT for lookups)
// and those programs use to find the user's and the system's directories.
var windowsBase = []string{
	"SystemRoot", "SystemDrive", "windir", "ComSpec", "PATHEXT",
	"APPDATA", "LOCALAPPDATA", "USERPROFILE", "USERNAME", "USERDOMAIN", "HOMEDRIVE", "HOMEPATH",
	"PUBLIC", "ALLUSERSPROFILE", "ProgramData",
	"ProgramFiles", "ProgramFiles(x86)", "ProgramW6432",
	"CommonProgramFiles", "CommonProgramFiles(x86)", "CommonProgramW6432",
	"OS", "PROCESSOR_ARCHITECTURE", "PROCESSOR_IDENTIFIER", "PROCESSOR_LEVEL", "PROCESSOR_REVISION",
	"NUMBER_OF_PROCESSORS", "COMPUTERNAME",
}

// localePrefix marks the locale's category variables (LC_ALL, LC_CTYPE, …).
const localePrefix = "LC_"

// key returns how goos compares a variable's name: without case on
// Windows ("Path" is PATH), as written elsewhere.
func key(goos, name string) string {
	if goos == "windows" {
		return strings.ToUpper(name)
	}
	return name
}

// IsBase reports whether the variable name is in the base set a stdio
// server gets on goos (a GOOS value).
func IsBase(goos, name string) bool {
	k := key(goos, name)
	if strings.HasPrefix(k, localePrefix) && len(k) > len(localePrefix) {
		return true
	}
	for _, b := range unixBase {
		if key(goos, b) == k {
			return true
		}
	}
	if goos != "windows" {
		return false
	}
	for _, b := range windowsBase {
		if key(goos, b) == k {
			return true
		}
	}
	return false
}

// entry is one variable of an environment.
type entry struct{ name, value string }

// parse splits "NAME=VALUE" entries (as os.Environ returns them) into a
// map by the name as goos compares it; a later entry wins. Entries without
// a name (Windows' "=C:=C:\dir") are left out.
func parse(goos string, environ []string) map[string]entry {
	out := make(map[string]entry, len(environ))
	for _, kv := range environ {
		name, value, ok := strings.Cut(kv, "=")
		if !ok || name == "" {
			continue
		}
		out[key(goos, name)] = entry{name, value}
	}
	return out
}

// Environ returns the environment a stdio server runs with on goos: the
// base set and the names in envVars, as the host's environment (host, as
// os.Environ returns it) has them, then env on top. It is sorted by name.
func Environ(goos string, host []string, env map[string]string, envVars []string) []string {
	have := parse(goos, host)
	pick := map[string]entry{}
	for k, e := range have {
		if IsBase(goos, e.name) {
			pick[k] = e
		}
	}
	for _, name := range envVars {
		if e, ok := have[key(goos, name)]; ok {
			pick[key(goos, name)] = e
		}
	}
	for name, v := range env {
		pick[key(goos, name)] = entry{name, v}
	}
	out := make([]string, 0, len(pick))
	for _, e := range pick {
		out = append(out, e.name+"="+e.value)
	}
	sort.Strings(out)
	return out
}

// Names says which environment variables a stdio server gets, by name
// only: never their values.
type Names struct {
	// Base are the variables of the base set the host's environment has
	// (and env does not set).
	Base []string `json:"base"`
	// Env are the names the server's "env" sets.
	Env []string `json:"env,omitempty"`
	// EnvVars are the names of "env_vars" the host's environment has (and
	// env does not set): passed through.
	EnvVars []string `json:"env_vars,omitempty"`
	// Unset are the names of "env_vars" the host's environment lacks: the
	// server does not get them.
	Unset []string `json:"unset,omitempty"`
}

// NamesFor says which variables a server with env and envVars gets on goos
// from the host's environment host; see [Environ].
func NamesFor(goos string, host []string, env map[string]string, envVars []string) Names {
	have := parse(goos, host)
	set := map[string]bool{}
	var n Names
	for name := range env {
		set[key(goos, name)] = true
		n.Env = append(n.Env, name)
	}
	listed := map[string]bool{}
	for _, name := range envVars {
		k := key(goos, name)
		if set[k] || listed[k] {
			continue
		}
		listed[k] = true
		if e, ok := have[k]; ok {
			n.EnvVars = append(n.EnvVars, e.name)
		} else {
			n.Unset = append(n.Unset, name)
		}
	}
	for k, e := range have {
		if IsBase(goos, e.name) && !set[k] && !listed[k] {
			n.Base = append(n.Base, e.name)
		}
	}
	for _, s := range [][]string{n.Base, n.Env, n.EnvVars, n.Unset} {
		sort.Strings(s)
	}
	if n.Base == nil {
		n.Base = []string{}
	}
	return n
}

// HostNames says which variables a server with env and envVars gets when
// this host process starts it now (see [NamesFor]).
func HostNames(env map[string]string, envVars []string) Names {
	return NamesFor(runtime.GOOS, os.Environ(), env, envVars)
}

// All returns every name the server gets, sorted.
func (n Names) All() []string {
	out := append(append(append([]string{}, n.Base...), n.Env...), n.EnvVars...)
	sort.Strings(out)
	return out
}

// Hint is the sentence added to the error of a server that failed to start
// or exited early: a variable the server needs may be one it no longer
// gets.
func (n Names) Hint() string {
	s := "the server gets only these environment variables: " + strings.Join(n.All(), ", ")
	if len(n.Unset) > 0 {
		s += " (env_vars names not set in the host's environment: " + strings.Join(n.Unset, ", ") + ")"
	}
	return s + `; pass more from the host's environment with "env_vars": ["NAME", ...] in the server's config, or set them in "env"`
}
