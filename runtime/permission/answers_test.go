package permission

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestListAndRevoke: the remembered answers are listed with their scope
// and time, and revoked one tool, one server or all at a time; nothing to
// revoke names the server and tool.
func TestListAndRevoke(t *testing.T) {
	path := filepath.Join(t.TempDir(), "permissions.json")
	s, err := OpenStore(path)
	if err != nil {
		t.Fatal(err)
	}
	at := time.Date(2026, 11, 27, 8, 0, 0, 0, time.UTC)
	s.now = func() time.Time { return at }
	for _, err := range []error{s.AllowTool("gh|k1", "create_issue", "d1"), s.AllowTool("gh|k1", "list", "d2"), s.AllowServer("fs|k2")} {
		if err != nil {
			t.Fatal(err)
		}
	}
	got, err := s.List("")
	if err != nil {
		t.Fatal(err)
	}
	want := []Remembered{
		{Server: "fs", Identity: "k2", Scope: ScopeServer, At: at},
		{Server: "gh", Identity: "k1", Tool: "create_issue", Scope: ScopeTool, At: at},
		{Server: "gh", Identity: "k1", Tool: "list", Scope: ScopeTool, At: at},
	}
	if len(got) != len(want) {
		t.Fatalf("List = %+v", got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("List[%d] = %+v, want %+v", i, got[i], want[i])
		}
	}
	if _, err := s.Revoke("gh", "nope"); !errors.Is(err, ErrNoAnswer) || !strings.Contains(err.Error(), `tool "nope" of server "gh"`) {
		t.Errorf("revoke an unknown tool: %v", err)
	}
	if _, err := s.Revoke("fs", "read"); err == nil || !strings.Contains(err.Error(), "revoke the server's answer instead") {
		t.Errorf("revoke a tool of an always-allowed server: %v", err)
	}
	if _, err := s.Revoke("nobody", ""); !errors.Is(err, ErrNoAnswer) || !strings.Contains(err.Error(), `server "nobody"`) {
		t.Errorf("revoke an unknown server: %v", err)
	}
	if gone, err := s.Revoke("gh", "list"); err != nil || len(gone) != 1 || gone[0].Tool != "list" {
		t.Fatalf("revoke gh/list: %+v %v", gone, err)
	}
	if ok, _ := s.Lookup("gh|k1", "list", "d2"); ok {
		t.Error("revoked tool still allowed")
	}
	if ok, _ := s.Lookup("gh|k1", "create_issue", "d1"); !ok {
		t.Error("the server's other tool was revoked too")
	}
	if gone, err := s.Revoke("", ""); err != nil || len(gone) != 2 {
		t.Fatalf("revoke all: %+v %v", gone, err)
	}
	if _, err := s.Revoke("", ""); !errors.Is(err, ErrNoAnswer) {
		t.Errorf("revoke all of nothing: %v", err)
	}
}

// TestRevokeByAnotherProcess: an answer another process (host mcp
// permissions revoke) takes back no longer allows a call in this one: the
// gate asks again.
func TestRevokeByAnotherProcess(t *testing.T) {
	path := filepath.Join(t.TempDir(), "permissions.json")
	serve, _ := OpenStore(path)
	tool := newTool(t, "gh", &mcp.Tool{Name: "create_issue"})
	rec := &recorder{answers: []Response{{Answer: AllowTool}, {Answer: Deny}}}
	g := mustGate(t, Options{Store: serve, Confirmer: rec})
	if v, _ := g.Check(context.Background(), tool, args); !v.Allow || rec.asked() != 1 {
		t.Fatalf("first call: %+v", v)
	}
	if v, _ := g.Check(context.Background(), tool, args); v.By != ByRemembered {
		t.Fatalf("second call: %+v", v)
	}
	cli, _ := OpenStore(path)
	if _, err := cli.Revoke("gh", "create_issue"); err != nil {
		t.Fatal(err)
	}
	if v, _ := g.Check(context.Background(), tool, args); v.Allow || rec.asked() != 2 {
		t.Errorf("after another process revoked it: %+v, asked %d times", v, rec.asked())
	}
}
