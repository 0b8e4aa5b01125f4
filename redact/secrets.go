package redact

import (
	"slices"
	"sort"
	"strings"
	"sync"
)

// MinSecretLen is the shortest value [Register] keeps: masking every "on"
// or "1" in a message would hide more than it protects.
const MinSecretLen = 6

// maxShortLived bounds the short-lived secrets kept (see
// [RegisterShortLived]): the most recently registered ones.
const maxShortLived = 256

// registry is the process's set of known secret values.
var registry struct {
	sync.RWMutex
	values map[string]bool // kept for the life of the process
	// recent are the short-lived ones, oldest first.
	recent []string
	// sorted are the values, longest first (a secret containing another
	// wins), each followed by its URL-escaped form when that differs.
	// mask replaces them all in one pass when there are more than
	// fewSecrets (a loop of Contains is cheaper below, and allocates
	// nothing); nil otherwise. Both are rebuilt when the set changes, not
	// on each use.
	sorted []string
	mask   *strings.Replacer
}

// fewSecrets is how many values (escaped forms counted) Registered still
// checks one by one.
const fewSecrets = 32

// Register records secret values (expanded ${VAR} values, header values,
// client secrets) at the place they are created, so that [String] masks
// them wherever they turn up later: in an error from the network stack
// that quotes a URL, a status line, a log record. Values shorter than
// [MinSecretLen] are ignored. Safe for concurrent use; values stay
// registered for the life of the process. Tokens that are replaced as the
// host runs go through [RegisterShortLived].
func Register(values ...string) { register(values, false) }

// RegisterShortLived records secrets that the host replaces as it runs
// (access and refresh tokens, assertions, ID-JAGs) as [Register] does,
// but keeps only the [maxShortLived] registered last: a host that runs for
// weeks refreshes thousands of tokens, and every one kept for ever made
// each masking slower (0.47 ms a string with 7,200) and the process
// bigger. One registered again counts as new; one dropped is long
// replaced (an access token expires within hours; a rotated refresh token
// is refused).
func RegisterShortLived(values ...string) { register(values, true) }

// register adds values for the process's life, or as short-lived ones,
// and rebuilds the mask when the set changed.
func register(values []string, shortLived bool) {
	registry.Lock()
	defer registry.Unlock()
	changed := false
	for _, v := range values {
		v = strings.TrimSpace(v)
		switch {
		case len(v) < MinSecretLen || registry.values[v]:
		case shortLived:
			if i := slices.Index(registry.recent, v); i >= 0 {
				registry.recent = slices.Delete(registry.recent, i, i+1) // new again, same set
			} else {
				changed = true
			}
			registry.recent = append(registry.recent, v)
			if len(registry.recent) > maxShortLived {
				registry.recent = slices.Delete(registry.recent, 0, 1)
			}
		default:
			if registry.values == nil {
				registry.values = map[string]bool{}
			}
			registry.values[v] = true
			changed = true
		}
	}
	if changed {
		rebuildMask()
	}
}

// rebuildMask makes registry.mask from the registered values. The caller
// holds the lock.
func rebuildMask() {
	all := make([]string, 0, len(registry.values)+len(registry.recent))
	for v := range registry.values {
		all = append(all, v)
	}
	all = append(all, registry.recent...)
	sort.Slice(all, func(i, j int) bool {
		if len(all[i]) != len(all[j]) {
			return len(all[i]) > len(all[j])
		}
		return all[i] < all[j]
	})
	registry.sorted = registry.sorted[:0]
	for _, v := range all {
		registry.sorted = append(registry.sorted, v)
		// A secret in a query string is escaped there.
		if esc := queryEscape(v); esc != v {
			registry.sorted = append(registry.sorted, esc)
		}
	}
	registry.mask = nil
	if len(registry.sorted) > fewSecrets {
		pairs := make([]string, 0, 2*len(registry.sorted))
		for _, v := range registry.sorted {
			pairs = append(pairs, v, Mask)
		}
		registry.mask = strings.NewReplacer(pairs...)
	}
}

// Registered masks every registered secret in s, and its URL-escaped form
// (a secret in a query string is escaped there).
func Registered(s string) string {
	registry.RLock()
	defer registry.RUnlock()
	if registry.mask != nil {
		return registry.mask.Replace(s)
	}
	for _, v := range registry.sorted {
		if strings.Contains(s, v) {
			s = strings.ReplaceAll(s, v, Mask)
		}
	}
	return s
}
