package config

import (
	"errors"
	"fmt"
	"net/url"
	"os"
	"path"
	"regexp"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/mcp-host/mcp-host/runtime/sandbox"
)

// File is one configuration file: {"version": 1, "mcp": {"servers": {...}}}.
type File struct {
	Version int        `json:"version"`
	MCP     MCPSection `json:"mcp"`
}

// MCPSection holds the servers of a [File], keyed by server id.
type MCPSection struct {
	Servers map[string]*ServerConfig `json:"servers"`
}

// ServerConfig is one server entry. The zero value of each field means its
// default.
type ServerConfig struct {
	// Transport is "http" (Streamable HTTP), "sse" (legacy 2024-11-05) or
	// "stdio". Empty means stdio when Command is set, else http.
	Transport string `json:"transport,omitempty"`
	// Enabled turns the server off when false; nil means on.
	Enabled *bool `json:"enabled,omitempty"`

	URL     string            `json:"url,omitempty"`
	Headers map[string]string `json:"headers,omitempty"`

	Command string   `json:"command,omitempty"`
	Args    []string `json:"args,omitempty"`
	Cwd     string   `json:"cwd,omitempty"`
	// Env sets variables for a stdio server. The server does not get the
	// host's whole environment, only a base set (PATH, HOME, the locale,
	// the temp directory, and on Windows what processes need to start),
	// Env, and the host's variables EnvVars names.
	Env map[string]string `json:"env,omitempty"`
	// EnvVars names variables of the host's environment a stdio server
	// gets as they are (passthrough by name, such as "GITHUB_TOKEN"); a
	// name the environment lacks is left out.
	EnvVars []string `json:"env_vars,omitempty"`
	// Sandbox confines a stdio server: "default", "strict", false or an
	// object of grants (see package sandbox); nil is the default policy.
	// A project file can only tighten it (see [Load]).
	Sandbox *sandbox.Policy `json:"sandbox,omitempty"`

	RequestTimeoutMS int `json:"request_timeout_ms,omitempty"`
	// TaskTimeoutMS bounds a tool call the server runs as a task (SEP-2663),
	// from the call to the task's end; 0 means the session default (30
	// minutes). Expiry cancels the task.
	TaskTimeoutMS int `json:"task_timeout_ms,omitempty"`
	// MaxResponseBytes caps any one answer (or stdio line) the server
	// sends, counted after decompression; 0 means the session default
	// (32 MiB). A call whose answer is larger fails with an error naming
	// the cap.
	MaxResponseBytes int    `json:"max_response_bytes,omitempty"`
	StartupTimeoutMS int    `json:"startup_timeout_ms,omitempty"`
	ProtocolVersion  string `json:"protocol_version,omitempty"`

	IncludeTools []string `json:"include_tools,omitempty"`
	ExcludeTools []string `json:"exclude_tools,omitempty"`

	OAuth *OAuthConfig `json:"oauth,omitempty"`
	// Trust skips the confirm prompt for this server's tools. Only an
	// explicit true in a config file turns it on.
	Trust bool `json:"trust,omitempty"`
	// PromptsToModel keeps the model's prompt tools (mcp_prompts_list,
	// mcp_prompt_get) for this server when the UI offers its prompts to
	// the user: nil means true for a UI that does not offer prompts, false
	// for one that does (MCP prompts are the user's to pick).
	PromptsToModel *bool `json:"prompts_to_model,omitempty"`
	// AutoAllow set to "read_only" lets the server's tools that claim
	// readOnlyHint: true and openWorldHint: false run without a question.
	// Only the global config may set it (see [ServerEntry.AutoAllowReadOnly]).
	AutoAllow string `json:"auto_allow,omitempty"`
	// Instructions set to false leaves the server's instructions out of
	// the model's context; nil or true puts them in.
	Instructions *bool `json:"instructions,omitempty"`
	// MaxOutputTokens overrides the output budget of the server's tool
	// results, in estimated model tokens; 0 means the host's default.
	MaxOutputTokens int `json:"max_output_tokens,omitempty"`
	// Start is "eager" (connect when the host starts) or "lazy" (offer the
	// kept catalog and start on first use); "" means lazy for stdio, eager
	// for http and sse (see [ServerConfig.StartMode]).
	Start string `json:"start,omitempty"`
	// IdleTimeoutMS stops a lazy server after this long without calls
	// or watchers; nil means DefaultIdleTimeout, 0 never.
	IdleTimeoutMS *int `json:"idle_timeout_ms,omitempty"`
	// Registry records where an entry added with "host mcp add
	// --from-registry" came from, so "host mcp update" can offer a newer
	// version. It never changes what runs: the command line or URL does.
	Registry *RegistrySource `json:"registry,omitempty"`
}

// RegistrySource names the MCP registry entry a server was installed from.
type RegistrySource struct {
	// URL is the registry's base URL (https://registry.modelcontextprotocol.io).
	URL string `json:"url"`
	// Name is the server's registry name (io.github.owner/server).
	Name string `json:"name"`
	// Version is the installed version of that entry.
	Version string `json:"version"`
	// Package is what was installed: a package type (npm, pypi, oci,
	// nuget, mcpb) or "remote".
	Package string `json:"package,omitempty"`
	// BundleDir and BundleSHA256 are an mcpb bundle's unpacked directory
	// and its tree digest at install time, checked before each start.
	BundleDir    string `json:"bundle_dir,omitempty"`
	BundleSHA256 string `json:"bundle_sha256,omitempty"`
}

// AutoAllowReadOnly is the one value "auto_allow" takes.
const AutoAllowReadOnly = "read_only"

// WantsInstructions reports whether the server's instructions go into the
// model's context ("instructions" unset or true).
func (c *ServerConfig) WantsInstructions() bool { return c.Instructions == nil || *c.Instructions }

// OAuthConfig overrides and extends what OAuth discovery finds.
type OAuthConfig struct {
	ClientID          string `json:"client_id,omitempty"`
	ClientSecret      string `json:"client_secret,omitempty"`
	Scope             string `json:"scope,omitempty"`
	AuthorizationURL  string `json:"authorization_url,omitempty"`
	TokenURL          string `json:"token_url,omitempty"`
	RegistrationURL   string `json:"registration_url,omitempty"`
	RedirectURI       string `json:"redirect_uri,omitempty"`
	CallbackPort      int    `json:"callback_port,omitempty"`
	ClientMetadataURL string `json:"client_metadata_url,omitempty"`
	// Resource overrides the RFC 8707 resource; a pointer to "" omits it.
	Resource *string `json:"resource,omitempty"`
	// DPoP: true requires DPoP-bound tokens, false never uses them, unset
	// uses them where the authorization server offers them.
	DPoP *bool `json:"dpop,omitempty"`
	// AllowPrivateAddresses lets OAuth discovery for a server on a public
	// address fetch metadata and use endpoints on loopback, link-local or
	// private addresses (a company's internal authorization server). Off,
	// such URLs are refused: a hostile server could otherwise point the
	// host at the user's own machine.
	AllowPrivateAddresses bool   `json:"allow_private_addresses,omitempty"`
	Grant                 string `json:"grant,omitempty"`
	PrivateKeyFile        string `json:"private_key_file,omitempty"`
	AssertionFile         string `json:"assertion_file,omitempty"`
	AssertionEnv          string `json:"assertion_env,omitempty"`
	// Enterprise-managed authorization (grant "enterprise"): the file with
	// the user's ID token from the identity provider, the provider (its
	// issuer, or its token endpoint) and this client's registration there.
	IDTokenFile     string `json:"id_token_file,omitempty"`
	IDPIssuer       string `json:"idp_issuer,omitempty"`
	IDPTokenURL     string `json:"idp_token_url,omitempty"`
	IDPClientID     string `json:"idp_client_id,omitempty"`
	IDPClientSecret string `json:"idp_client_secret,omitempty"`
}

// Defaults for a [ServerConfig].
const (
	DefaultRequestTimeout      = 30 * time.Second
	DefaultHTTPStartupTimeout  = 30 * time.Second
	DefaultStdioStartupTimeout = 60 * time.Second // room for npx to fetch a package
)

// serverIDChars is the alphabet of server ids; the length is checked
// apart, as a {1,64} repetition costs its regexp a 64-fold program.
var serverIDChars = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[a-zA-Z0-9_-]+$`) })

// SandboxPolicy is the server's sandbox policy, the default when unset.
func (c *ServerConfig) SandboxPolicy() sandbox.Policy {
	if c.Sandbox == nil {
		return sandbox.Policy{}
	}
	return *c.Sandbox
}

// ValidateServerID reports whether id is a valid server id:
// ^[a-zA-Z0-9_-]{1,64}$.
func ValidateServerID(id string) error {
	if len(id) > 64 || !serverIDChars().MatchString(id) {
		return fmt.Errorf("invalid server id %q: use 1-64 letters, digits, '_' or '-'", id)
	}
	return nil
}

// IsEnabled reports whether the server should run.
func (c *ServerConfig) IsEnabled() bool { return c.Enabled == nil || *c.Enabled }

// TransportName returns the transport, inferring it when unset.
func (c *ServerConfig) TransportName() string {
	switch {
	case c.Transport != "":
		return c.Transport
	case c.Command != "":
		return "stdio"
	default:
		return "http"
	}
}

// RequestTimeout is the per-request timeout.
func (c *ServerConfig) RequestTimeout() time.Duration {
	if c.RequestTimeoutMS > 0 {
		return time.Duration(c.RequestTimeoutMS) * time.Millisecond
	}
	return DefaultRequestTimeout
}

// StartupTimeout bounds connecting: process start, handshake, first
// tools/list.
func (c *ServerConfig) StartupTimeout() time.Duration {
	if c.StartupTimeoutMS > 0 {
		return time.Duration(c.StartupTimeoutMS) * time.Millisecond
	}
	if c.TransportName() == "stdio" {
		return DefaultStdioStartupTimeout
	}
	return DefaultHTTPStartupTimeout
}

// ToolAllowed applies include_tools (empty means all) and then
// exclude_tools, which wins.
func (c *ServerConfig) ToolAllowed(name string) bool {
	if len(c.IncludeTools) > 0 && !matchAny(c.IncludeTools, name) {
		return false
	}
	return !matchAny(c.ExcludeTools, name)
}

func matchAny(globs []string, name string) bool {
	for _, g := range globs {
		if ok, _ := path.Match(g, name); ok {
			return true
		}
	}
	return false
}

// FieldError is a problem with one field of one server entry.
type FieldError struct {
	Field   string
	Problem string
}

func (e *FieldError) Error() string { return fmt.Sprintf("field %q: %s", e.Field, e.Problem) }

// Validate checks the entry on its own (before ${VAR} expansion).
func (c *ServerConfig) Validate() error {
	bad := func(field, format string, args ...any) error {
		return &FieldError{Field: field, Problem: fmt.Sprintf(format, args...)}
	}
	switch t := c.TransportName(); t {
	case "http", "sse":
		if c.URL == "" {
			return bad("url", "required for transport %q", t)
		}
		if !strings.Contains(c.URL, "${") {
			u, err := url.Parse(c.URL)
			if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
				return bad("url", "must be an absolute http(s) URL, got %q", c.URL)
			}
		}
		if c.Command != "" {
			return bad("command", "not used by transport %q (did you mean transport \"stdio\"?)", t)
		}
	case "stdio":
		if c.Command == "" {
			return bad("command", "required for transport \"stdio\"")
		}
		if c.URL != "" {
			return bad("url", "not used by transport \"stdio\"")
		}
	default:
		return bad("transport", "must be http, sse or stdio, got %q", t)
	}
	for k := range c.Headers {
		if k == "" || strings.ContainsAny(k, " :\r\n\t") {
			return bad("headers", "invalid header name %q", k)
		}
	}
	if c.Sandbox != nil && c.TransportName() != "stdio" {
		return bad("sandbox", "not used by transport %q (only local servers are sandboxed)", c.TransportName())
	}
	if len(c.EnvVars) > 0 && c.TransportName() != "stdio" {
		return bad("env_vars", "not used by transport %q", c.TransportName())
	}
	for _, name := range c.EnvVars {
		if err := checkEnvName(name); err != nil {
			return bad("env_vars", "%v", err)
		}
	}
	if r := c.Registry; r != nil && (r.Name == "" || r.Version == "" || r.URL == "") {
		return bad("registry", "needs url, name and version")
	}
	if c.RequestTimeoutMS < 0 {
		return bad("request_timeout_ms", "must not be negative")
	}
	if c.StartupTimeoutMS < 0 {
		return bad("startup_timeout_ms", "must not be negative")
	}
	if c.TaskTimeoutMS < 0 {
		return bad("task_timeout_ms", "must not be negative")
	}
	if c.MaxResponseBytes < 0 || (c.MaxResponseBytes > 0 && c.MaxResponseBytes < 64<<10) {
		return bad("max_response_bytes", "must be at least 65536 (64 KiB), or 0 for the default")
	}
	if c.AutoAllow != "" && c.AutoAllow != AutoAllowReadOnly {
		return bad("auto_allow", "must be %q, got %q", AutoAllowReadOnly, c.AutoAllow)
	}
	if c.MaxOutputTokens < 0 {
		return bad("max_output_tokens", "must not be negative")
	}
	if err := c.validateStart(); err != nil {
		return err
	}
	for field, globs := range map[string][]string{"include_tools": c.IncludeTools, "exclude_tools": c.ExcludeTools} {
		for _, g := range globs {
			if _, err := path.Match(g, ""); err != nil {
				return bad(field, "bad glob %q: %v", g, err)
			}
		}
	}
	if o := c.OAuth; o != nil {
		switch o.Grant {
		case "", "authorization_code", "client_credentials", "jwt_bearer", "enterprise":
		default:
			return bad("oauth.grant", "must be authorization_code, client_credentials, jwt_bearer or enterprise, got %q", o.Grant)
		}
		if o.CallbackPort < 0 || o.CallbackPort > 65535 {
			return bad("oauth.callback_port", "must be a port number, got %d", o.CallbackPort)
		}
		need := func(field, v string) error {
			if v == "" {
				return bad(field, "is required with oauth.grant %q", o.Grant)
			}
			return nil
		}
		switch o.Grant {
		case "client_credentials":
			if err := need("oauth.client_id", o.ClientID); err != nil {
				return err
			}
		case "jwt_bearer":
			if o.AssertionFile == "" && o.AssertionEnv == "" {
				return bad("oauth.assertion_file", "is required with oauth.grant \"jwt_bearer\" (or set oauth.assertion_env)")
			}
		case "enterprise":
			if err := need("oauth.client_id", o.ClientID); err != nil {
				return err
			}
			if err := need("oauth.id_token_file", o.IDTokenFile); err != nil {
				return err
			}
			if o.IDPIssuer == "" && o.IDPTokenURL == "" {
				return bad("oauth.idp_issuer", "is required with oauth.grant \"enterprise\" (or set oauth.idp_token_url)")
			}
		}
		for field, v := range map[string]string{"oauth.authorization_url": o.AuthorizationURL, "oauth.token_url": o.TokenURL, "oauth.registration_url": o.RegistrationURL, "oauth.redirect_uri": o.RedirectURI, "oauth.client_metadata_url": o.ClientMetadataURL, "oauth.idp_issuer": o.IDPIssuer, "oauth.idp_token_url": o.IDPTokenURL} {
			if v == "" {
				continue
			}
			if u, err := url.Parse(v); err != nil || u.Scheme == "" || u.Host == "" {
				return bad(field, "must be an absolute URL, got %q", v)
			}
		}
	}
	return nil
}

// Expand returns a copy with ${VAR} replaced in url, headers, args, env and
// cwd, looking variables up with lookup (nil means os.LookupEnv). "$${"
// stands for a literal "${"; ${VAR:-default} is default when VAR is unset or
// empty. An unset variable without a default is an error naming the field.
func (c ServerConfig) Expand(lookup func(string) (string, bool)) (ServerConfig, error) {
	if lookup == nil {
		lookup = os.LookupEnv
	}
	var err error
	exp := func(field, s string) string {
		if err != nil || !strings.Contains(s, "$") {
			return s
		}
		var out string
		out, err = expandString(s, lookup)
		if err != nil {
			err = &FieldError{Field: field, Problem: err.Error()}
		}
		return out
	}
	c.URL = exp("url", c.URL)
	c.Cwd = exp("cwd", c.Cwd)
	if c.Headers != nil {
		h := make(map[string]string, len(c.Headers))
		for _, k := range sortedKeys(c.Headers) {
			h[k] = exp("headers."+k, c.Headers[k])
		}
		c.Headers = h
	}
	if c.Env != nil {
		e := make(map[string]string, len(c.Env))
		for _, k := range sortedKeys(c.Env) {
			e[k] = exp("env."+k, c.Env[k])
		}
		c.Env = e
	}
	if c.Args != nil {
		a := make([]string, len(c.Args))
		for i, v := range c.Args {
			a[i] = exp(fmt.Sprintf("args[%d]", i), v)
		}
		c.Args = a
	}
	if c.OAuth != nil {
		o := *c.OAuth
		o.ClientSecret = exp("oauth.client_secret", o.ClientSecret)
		o.IDPClientSecret = exp("oauth.idp_client_secret", o.IDPClientSecret)
		c.OAuth = &o
	}
	return c, err
}

// Secrets are the values of an expanded config that must never be shown:
// header values, environment values and OAuth client secrets. Callers
// register them with the redactor.
func (c *ServerConfig) Secrets() []string {
	var out []string
	for _, v := range c.Headers {
		out = append(out, v)
	}
	for _, v := range c.Env {
		out = append(out, v)
	}
	if c.OAuth != nil {
		out = append(out, c.OAuth.ClientSecret, c.OAuth.IDPClientSecret)
	}
	return out
}

func expandString(s string, lookup func(string) (string, bool)) (string, error) {
	var b strings.Builder
	for i := 0; i < len(s); {
		switch {
		case strings.HasPrefix(s[i:], "$${"):
			b.WriteString("${")
			i += 3
		case strings.HasPrefix(s[i:], "${"):
			end := strings.IndexByte(s[i:], '}')
			if end < 0 {
				return "", fmt.Errorf("unclosed ${ in %q", s)
			}
			name := s[i+2 : i+end]
			name, def, hasDef := strings.Cut(name, ":-")
			if name == "" {
				return "", errors.New("empty ${} reference")
			}
			v, ok := lookup(name)
			if hasDef && (!ok || v == "") {
				// ${VAR:-default}, as in a shell and Claude Code.
				v, ok = def, true
			}
			if !ok {
				return "", fmt.Errorf("environment variable %s is not set", name)
			}
			b.WriteString(v)
			i += end + 1
		default:
			b.WriteByte(s[i])
			i++
		}
	}
	return b.String(), nil
}

func sortedKeys[V any](m map[string]V) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}
