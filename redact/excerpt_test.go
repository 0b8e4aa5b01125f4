package redact

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestExcerptMasksBoundsAndCleans(t *testing.T) {
	page := "<html><title>Bad Gateway</title>\x1b]0;title\x07\u202e" +
		strings.Repeat(`<p>Authorization: Bearer tok.en.1 rt-known-9 "refresh_token": "rt-in-text" client_secret=cs-in-query é</p>`, 200)
	out := Excerpt([]byte(page), 0, "rt-known-9")
	if len(out) > DefaultExcerpt || !utf8.ValidString(out) || !strings.HasSuffix(out, "...") {
		t.Fatalf("excerpt of %d bytes: %q", len(out), out)
	}
	for _, bad := range []string{"tok.en.1", "rt-known-9", "rt-in-text", "cs-in-query", "\x1b", "\x07", "\u202e", "\n"} {
		if strings.Contains(out, bad) {
			t.Errorf("%q survived: %q", bad, out)
		}
	}
	if !strings.HasPrefix(out, "<html><title>Bad Gateway</title>]0;title") {
		t.Errorf("excerpt lost the start: %q", out)
	}
}

func TestExcerptOfJSONAndCutJSON(t *testing.T) {
	body := `{"error":"server_error","access_token":"at-1","nested":{"client_secret":"cs-2"},"pad":"` + strings.Repeat("x", 100<<10) + `"}`
	for _, in := range []string{body, body[:300]} { // whole, and cut so it no longer parses
		out := Excerpt([]byte(in), 256)
		if strings.Contains(out, "at-1") || strings.Contains(out, "cs-2") || len(out) > 256 {
			t.Errorf("excerpt %q", out)
		}
	}
	if got := Excerpt([]byte("  short\n\tbody  "), 256); got != "short body" {
		t.Errorf("whitespace: %q", got)
	}
	if got := Excerpt([]byte("ééééé"), 6); got != "é..." {
		t.Errorf("cut inside a rune: %q", got)
	}
}
