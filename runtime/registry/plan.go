package registry

import (
	"errors"
	"fmt"
	"os/exec"
	"regexp"
	"sort"
	"strings"

	"github.com/mcp-host/mcp-host/runtime/config"
)

// KindRemote is the kind of a plan that connects to a remote.
const KindRemote = "remote"

// ErrCannotRun is matched by the error of [Build] when this machine lacks
// what the chosen package needs (docker, uvx, npx, dnx).
var ErrCannotRun = errors.New("this machine cannot run it")

// Options steer [Build].
type Options struct {
	// Use picks a package type (npm, pypi, oci, nuget, mcpb) or "remote";
	// "" means the first package this machine can run, else the first
	// remote.
	Use string
	// Values are what the user supplied (--var NAME=value), keyed by an
	// environment variable's or header's name, a named argument's name
	// without dashes, a positional argument's valueHint, or a variable's
	// name.
	Values map[string]string
	// LookPath finds a program; nil means exec.LookPath.
	LookPath func(string) (string, error)
	// ID is the server id the entry will be written as.
	ID string
}

// Need is a value the entry requires that nobody supplied.
type Need struct {
	Key         string   `json:"key"`
	Description string   `json:"description,omitempty"`
	Choices     []string `json:"choices,omitempty"`
	Placeholder string   `json:"placeholder,omitempty"`
}

// Plan is what the host will run for a registry entry.
type Plan struct {
	Entry Entry `json:"entry"`
	// Kind is the package type used, or "remote".
	Kind string `json:"kind"`
	// Config is the entry to write. For an mcpb package its command is
	// set by [InstallBundle].
	Config config.ServerConfig `json:"config"`
	// Missing lists required values nobody supplied: ask for them (or
	// fail naming them) and build again.
	Missing []Need `json:"missing,omitempty"`
	// Secrets are the environment variables the entry refers to as
	// ${NAME} for a secret: the user sets them where the host runs.
	Secrets []Need `json:"secrets,omitempty"`
	// Runtime is the program the package needs on PATH ("" for a remote).
	Runtime string `json:"runtime,omitempty"`
	// Package is the chosen package (nil for a remote).
	Package *Package `json:"-"`
	// ID is the server id the plan is for, when the caller set it in
	// Options (for Installer.Check).
	ID string `json:"id,omitempty"`
}

// runtimes is the program each package type is run with.
var runtimes = map[string]string{"npm": "npx", "pypi": "uvx", "oci": "docker", "nuget": "dnx"}

// Build turns e into a plan. The values it lacks are in Plan.Missing; a
// package this machine cannot run is [ErrCannotRun], before anything is
// written.
func Build(e Entry, o Options) (*Plan, error) {
	look := o.LookPath
	if look == nil {
		look = exec.LookPath
	}
	s := &e.Server
	var why []string
	for i := range s.Packages {
		p := &s.Packages[i]
		if o.Use != "" && o.Use != p.RegistryType {
			continue
		}
		if p.Transport.Type != "" && p.Transport.Type != "stdio" {
			why = append(why, fmt.Sprintf("%s package: transport %q is not supported (stdio only)", p.RegistryType, p.Transport.Type))
			continue
		}
		rt, known := runtimes[p.RegistryType]
		if !known && p.RegistryType != "mcpb" {
			why = append(why, fmt.Sprintf("package type %q is not supported", p.RegistryType))
			continue
		}
		if p.RegistryType == "mcpb" && p.FileSHA256 == "" {
			why = append(why, fmt.Sprintf("mcpb package %s has no fileSha256: refusing a bundle that cannot be verified", p.Identifier))
			continue
		}
		if rt != "" {
			if _, err := look(rt); err != nil {
				why = append(why, fmt.Sprintf("%s package %s needs %s, which is not on PATH", p.RegistryType, p.Identifier, rt))
				continue
			}
		}
		pl, err := packagePlan(e, p, rt, o.Values)
		if pl != nil {
			pl.ID = o.ID
		}
		return pl, err
	}
	if o.Use == "" || o.Use == KindRemote {
		for i := range s.Remotes {
			if pl, err := remotePlan(e, &s.Remotes[i], o.Values); err == nil {
				pl.ID = o.ID
				return pl, nil
			} else {
				why = append(why, err.Error())
			}
		}
	}
	if len(why) == 0 {
		if o.Use != "" {
			return nil, fmt.Errorf("%s@%s offers no %q (it offers %s)", s.Name, s.Version, o.Use, strings.Join(s.Kinds(), ", "))
		}
		return nil, fmt.Errorf("%s@%s offers no package and no remote", s.Name, s.Version)
	}
	return nil, fmt.Errorf("%s@%s: %s: %w", s.Name, s.Version, strings.Join(why, "; "), ErrCannotRun)
}

// resolver fills inputs from the user's values and defaults, collecting
// what is missing and the secrets turned into ${NAME} references.
type resolver struct {
	values  map[string]string
	missing []Need
	secrets []Need
	seen    map[string]bool
}

var varRef = regexp.MustCompile(`\{([A-Za-z_][A-Za-z0-9_]*)\}`)

// value returns the input's value and whether it has one. A secret
// becomes ${envName} and is listed in r.secrets; its value is never read.
func (r *resolver) value(key, envName string, in Input) (string, bool) {
	if in.Value != "" {
		return varRef.ReplaceAllStringFunc(in.Value, func(m string) string {
			name := m[1 : len(m)-1]
			sub, ok := in.Variables[name]
			if !ok {
				return m
			}
			v, _ := r.value(name, envVarName(name), sub)
			return v
		}), true
	}
	if in.IsSecret {
		if !r.seen[envName] {
			r.seen[envName] = true
			r.secrets = append(r.secrets, Need{Key: envName, Description: in.Description})
		}
		return "${" + envName + "}", true
	}
	if v, ok := r.values[key]; ok {
		return v, true
	}
	if in.Default != "" {
		return in.Default, true
	}
	if in.IsRequired && !r.seen["?"+key] {
		r.seen["?"+key] = true
		r.missing = append(r.missing, Need{Key: key, Description: in.Description, Choices: in.Choices, Placeholder: in.Placeholder})
	}
	return "", false
}

// args renders arguments: a named one as its name then its value, a
// positional one as its value; one without a value is left out.
func (r *resolver) args(list []Argument) []string {
	var out []string
	for i, a := range list {
		switch a.Type {
		case "named":
			key := strings.TrimLeft(a.Name, "-")
			if v, ok := r.value(key, envVarName(key), a.Input); ok {
				out = append(out, a.Name)
				if v != "" {
					out = append(out, v)
				}
			}
		default:
			key := a.ValueHint
			if key == "" {
				key = fmt.Sprintf("arg%d", i+1)
			}
			if v, ok := r.value(key, envVarName(key), a.Input); ok {
				out = append(out, v)
			}
		}
	}
	return out
}

func packagePlan(e Entry, p *Package, rt string, values map[string]string) (*Plan, error) {
	r := &resolver{values: values, seen: map[string]bool{}}
	pl := &Plan{Entry: e, Kind: p.RegistryType, Runtime: rt, Package: p}
	c := &pl.Config
	c.Transport = "stdio"
	env := map[string]string{}
	var envNames []string
	for _, kv := range p.Environment {
		if v, ok := r.value(kv.Name, kv.Name, kv.Input); ok {
			env[kv.Name] = v
			envNames = append(envNames, kv.Name)
		}
	}
	runtimeArgs, packageArgs := r.args(p.RuntimeArguments), r.args(p.PackageArguments)
	switch p.RegistryType {
	case "npm":
		c.Command = "npx"
		c.Args = append(append([]string{"-y"}, runtimeArgs...), joinVersion(p.Identifier, "@", p.Version))
	case "pypi":
		c.Command = "uvx"
		c.Args = append(runtimeArgs, joinVersion(p.Identifier, "==", p.Version))
	case "nuget":
		c.Command = "dnx"
		c.Args = append(runtimeArgs, joinVersion(p.Identifier, "@", p.Version), "--yes")
		if len(packageArgs) > 0 {
			c.Args = append(c.Args, "--")
		}
	case "oci":
		c.Command = "docker"
		c.Args = append([]string{"run", "-i", "--rm"}, runtimeArgs...)
		sort.Strings(envNames)
		for _, n := range envNames {
			c.Args = append(c.Args, "-e", n) // docker hands the container the variable it has
		}
		image := p.Identifier
		if p.Version != "" && !strings.Contains(image[strings.LastIndex(image, "/")+1:], ":") && !strings.Contains(image, "@") {
			image += ":" + p.Version
		}
		c.Args = append(c.Args, image)
	}
	c.Args = append(c.Args, packageArgs...)
	if len(env) > 0 {
		c.Env = env
	}
	pl.Missing, pl.Secrets = r.missing, r.secrets
	pl.Config.Registry = &config.RegistrySource{URL: e.Registry, Name: e.Server.Name, Version: e.Server.Version, Package: p.RegistryType}
	return pl, nil
}

func remotePlan(e Entry, rm *Remote, values map[string]string) (*Plan, error) {
	r := &resolver{values: values, seen: map[string]bool{}}
	pl := &Plan{Entry: e, Kind: KindRemote}
	c := &pl.Config
	switch rm.Type {
	case "streamable-http":
		c.Transport = "http"
	case "sse":
		c.Transport = "sse"
	default:
		return nil, fmt.Errorf("remote transport %q is not supported", rm.Type)
	}
	c.URL, _ = r.value("url", "URL", Input{Value: rm.URL, Variables: rm.Variables})
	for _, h := range rm.Headers {
		if v, ok := r.value(h.Name, envVarName(h.Name), h.Input); ok {
			if c.Headers == nil {
				c.Headers = map[string]string{}
			}
			c.Headers[h.Name] = v
		}
	}
	pl.Missing, pl.Secrets = r.missing, r.secrets
	c.Registry = &config.RegistrySource{URL: e.Registry, Name: e.Server.Name, Version: e.Server.Version, Package: KindRemote}
	return pl, nil
}

func joinVersion(id, sep, version string) string {
	if version == "" {
		return id
	}
	return id + sep + version
}

// envVarName makes an environment variable name of an input's name:
// "X-API-Key" becomes X_API_KEY.
func envVarName(name string) string {
	b := []byte(strings.ToUpper(name))
	for i, c := range b {
		if !(c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_') {
			b[i] = '_'
		}
	}
	if len(b) == 0 || b[0] >= '0' && b[0] <= '9' {
		b = append([]byte("V_"), b...)
	}
	return string(b)
}

// CommandLine renders what a config entry runs or connects to, for the
// user to check before it is written: its environment, the command and
// its arguments (quoted where needed, as a shell would take them), or the
// transport, the URL and the headers.
func CommandLine(c config.ServerConfig) string {
	if c.TransportName() != "stdio" {
		s := c.TransportName() + " " + c.URL
		names := make([]string, 0, len(c.Headers))
		for k := range c.Headers {
			names = append(names, k)
		}
		sort.Strings(names)
		for _, k := range names {
			s += fmt.Sprintf(" -H %q", k+": "+c.Headers[k])
		}
		return s
	}
	var parts []string
	names := make([]string, 0, len(c.Env))
	for k := range c.Env {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		parts = append(parts, k+"="+quote(c.Env[k]))
	}
	parts = append(parts, quote(c.Command))
	for _, a := range c.Args {
		parts = append(parts, quote(a))
	}
	return strings.Join(parts, " ")
}

func quote(s string) string {
	if s != "" && !strings.ContainsAny(s, " \t\n'\"\\$`") {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// UseBundle makes an mcpb plan run the unpacked bundle b: its command,
// its arguments before the package's, and its environment under the
// package's.
func (pl *Plan) UseBundle(b *Bundle) {
	c := &pl.Config
	if c.Registry != nil {
		r := *c.Registry
		r.BundleDir, r.BundleSHA256 = b.Dir, b.SHA256
		c.Registry = &r
	}
	c.Command = b.Command
	c.Args = append(append([]string(nil), b.Args...), c.Args...)
	for k, v := range b.Env {
		if _, set := c.Env[k]; set {
			continue
		}
		if c.Env == nil {
			c.Env = map[string]string{}
		}
		c.Env[k] = v
	}
}
