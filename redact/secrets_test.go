package redact

import (
	"strings"
	"testing"
)

func TestRegisteredSecretsAreMasked(t *testing.T) {
	Register("sk-SECRET-123456", "tiny", "p@ss word+/=")
	msg := `Post "http://127.0.0.1:1/mcp?api=sk-SECRET-123456&x=1": dial tcp: refused; header p@ss word+/=; query p%40ss+word%2B%2F%3D; tiny stays`
	got := String(msg)
	for _, leak := range []string{"sk-SECRET-123456", "p@ss word+/=", "p%40ss+word%2B%2F%3D"} {
		if strings.Contains(got, leak) {
			t.Errorf("%q left in %q", leak, got)
		}
	}
	if !strings.Contains(got, "tiny stays") {
		t.Errorf("a value shorter than MinSecretLen was masked: %q", got)
	}
}

func TestRegisteredSecretsInHeadersAndURLs(t *testing.T) {
	Register("hdr-value-9f8e7d6c", "query-value-1a2b3c4d")
	h := Header(map[string][]string{"X-Custom": {"hdr-value-9f8e7d6c"}, "Accept": {"application/json"}})
	if got := h.Get("X-Custom"); got != Mask {
		t.Errorf("registered header value kept: %q", got)
	}
	if got := h.Get("Accept"); got != "application/json" {
		t.Errorf("plain header changed: %q", got)
	}
	if got := URL("http://h/mcp?k=query-value-1a2b3c4d&x=1"); strings.Contains(got, "query-value-1a2b3c4d") {
		t.Errorf("registered query value kept: %q", got)
	}
}
