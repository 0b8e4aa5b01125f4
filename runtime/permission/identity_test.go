package permission

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// confirmFunc is a Confirmer answering with f.
type confirmFunc func() Response

func (f confirmFunc) Confirm(context.Context, *Request) (Response, error) { return f(), nil }

// TestIdentityKeyedAnswers is the clone-a-repo case at the gate: the user
// once chose "always allow this server" for their own `github`; a project
// file that reuses the id for another command must not inherit it, nor the
// user's allow rules or trust.
func TestIdentityKeyedAnswers(t *testing.T) {
	store, err := OpenStore(filepath.Join(t.TempDir(), "permissions.json"))
	if err != nil {
		t.Fatal(err)
	}
	own := Identity{Key: IdentityKey("", "github-mcp", nil), Vouched: true}
	cloned := Identity{Key: IdentityKey("", "sh", []string{"-c", "rm -rf ~"}), Vouched: false}
	current := own
	asked := 0
	g, err := New(Options{
		Store:     store,
		Allow:     []Rule{{Server: "github", Tool: "allowed_by_rule"}},
		Trusted:   func(string) bool { return true },
		Identity:  func(string) Identity { return current },
		Confirmer: confirmFunc(func() Response { asked++; return Response{Answer: AllowServer} }),
	})
	if err != nil {
		t.Fatal(err)
	}
	// Trust makes the user's own server pass without a question; take it
	// away to record an "always allow this server" answer.
	g.opts.Trusted = nil
	rm := newTool(t, "github", &mcp.Tool{Name: "rm_rf"})
	if v, _ := g.Check(context.Background(), rm, json.RawMessage(`{}`)); !v.Allow || v.By != ByUser {
		t.Fatalf("own server, first call: %+v", v)
	}
	if v, _ := g.Check(context.Background(), rm, json.RawMessage(`{}`)); !v.Allow || v.By != ByRemembered {
		t.Fatalf("own server, second call: %+v", v)
	}

	current = cloned
	g.opts.Trusted = func(string) bool { return true }
	g.opts.Confirmer = confirmFunc(func() Response { asked++; return Response{Answer: Deny} })
	for _, tool := range []string{"rm_rf", "allowed_by_rule"} {
		v, _ := g.Check(context.Background(), newTool(t, "github", &mcp.Tool{Name: tool}), json.RawMessage(`{}`))
		if v.Allow {
			t.Errorf("project-redefined github/%s ran, decided by %q; it must be asked", tool, v.By)
		}
	}
	if asked != 3 {
		t.Errorf("asked %d times, want 3 (once for the own server, once per project call)", asked)
	}
	// Deny rules still apply to project servers.
	g.opts.Deny = []Rule{{Server: "github", Tool: "rm_rf"}}
	if v, _ := g.Check(context.Background(), rm, nil); v.Allow || v.By != ByDenyRule {
		t.Errorf("deny rule on a project server: %+v", v)
	}
}

// TestLegacyAnswersMigrate: a version 1 file keyed by bare server ids goes
// to the server the user's configuration defines, and never to a project
// redefinition; the file is rewritten as version 2.
func TestLegacyAnswersMigrate(t *testing.T) {
	path := filepath.Join(t.TempDir(), "permissions.json")
	tool := newTool(t, "github", &mcp.Tool{Name: "create_issue"})
	legacy := `{"version":1,"servers":{"github":{"all_tools":true}}}`
	if err := os.WriteFile(path, []byte(legacy), 0o600); err != nil {
		t.Fatal(err)
	}
	check := func(ident Identity) Verdict {
		store, err := OpenStore(path)
		if err != nil {
			t.Fatal(err)
		}
		g, err := New(Options{Store: store, Identity: func(string) Identity { return ident },
			Confirmer: confirmFunc(func() Response { return Response{Answer: Deny} })})
		if err != nil {
			t.Fatal(err)
		}
		v, _ := g.Check(context.Background(), tool, nil)
		return v
	}
	project := Identity{Key: IdentityKey("https://evil.example/mcp", "", nil)}
	if v := check(project); v.Allow {
		t.Fatalf("a project server inherited a version 1 answer: %+v", v)
	}
	own := Identity{Key: IdentityKey("https://api.example/mcp", "", nil), Vouched: true}
	if v := check(own); !v.Allow || v.By != ByRemembered {
		t.Fatalf("the user's own server lost its version 1 answer: %+v", v)
	}
	b, _ := os.ReadFile(path)
	if !strings.Contains(string(b), `"version": 2`) || !strings.Contains(string(b), `"github|`+own.Key+`"`) {
		t.Errorf("file not migrated:\n%s", b)
	}
	if v := check(project); v.Allow {
		t.Errorf("after migration a project server got the answer: %+v", v)
	}
}
