package serve

import (
	"context"
	"strings"
	"time"

	"github.com/mcp-host/mcp-host/protocol"
	"github.com/mcp-host/mcp-host/runtime/config"
	"github.com/mcp-host/mcp-host/runtime/registry"
	"github.com/mcp-host/mcp-host/termsafe"
)

var _ protocol.RegistryService = (*service)(nil)

// installer is the registry installer of the options, or one for the
// official registry.
func (s *service) installer() *registry.Installer {
	if s.opts.Registry != nil {
		return s.opts.Registry
	}
	return &registry.Installer{Registries: registry.URLs("", nil)}
}

// RegistrySearch lists the active servers of the configured registries.
func (s *service) RegistrySearch(ctx context.Context, p *protocol.RegistrySearchParams) (*protocol.RegistrySearchResult, error) {
	r, err := s.installer().Search(ctx, p.Query, p.Refresh)
	if err != nil {
		return nil, protocol.Errorf(protocol.CodeFailed, "%v", err)
	}
	out := &protocol.RegistrySearchResult{Servers: []protocol.RegistryServer{}, FetchedAt: r.FetchedAt.UTC().Format(time.RFC3339),
		FromCache: r.FromCache, Age: registry.Age(r, time.Now()), Truncated: r.Truncated, Unreachable: r.Unreachable}
	for _, e := range r.Entries {
		out.Servers = append(out.Servers, wireRegistryServer(e))
	}
	return out, nil
}

// RegistryGet says what the host would run for an entry, and what it
// still needs. An mcpb bundle is downloaded, verified and unpacked to know
// its command line; nothing is written to a configuration.
func (s *service) RegistryGet(ctx context.Context, p *protocol.RegistryGetParams) (*protocol.RegistryGetResult, error) {
	_, pl, err := s.registryPlan(ctx, p, "")
	if err != nil {
		return nil, err
	}
	return wirePlan(pl), nil
}

// RegistryAdd writes the entry to the global configuration when what it
// runs is still what the user confirmed, then reloads.
func (s *service) RegistryAdd(ctx context.Context, p *protocol.RegistryAddParams) (*protocol.RegistryAddResult, error) {
	if err := config.ValidateServerID(p.ID); err != nil {
		return nil, protocol.NewError(protocol.CodeInvalidParams, protocol.ErrorData{Method: protocol.MethodRegistryAdd, Field: "id"}, "%s: %v", protocol.MethodRegistryAdd, err)
	}
	_, pl, err := s.registryPlan(ctx, &p.RegistryGetParams, p.ID)
	if err != nil {
		return nil, err
	}
	if len(pl.Missing) > 0 {
		var keys []string
		for _, m := range pl.Missing {
			keys = append(keys, m.Key)
		}
		return nil, protocol.NewError(protocol.CodeInvalidParams, protocol.ErrorData{Method: protocol.MethodRegistryAdd, Field: "values"},
			"%s: %s needs values for %s", protocol.MethodRegistryAdd, p.Name, strings.Join(keys, ", "))
	}
	runs := registry.CommandLine(pl.Config)
	if runs != p.Runs {
		return nil, protocol.NewError(protocol.CodeFailed, protocol.ErrorData{Method: protocol.MethodRegistryAdd, Field: "runs"},
			"%s: what would run is not what was confirmed: now %q; call registry.get again", protocol.MethodRegistryAdd, runs)
	}
	path := s.opts.Config.GlobalPath
	if err := registry.Write(path, p.ID, pl, p.Replace); err != nil {
		return nil, protocol.Errorf(protocol.CodeFailed, "%s: %v", protocol.MethodRegistryAdd, err)
	}
	s.reload()
	return &protocol.RegistryAddResult{ID: p.ID, Runs: runs, Path: path, Secrets: wireNeeds(pl.Secrets)}, nil
}

func (s *service) registryPlan(ctx context.Context, p *protocol.RegistryGetParams, id string) (registry.Entry, *registry.Plan, error) {
	in := s.installer()
	e, err := in.Fetch(ctx, p.Name, p.Version, "")
	if err != nil {
		return e, nil, protocol.Errorf(protocol.CodeFailed, "%v", err)
	}
	pl, err := in.Prepare(ctx, e, registry.Options{Use: p.Use, Values: p.Values, ID: id})
	if err != nil {
		return e, nil, protocol.Errorf(protocol.CodeFailed, "%v (nothing was written)", err)
	}
	return e, pl, nil
}

func wireRegistryServer(e registry.Entry) protocol.RegistryServer {
	s := e.Server
	return protocol.RegistryServer{
		Name: termsafe.LineMax(s.Name, 200), Title: termsafe.LineMax(s.Title, 100), Description: termsafe.TextMax(s.Description, 1000),
		Version: termsafe.LineMax(s.Version, 255), Kinds: s.Kinds(), Registry: e.Registry, Status: e.Meta.Status, PublishedAt: e.Meta.PublishedAt,
	}
}

func wirePlan(pl *registry.Plan) *protocol.RegistryGetResult {
	return &protocol.RegistryGetResult{Server: wireRegistryServer(pl.Entry), Kind: pl.Kind, Runs: registry.CommandLine(pl.Config),
		Missing: wireNeeds(pl.Missing), Secrets: wireNeeds(pl.Secrets)}
}

func wireNeeds(ns []registry.Need) []protocol.RegistryNeed {
	var out []protocol.RegistryNeed
	for _, n := range ns {
		out = append(out, protocol.RegistryNeed{Key: n.Key, Description: termsafe.TextMax(n.Description, 500), Choices: n.Choices, Placeholder: termsafe.LineMax(n.Placeholder, 200)})
	}
	return out
}
