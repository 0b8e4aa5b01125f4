package runtime_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/mcp-host/mcp-host/runtime"
	"github.com/mcp-host/mcp-host/runtime/config"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestPanicIsTheServersError injects a panic into one server's connect
// (its ${VAR} lookup) and shows that it becomes that server's error,
// retried, while the other server and the manager carry on.
func TestPanicIsTheServersError(t *testing.T) {
	srv := mcpServer(t)
	m := runtime.NewManager(runtime.ManagerOptions{
		MinBackoff: 50 * time.Millisecond, MaxBackoff: 100 * time.Millisecond,
		LookupEnv: func(name string) (string, bool) {
			if name == "BOOM" {
				var m map[string]int
				//lint:ignore SA5000 the test needs a real runtime panic, as a bug would cause
				m["nil map"]++
			}
			return "", false
		},
	})
	t.Cleanup(func() { m.Close() })
	bad := httpEntry("bad", srv.URL+"/${BOOM}")
	m.Apply([]config.ServerEntry{bad, httpEntry("good", srv.URL)})
	st := waitState(t, m, "bad", runtime.StateError, 10*time.Second)
	if !strings.Contains(st.LastError, "internal error") || !strings.Contains(st.LastError, `"bad"`) {
		t.Errorf("bad: last error %q", st.LastError)
	}
	waitState(t, m, "good", runtime.StateReady, 10*time.Second)
	// It is retried (and panics again) without ending anything.
	deadline := time.Now().Add(5 * time.Second)
	for {
		if st, _ := m.Get("bad"); st.Attempts >= 2 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the panicking server was not retried")
		}
		time.Sleep(20 * time.Millisecond)
	}
	if _, err := m.CallTool(t.Context(), "good", "echo", map[string]any{"text": "still here"}); err != nil {
		t.Errorf("good server after the other's panic: %v", err)
	}
}

// TestStatusCountsOfferedToolsOnly: a tool whose name hides escape or bidi
// characters is never offered, so the status does not count it.
func TestStatusCountsOfferedToolsOnly(t *testing.T) {
	s := mcp.NewServer(&mcp.Implementation{Name: "fixture", Version: "1"}, nil)
	for _, name := range []string{"good", "bad\x1b]0;PWNED\x07", "rlo\u202eexe"} {
		s.AddTool(&mcp.Tool{Name: name, InputSchema: json.RawMessage(`{"type":"object"}`)}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{}, nil
		})
	}
	srv := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil))
	t.Cleanup(srv.Close)
	m := runtime.NewManager(runtime.ManagerOptions{})
	t.Cleanup(func() { m.Close() })
	m.Apply([]config.ServerEntry{httpEntry("h", srv.URL)})
	if st := waitState(t, m, "h", runtime.StateReady, 10*time.Second); st.Tools != 1 {
		t.Errorf("tools = %d, want 1 (the two hostile names are never offered)", st.Tools)
	}
}
