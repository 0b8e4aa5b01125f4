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
