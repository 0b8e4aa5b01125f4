package protocol

import "context"

// Requests from the UI to the runtime for a gallery of servers from an MCP
// registry (see PROTOCOL.md, "Registry").
const (
	MethodRegistrySearch = "registry.search"
	MethodRegistryGet    = "registry.get"
	MethodRegistryAdd    = "registry.add"
)

// RegistrySearchParams ask the configured registries for the active
// servers whose names contain the first word of Query and whose name,
// title or description contain every other word ("" lists them all, up
// to a cap).
type RegistrySearchParams struct {
	Query string `json:"query,omitempty"`
	// Refresh asks the registries even when the cache is fresh.
	Refresh bool `json:"refresh,omitempty"`
}

// RegistryServer is one version of a server a registry lists. Its text is
// the publisher's: control characters are removed, but a UI still renders
// it as plain text.
type RegistryServer struct {
	Name        string `json:"name"`
	Title       string `json:"title,omitempty"`
	Description string `json:"description"`
	Version     string `json:"version"`
	// Kinds are what it offers: package types (npm, pypi, oci, nuget,
	// mcpb) and remotes ("remote:streamable-http", "remote:sse").
	Kinds []string `json:"kinds"`
	// Registry is the base URL of the registry that listed it.
	Registry    string `json:"registry"`
	Status      string `json:"status"`
	PublishedAt string `json:"published_at,omitempty"`
}

// RegistrySearchResult answers registry.search.
type RegistrySearchResult struct {
	Servers []RegistryServer `json:"servers"`
	// FetchedAt is when the registries answered (RFC 3339); FromCache and
	// Age ("fresh", "cached 5m") say whether it is the local cache's.
	FetchedAt string `json:"fetched_at"`
	FromCache bool   `json:"from_cache"`
	Age       string `json:"age"`
	// Truncated says the page cap ended the listing: narrow the query.
	Truncated bool `json:"truncated,omitempty"`
	// Unreachable, when set, says why the registry was not asked: the
	// servers are the cache's older answer (Age says how old).
	Unreachable string `json:"unreachable,omitempty"`
}

// RegistryGetParams name an entry and how to install it: what the UI shows
// before registry.add.
type RegistryGetParams struct {
	Name string `json:"name"`
	// Version is an exact version; "" or "latest" means the latest.
	Version string `json:"version,omitempty"`
	// Use picks a package type or "remote"; "" means the first package
	// this machine can run, else the first remote.
	Use string `json:"use,omitempty"`
	// Values are the user's answers, keyed by RegistryNeed.Key.
	Values map[string]string `json:"values,omitempty"`
}

// RegistryNeed is a value an entry asks for. A secret one is never asked
// for: the entry refers to the environment variable Key as ${Key}, and the
// user sets it where the host runs.
type RegistryNeed struct {
	Key         string   `json:"key"`
	Description string   `json:"description,omitempty"`
	Choices     []string `json:"choices,omitempty"`
	Placeholder string   `json:"placeholder,omitempty"`
}

// RegistryGetResult is what the host would run for the entry.
type RegistryGetResult struct {
	Server RegistryServer `json:"server"`
	// Kind is the package type used, or "remote".
	Kind string `json:"kind"`
	// Runs is exactly what will run or be connected to: the environment
	// and the command line, or the transport, URL and headers. Show it;
	// registry.add takes it back.
	Runs string `json:"runs"`
	// Missing are required values not in Values: ask and call again.
	Missing []RegistryNeed `json:"missing,omitempty"`
	// Secrets are the environment variables the entry reads its secrets
	// from.
	Secrets []RegistryNeed `json:"secrets,omitempty"`
}

// RegistryAddParams add the entry RegistryGetParams name under ID in the
// global configuration.
type RegistryAddParams struct {
	RegistryGetParams
	ID string `json:"id"`
	// Runs is the Runs of the registry.get the user confirmed: the entry is
	// written only if what would run is still exactly that.
	Runs string `json:"runs"`
	// Replace allows replacing an existing server of the same id.
	Replace bool `json:"replace,omitempty"`
}

// RegistryAddResult answers registry.add.
type RegistryAddResult struct {
	ID   string `json:"id"`
	Runs string `json:"runs"`
	// Path is the configuration file written.
	Path    string         `json:"path"`
	Secrets []RegistryNeed `json:"secrets,omitempty"`
}

func (p *RegistryGetParams) validate(m string) *Error {
	if p.Name == "" {
		return required(m, "name", "the server's registry name (io.github.owner/server)")
	}
	return nil
}

func (p *RegistryAddParams) validate(m string) *Error {
	if p.ID == "" {
		return required(m, "id", "the server id to add it as")
	}
	if p.Runs == "" {
		return required(m, "runs", "what registry.get said will run, as the user confirmed it")
	}
	return p.RegistryGetParams.validate(m)
}

// RegistryService is what the runtime does for a registry gallery: the
// registry.* requests.
type RegistryService interface {
	RegistrySearch(ctx context.Context, p *RegistrySearchParams) (*RegistrySearchResult, error)
	RegistryGet(ctx context.Context, p *RegistryGetParams) (*RegistryGetResult, error)
	RegistryAdd(ctx context.Context, p *RegistryAddParams) (*RegistryAddResult, error)
}

// addRegistryMethods adds the registry.* methods to t when s implements
// RegistryService.
func addRegistryMethods(t table, s Server) {
	r, ok := s.(RegistryService)
	if !ok {
		return
	}
	t[MethodRegistrySearch] = strict(MethodRegistrySearch, r.RegistrySearch)
	t[MethodRegistryGet] = strict(MethodRegistryGet, r.RegistryGet)
	t[MethodRegistryAdd] = strict(MethodRegistryAdd, r.RegistryAdd)
}

// registryCaller implements RegistryService over a Conn.
type registryCaller struct{ c *Conn }

// NewRegistryCaller returns a RegistryService whose methods send
// registry.* requests to the runtime over c: what a Go UI uses.
func NewRegistryCaller(c *Conn) RegistryService { return registryCaller{c} }

func (r registryCaller) RegistrySearch(ctx context.Context, p *RegistrySearchParams) (*RegistrySearchResult, error) {
	return call[RegistrySearchResult](ctx, r.c, MethodRegistrySearch, p)
}
func (r registryCaller) RegistryGet(ctx context.Context, p *RegistryGetParams) (*RegistryGetResult, error) {
	return call[RegistryGetResult](ctx, r.c, MethodRegistryGet, p)
}
func (r registryCaller) RegistryAdd(ctx context.Context, p *RegistryAddParams) (*RegistryAddResult, error) {
	return call[RegistryAddResult](ctx, r.c, MethodRegistryAdd, p)
}
