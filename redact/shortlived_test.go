package redact

import (
	"fmt"
	"strings"
	"testing"
)

// Short-lived secrets (tokens a host refreshes for weeks) are masked while
// they are among the last maxShortLived registered, and no longer kept
// after: the set stays bounded. Secrets registered for the process's life
// are never dropped, however many tokens come after them.
func TestShortLivedSecretsAreBounded(t *testing.T) {
	Register("config-secret-for-life")
	for i := range 10 * maxShortLived {
		RegisterShortLived(fmt.Sprintf("access-token-%08d", i))
	}
	registry.RLock()
	n := len(registry.recent)
	registry.RUnlock()
	if n != maxShortLived {
		t.Errorf("%d short-lived secrets kept after %d were registered; want %d", n, 10*maxShortLived, maxShortLived)
	}
	last := fmt.Sprintf("access-token-%08d", 10*maxShortLived-1)
	got := String("Bearer " + last + " and config-secret-for-life")
	if strings.Contains(got, last) || strings.Contains(got, "config-secret-for-life") {
		t.Errorf("a current token or a secret for life was not masked: %q", got)
	}
	// Many kept: the one-pass mask masks escaped forms too.
	RegisterShortLived("p@ss token+/=")
	if got := String("q=p%40ss+token%2B%2F%3D&x=1"); strings.Contains(got, "p%40ss") {
		t.Errorf("the escaped form of a token was not masked: %q", got)
	}
	// A token registered again is new again: it outlives those after it.
	RegisterShortLived("refresh-token-not-rotated")
	for i := range maxShortLived - 1 {
		RegisterShortLived(fmt.Sprintf("later-token-%08d", i))
	}
	RegisterShortLived("refresh-token-not-rotated")
	RegisterShortLived("one-more-token-after")
	if got := String("refresh-token-not-rotated"); got != Mask {
		t.Errorf("a refresh token registered again was dropped: %q", got)
	}
}

// Masking costs the same whatever the number of secrets registered for
// the process's life and the short-lived ones kept: one pass over the
// string (BenchmarkRegistered/… against …/few, in the same run).
func BenchmarkRegistered(b *testing.B) {
	s := "server \"x\": tools/call \"echo\": connection reset by peer while reading the answer of a call made at 12:00"
	run := func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_ = Registered(s)
		}
	}
	Register("header-secret-1", "client-secret-2", "expanded-var-3")
	b.Run("few", run)
	for i := range 7200 {
		RegisterShortLived(fmt.Sprintf("tok_%036d", i))
	}
	b.Run("7200-tokens-refreshed", run)
}
