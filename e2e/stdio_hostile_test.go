package e2e_test

import (
	"context"
	"encoding/json"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mcp-host/mcp-host/e2e/internal/testenv"
	"github.com/mcp-host/mcp-host/runtime/session"
)

// TestStdioBannerServerFromNPM connects to time-mcp from npm, which writes
// "Starting Time MCP server..." on stdout before it speaks JSON-RPC. The
// session must skip the line, note it in the stderr tail and work.
func TestStdioBannerServerFromNPM(t *testing.T) {
	argv := testenv.NodeBin(t, "time-mcp")
	s, err := session.Connect(context.Background(), session.Options{ID: "time", Command: argv[0], Args: argv[1:]})
	if err != nil {
		t.Fatalf("connect to time-mcp: %v", err)
	}
	defer s.Close()
	res, err := s.CallTool(context.Background(), "current_time", map[string]any{"format": "YYYY-MM-DD", "timezone": "UTC"})
	if err != nil {
		t.Fatalf("current_time: %v", err)
	}
	b, _ := json.Marshal(res.Content)
	if year := strconv.Itoa(time.Now().UTC().Year()); !strings.Contains(string(b), year) {
		t.Errorf("current_time = %s, want this year in it", b)
	}
	if tail := s.Stderr(); !strings.Contains(tail, "[stdout, not JSON-RPC] (#1) Starting Time MCP server...") {
		t.Errorf("stderr tail = %q, want the banner noted", tail)
	}
	if n := s.SkippedStdoutLines(); n < 1 {
		t.Errorf("SkippedStdoutLines = %d", n)
	}
}
