package runtime_test

import (
	"os"
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
	if st.Sandbox == nil || st.Sandbox.State != sandbox.StatePending || !strings.HasPrefix(st.Sandbox.Summary, "strict: reads system, toolchains, own files") {
		t.Fatalf("sandbox status %+v", st.Sandbox)
	}
	fields := strings.Join(st.Approval.Fields, "\n")
	if !strings.Contains(fields, `sandbox: "strict"`) || !strings.Contains(fields, "sandbox policy: strict: reads system") {
		t.Errorf("approval fields lack the policy:\n%s", fields)
	}
}

// A manager without a sandbox shows none; with one, a server runs
// confined and says how ("sandbox: active (Landlock ABI n)"), required or
// not. (A required sandbox the kernel cannot give is refused by
// sandbox.Wrap: see runtime/sandbox's TestWrapRequiredWithoutLandlock.)
func TestSandboxStatusOnStart(t *testing.T) {
	if goruntime.GOOS != "linux" {
		t.Skip("Landlock is the Linux mechanism")
	}
	if ok, why := sandbox.Available(); !ok {
		if os.Getenv("E2E_REQUIRED") == "1" {
			t.Fatalf("no sandbox here: %s", why)
		}
		t.Skipf("SKIPPED: no sandbox here: %s", why)
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
	for _, id := range []string{"loose", "must"} {
		st := waitState(t, m, id, runtime.StateError, 5*time.Second)
		if st.Sandbox == nil || st.Sandbox.State != sandbox.StateActive || !strings.HasPrefix(st.Sandbox.Detail, "Landlock ABI ") {
			t.Errorf("%s: sandbox %+v", id, st.Sandbox)
		}
		if strings.Contains(st.LastError, "required") || !strings.Contains(st.LastError, "the server ran in a sandbox") {
			t.Errorf("%s: error %q, want the server's own end, confined", id, st.LastError)
		}
	}
}

// A project file's server that names a path outside its cwd is not
// started, so not granted it, before the user approves it; the approval
// shows the grant its words would give.
func TestSandboxWordsShownInTheApproval(t *testing.T) {
	store, err := approval.OpenStore("")
	if err != nil {
		t.Fatal(err)
	}
	data := t.TempDir()
	m := runtime.NewManager(runtime.ManagerOptions{Approvals: store, Sandbox: &runtime.SandboxOptions{}})
	t.Cleanup(func() { m.Close() })
	e := stdioEntry("proj", nil, data)
	e.Source, e.DefinedIn, e.Path, e.DefinedPath = config.SourceProject, config.SourceProject, "/repo/.mcp-host/config.json", "/repo/.mcp-host/config.json"
	m.Apply([]config.ServerEntry{e})
	st := waitState(t, m, "proj", runtime.StateApprovalRequired, 5*time.Second)
	if st.Sandbox == nil || st.Sandbox.State != sandbox.StatePending {
		t.Fatalf("sandbox status %+v", st.Sandbox)
	}
	if fields := strings.Join(st.Approval.Fields, "\n"); !strings.Contains(fields, data+" (named in its config)") {
		t.Errorf("the approval does not show the grant of %s:\n%s", data, fields)
	}
}
