package runtime_test

import (
	"net"
	"strings"
	"testing"
	"time"

	"github.com/mcp-host/mcp-host/runtime"
	"github.com/mcp-host/mcp-host/runtime/config"
)

// TestExpandedSecretsNeverInStatus: a ${VAR} expanded into the URL ends up
// quoted by the network stack in the dial error; the status must show ***
// instead of its value.
func TestExpandedSecretsNeverInStatus(t *testing.T) {
	const secret = "zq-UNLISTED-PARAM-SECRET-7788"
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close() // nothing listens there now: connect fails with a dial error
	m := runtime.NewManager(runtime.ManagerOptions{
		MinBackoff: time.Hour,
		LookupEnv: func(name string) (string, bool) {
			if name == "MY_KEY" {
				return secret, true
			}
			return "", false
		},
	})
	t.Cleanup(func() { m.Close() })
	e := httpEntry("s", "http://"+addr+"/mcp?k=${MY_KEY}")
	e.Config.Headers = map[string]string{"X-Whatever": "${MY_KEY}"}
	m.Apply([]config.ServerEntry{e})
	st := waitState(t, m, "s", runtime.StateError, 20*time.Second)
	if strings.Contains(st.LastError, secret) {
		t.Fatalf("last_error shows the expanded secret: %s", st.LastError)
	}
	if !strings.Contains(st.LastError, "***") {
		t.Errorf("last_error does not quote the URL at all, so the test shows nothing: %s", st.LastError)
	}
}
