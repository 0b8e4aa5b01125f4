package core

import (
	"fmt"
	"regexp"
	"sync"
)

// nameChars is the alphabet of tool names every supported model API
// accepts; the length is checked apart, as a {1,64} repetition costs its
// regexp a 64-fold program.
var nameChars = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[a-zA-Z0-9_-]+$`) })

// ValidName reports whether name is a valid public tool name: 1 to 64
// characters from [a-zA-Z0-9_-].
func ValidName(name string) bool { return len(name) <= 64 && nameChars().MatchString(name) }

// A Registry holds the tools available to runs, keyed by public name. It is
// safe for concurrent use. A run works on a [Registry.Snapshot], so tools added
// or removed while a run is in progress apply to the next run.
//
// The zero value is an empty registry ready to use.
type Registry struct {
	mu    sync.RWMutex
	tools map[string]Tool
	order []string // insertion order, for stable snapshots
}

// NewRegistry returns a registry holding tools, or an error naming the first
// tool that [Registry.Add] rejects.
func NewRegistry(tools ...Tool) (*Registry, error) {
	r := &Registry{}
	for _, t := range tools {
		if err := r.Add(t); err != nil {
			return nil, err
		}
	}
	return r, nil
}

// Add registers t under t.Name(). It rejects a nil tool, a name that does not
// match ^[a-zA-Z0-9_-]{1,64}$, and a name that is already registered.
func (r *Registry) Add(t Tool) error {
	if t == nil {
		return fmt.Errorf("core: add tool: nil tool")
	}
	name := t.Name()
	if !ValidName(name) {
		return fmt.Errorf("core: add tool %q: invalid name (want 1-64 characters from [a-zA-Z0-9_-])", name)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, dup := r.tools[name]; dup {
		return fmt.Errorf("core: add tool %q: a tool with this name is already registered", name)
	}
	if r.tools == nil {
		r.tools = make(map[string]Tool)
	}
	r.tools[name] = t
	r.order = append(r.order, name)
	return nil
}

// Remove unregisters the tool called name and reports whether it was present.
func (r *Registry) Remove(name string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, ok := r.tools[name]; !ok {
		return false
	}
	delete(r.tools, name)
	for i, n := range r.order {
		if n == name {
			r.order = append(r.order[:i:i], r.order[i+1:]...)
			break
		}
	}
	return true
}

// Lookup returns the tool called name.
func (r *Registry) Lookup(name string) (Tool, bool) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	t, ok := r.tools[name]
	return t, ok
}

// Len returns the number of registered tools.
func (r *Registry) Len() int {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return len(r.tools)
}

// Snapshot returns the registered tools in the order they were added. The
// slice is a fresh copy: later changes to the registry do not affect it. Pass
// it as [RunOptions.Tools].
func (r *Registry) Snapshot() []Tool {
	r.mu.RLock()
	defer r.mu.RUnlock()
	out := make([]Tool, 0, len(r.order))
	for _, n := range r.order {
		out = append(out, r.tools[n])
	}
	return out
}
