package main

import (
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/mcp-host/mcp-host/runtime/config"
)

// TestTestEntries checks which servers host mcp test connects: with no
// id every enabled one (an invalid one too, so that its error is
// printed); with ids those, once each, turned on for the test; an unknown
// or invalid named server is a usage error.
func TestTestEntries(t *testing.T) {
	off := false
	eff := &config.Effective{Servers: []config.ServerEntry{
		{ID: "a", Config: config.ServerConfig{URL: "http://127.0.0.1:1/a"}},
		{ID: "b", Config: config.ServerConfig{URL: "http://127.0.0.1:1/b", Enabled: &off}},
		{ID: "c", Config: config.ServerConfig{URL: "http://127.0.0.1:1/c"}, Err: errors.New("bad url")},
	}}
	var stderr strings.Builder
	c := &cli{stdout: io.Discard, stderr: &stderr, global: "g.json", project: "p.json"}
	ids := func(es []config.ServerEntry) string {
		var out []string
		for _, e := range es {
			out = append(out, e.ID)
		}
		return strings.Join(out, ",")
	}
	if got, code := c.testEntries(eff, nil); code >= 0 || ids(got) != "a,c" {
		t.Errorf("no ids: %q, code %d; want a,c", ids(got), code)
	}
	got, code := c.testEntries(eff, []string{"b", "a", "b"})
	if code >= 0 || ids(got) != "b,a" || !got[0].Config.IsEnabled() {
		t.Errorf("b a b: %q, code %d, b enabled %v; want b,a with b turned on", ids(got), code, len(got) > 0 && got[0].Config.IsEnabled())
	}
	for _, bad := range []string{"zzz", "c"} {
		stderr.Reset()
		if _, code := c.testEntries(eff, []string{"a", bad}); code != exitUsage {
			t.Errorf("%s: code %d, want %d (usage)", bad, code, exitUsage)
		}
		if !strings.Contains(stderr.String(), "test:") {
			t.Errorf("%s: stderr %q does not say why", bad, stderr.String())
		}
	}
}
