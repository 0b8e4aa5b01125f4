package redact

import (
	"sort"
	"strings"
	"sync"
)

// MinSecretLen is the shortest value [Register] keeps: masking every "on"
// or "1" in a message would hide more than it protects.
const MinSecretLen = 6

// registry is the process's set of known secret values.
var registry struct {
	sync.RWMutex
	values map[string]bool
	sorted []string // longest first, so a secret containing another wins
}

// Register records secret values (expanded ${VAR} values, header values,
// client secrets, tokens) at the place they are created, so that [String]
// masks them wherever they turn up later: in an error from the network
// stack that quotes a URL, a status line, a log record. Values shorter than
// [MinSecretLen] are ignored. Safe for concurrent use; values stay
// registered for the life of the process.
func Register(values ...string) {
	registry.Lock()
	defer registry.Unlock()
	changed := false
	for _, v := range values {
		v = strings.TrimSpace(v)
		if len(v) < MinSecretLen || registry.values[v] {
			continue
		}
		if registry.values == nil {
			registry.values = map[string]bool{}
		}
		registry.values[v] = true
		changed = true
	}
	if !changed {
		return
	}
	registry.sorted = registry.sorted[:0]
	for v := range registry.values {
		registry.sorted = append(registry.sorted, v)
	}
	sort.Slice(registry.sorted, func(i, j int) bool { return len(registry.sorted[i]) > len(registry.sorted[j]) })
}

// Registered masks every registered secret in s, and its URL-escaped form
// (a secret in a query string is escaped there).
func Registered(s string) string {
	registry.RLock()
	defer registry.RUnlock()
	for _, v := range registry.sorted {
		if strings.Contains(s, v) {
			s = strings.ReplaceAll(s, v, Mask)
		}
		if esc := queryEscape(v); esc != v && strings.Contains(s, esc) {
			s = strings.ReplaceAll(s, esc, Mask)
		}
	}
	return s
}
