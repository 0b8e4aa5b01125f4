package policy

import (
	"fmt"
	"slices"
	"strings"

	"github.com/mcp-host/mcp-host/runtime/config"
	"github.com/mcp-host/mcp-host/runtime/registry"
)

// ruleRegistryOnly names the rule in a block's reason.
const ruleRegistryOnly = `"user_servers": "registry_only"`

// registryOnly judges a user server under "user_servers":
// "registry_only". Its recorded registry must be one of "registries", and
// what it runs must be exactly what that registry's entry (name@version,
// package) produces: the "registry" field is the user's to edit, so it
// names the entry to check against, and the registry's server.json (not
// the field) decides. The check reads the entry as written (secrets stay
// ${VAR} references, as the registry entry writes them).
func (p *Policy) registryOnly(e *config.ServerEntry) *config.PolicyBlock {
	block := func(format string, args ...any) *config.PolicyBlock {
		return &config.PolicyBlock{File: p.File, Rule: ruleRegistryOnly, Reason: fmt.Sprintf(format, args...)}
	}
	src := e.Config.Registry
	switch {
	case len(p.Registries) == 0:
		return block(`only servers installed from the organization's registry may run, and the policy lists no "registries"`)
	case src == nil:
		return block("only servers installed from the organization's registry (%s) may run, and this one records none", strings.Join(p.Registries, ", "))
	case !slices.Contains(p.Registries, strings.TrimRight(src.URL, "/")):
		return block("its recorded registry %s is not one of the policy's \"registries\" (%s)", src.URL, strings.Join(p.Registries, ", "))
	}
	verify := p.Verify
	if verify == nil {
		verify = registry.Verify
	}
	if err := verify(e.ID, e.Config); err != nil {
		return block("server %q is not what the registry installs: %v", e.ID, err)
	}
	return nil
}
