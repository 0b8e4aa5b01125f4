package policy

import (
	"strings"
	"testing"

	"github.com/mcp-host/mcp-host/runtime/config"
)

// An organization can force every server's start mode; a server's own
// "start" is then ignored with a note.
func TestPolicyForcesStartMode(t *testing.T) {
	p := parse(t, `{"start": "eager"}`)
	lazy := stdioEntry("own", "node", "srv.js")
	lazy.Config.Start = config.StartLazy
	got := judge(p, noEnv, stdioEntry("plain", "node", "srv.js"), lazy)
	for _, id := range []string{"plain", "own"} {
		cfg := got[id].Config
		if m := cfg.StartMode(); m != config.StartEager {
			t.Errorf("%s: start mode %q under a policy forcing eager", id, m)
		}
	}
	if n := strings.Join(got["own"].Notes, "\n"); !strings.Contains(n, `"start": "lazy" is ignored`) {
		t.Errorf("notes = %q, want the ignored start mode", n)
	}
	bad := Parse("/etc/mcp-host/managed.json", []byte(`{"start": "never"}`))
	if bad.Err == nil || !strings.Contains(bad.Err.Error(), `"start" must be "eager" or "lazy"`) {
		t.Errorf("err = %v", bad.Err)
	}
}
