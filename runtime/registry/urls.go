package registry

import "strings"

// EnvURLs names the environment variable that sets the registries to use:
// one URL, or several separated by commas.
const EnvURLs = "MCP_HOST_REGISTRY"

// URLs returns the registries to use, in order. An organization's policy
// wins when it names any (the managed policy passes them as policy);
// otherwise setting (a --registry flag, else $MCP_HOST_REGISTRY); otherwise
// the official registry.
func URLs(setting string, policy []string) []string {
	if len(policy) > 0 {
		return clean(policy)
	}
	if out := clean(strings.Split(setting, ",")); len(out) > 0 {
		return out
	}
	return []string{OfficialURL}
}

func clean(in []string) []string {
	var out []string
	seen := map[string]bool{}
	for _, u := range in {
		u = strings.TrimRight(strings.TrimSpace(u), "/")
		if u != "" && !seen[u] {
			seen[u] = true
			out = append(out, u)
		}
	}
	return out
}
