package registry

import "encoding/json"

// OfficialURL is the official MCP registry.
const OfficialURL = "https://registry.modelcontextprotocol.io"

// officialMeta is the key of the registry-managed metadata in an answer's _meta.
const officialMeta = "io.modelcontextprotocol.registry/official"

// StatusActive is the status of an entry that may be installed.
const StatusActive = "active"

// Server is a server.json document (schema 2025-12-11): what a publisher
// says about one version of a server.
type Server struct {
	Schema      string    `json:"$schema,omitempty"`
	Name        string    `json:"name"`
	Title       string    `json:"title,omitempty"`
	Description string    `json:"description"`
	Version     string    `json:"version"`
	WebsiteURL  string    `json:"websiteUrl,omitempty"`
	Packages    []Package `json:"packages,omitempty"`
	Remotes     []Remote  `json:"remotes,omitempty"`
}

// Package is one way to run the server locally.
type Package struct {
	RegistryType     string     `json:"registryType"`
	RegistryBaseURL  string     `json:"registryBaseUrl,omitempty"`
	Identifier       string     `json:"identifier"`
	Version          string     `json:"version,omitempty"`
	FileSHA256       string     `json:"fileSha256,omitempty"`
	RuntimeHint      string     `json:"runtimeHint,omitempty"`
	Transport        Transport  `json:"transport"`
	RuntimeArguments []Argument `json:"runtimeArguments,omitempty"`
	PackageArguments []Argument `json:"packageArguments,omitempty"`
	Environment      []KeyValue `json:"environmentVariables,omitempty"`
}

// Transport is how a package or a remote speaks MCP: "stdio",
// "streamable-http" or "sse" (the last two with a URL and headers).
type Transport struct {
	Type    string     `json:"type"`
	URL     string     `json:"url,omitempty"`
	Headers []KeyValue `json:"headers,omitempty"`
}

// Remote is a hosted endpoint of the server.
type Remote struct {
	Transport
	Variables map[string]Input `json:"variables,omitempty"`
}

// Input is a value the user may or must supply. Value, when set, is fixed;
// it may name Variables as {name}.
type Input struct {
	Description string           `json:"description,omitempty"`
	IsRequired  bool             `json:"isRequired,omitempty"`
	Format      string           `json:"format,omitempty"`
	Value       string           `json:"value,omitempty"`
	IsSecret    bool             `json:"isSecret,omitempty"`
	Default     string           `json:"default,omitempty"`
	Placeholder string           `json:"placeholder,omitempty"`
	Choices     []string         `json:"choices,omitempty"`
	Variables   map[string]Input `json:"variables,omitempty"`
}

// KeyValue is a named input: an environment variable or an HTTP header.
type KeyValue struct {
	Name string `json:"name"`
	Input
}

// Argument is a command-line argument: "positional" (Value or ValueHint)
// or "named" (Name, such as "--port", with an optional Value).
type Argument struct {
	Type      string `json:"type"`
	Name      string `json:"name,omitempty"`
	ValueHint string `json:"valueHint,omitempty"`
	Input
}

// Meta is the registry's own metadata about an entry.
type Meta struct {
	Status      string `json:"status,omitempty"`
	PublishedAt string `json:"publishedAt,omitempty"`
	UpdatedAt   string `json:"updatedAt,omitempty"`
	IsLatest    bool   `json:"isLatest,omitempty"`
}

// Entry is one server version as a registry answers it, with the registry
// it came from.
type Entry struct {
	Server   Server `json:"server"`
	Meta     Meta   `json:"meta"`
	Registry string `json:"registry"`
}

// response is one item of the API: {"server": {...}, "_meta": {...}}.
type response struct {
	Server Server                     `json:"server"`
	Meta   map[string]json.RawMessage `json:"_meta"`
}

// list is the API's answer to GET /v0.1/servers.
type list struct {
	Servers  []response `json:"servers"`
	Metadata struct {
		NextCursor string `json:"nextCursor"`
		Count      int    `json:"count"`
	} `json:"metadata"`
}

// entry decodes the registry's metadata of r. An answer without the
// official block counts as active: a registry that does not manage
// statuses has only entries it serves.
func (r response) entry(registry string) Entry {
	e := Entry{Server: r.Server, Registry: registry, Meta: Meta{Status: StatusActive}}
	if raw, ok := r.Meta[officialMeta]; ok {
		var m Meta
		if json.Unmarshal(raw, &m) == nil {
			if m.Status == "" {
				m.Status = StatusActive
			}
			e.Meta = m
		}
	}
	return e
}

// Kinds lists what an entry offers, such as "npm", "mcpb" or
// "remote:streamable-http".
func (s *Server) Kinds() []string {
	var out []string
	for _, p := range s.Packages {
		out = append(out, p.RegistryType)
	}
	for _, r := range s.Remotes {
		out = append(out, "remote:"+r.Type)
	}
	return out
}
