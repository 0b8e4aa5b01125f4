package runtime_test

import (
	goruntime "runtime"
	"strings"
	"testing"
	"time"

	"github.com/mcp-host/mcp-host/runtime"
	"github.com/mcp-host/mcp-host/runtime/approval"
	"github.com/mcp-host/mcp-host/runtime/config"
	"github.com/mcp-host/mcp-host/runtime/sandbox"
)

func stdioEntry(id string, p *sandbox.Policy, args ...string) config.ServerEntry {
	return config.ServerEntry{ID: id, Source: config.SourceGlobal, DefinedIn: config.SourceGlobal,
		Config: config.ServerConfig{Command: "sh", Args: args, Sandbox: p}}
}

// A project server waiting for approval shows its sandbox policy, in the
// status and among the fields the user approves.
func TestSandboxPolicyShownBeforeStart(t *testing.T) {
	store, err := approval.OpenStore("")
	if err != nil {
		t.Fatal(err)
	}
	m := runtime.NewManager(runtime.ManagerOptions{Approvals: store, Sandbox: &runtime.SandboxOptions{}})
	t.Cleanup(func() { m.Close() })
	e := stdioEntry("proj", &sandbox.Policy{Base: sandbox.BaseStrict}, "-c", "exit 0")
	e.Source, e.DefinedIn, e.Path, e.DefinedPath = config.SourceProject, config.SourceProject, "/repo/.mcp-host/config.json", "/repo/.mcp-host/config.json"
	m.Apply([]config.ServerEntry{e})
	st := waitState(t, m, "proj", runtime.StateApprovalRequired, 5*time.Second)
	if st.Sandbox == nil || st.Sandbox.State != sandbox.StatePending || !strings.HasPrefix(st.Sandbox.Summary, "strict: reads system, own files") {
		t.Fatalf("sandbox status %+v", st.Sandbox)
	}
	fields := strings.Join(st.Approval.Fields, "\n")
	if !strings.Contains(fields, `sandbox: "strict"`) || !strings.Contains(fields, "sandbox policy: strict: reads system") {
		t.Errorf("approval fields lack the policy:\n%s", fields)
	}
}

// A manager without a sandbox shows none; one whose launcher is missing
// starts the server unconfined and says so, unless the policy requires
// the sandbox: then the server does not start, and is not retried.
func TestSandboxStatusOnStart(t *testing.T) {
	if goruntime.GOOS != "linux" {
		t.Skip("the launcher is the Linux mechanism")
	}
	plain := runtime.NewManager(runtime.ManagerOptions{})
	t.Cleanup(func() { plain.Close() })
	plain.Apply([]config.ServerEntry{stdioEntry("s", nil, "-c", "exit 3")})
	if st := waitState(t, plain, "s", runtime.StateError, 5*time.Second); st.Sandbox != nil {
		t.Errorf("no sandbox configured, status %+v", st.Sandbox)
	}

	m := runtime.NewManager(runtime.ManagerOptions{Sandbox: &runtime.SandboxOptions{}, MinBackoff: time.Hour, MaxBackoff: time.Hour})
	t.Cleanup(func() { m.Close() })
	m.Apply([]config.ServerEntry{
		stdioEntry("loose", nil, "-c", "exit 3"),
		stdioEntry("must", &sandbox.Policy{Required: true}, "-c", "exit 3"),
	})
	st := waitState(t, m, "loose", runtime.StateError, 5*time.Second)
	if st.Sandbox == nil || st.Sandbox.State != sandbox.StateUnavailable || st.Sandbox.Detail != "no launcher binary" {
		t.Errorf("loose: sandbox %+v", st.Sandbox)
	}
	if strings.Contains(st.LastError, "required") {
		t.Errorf("loose: %s", st.LastError)
	}
	st = waitState(t, m, "must", runtime.StateError, 5*time.Second)
	if !strings.Contains(st.LastError, "sandbox required but not available") || !st.NextRetryAt.IsZero() {
		t.Errorf("must: error %q, next retry %v; want the refusal, no retry", st.LastError, st.NextRetryAt)
	}
}
