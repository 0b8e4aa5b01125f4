package e2e_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcp-host/mcp-host/e2e/internal/testenv"
)

// The npm memory and sequential-thinking servers, started by the host
// binary under the default sandbox, answer a tool call each. The memory
// server configured as its README says, MEMORY_FILE_PATH naming a file
// outside its cwd, works unchanged: the user's own words are a grant (the
// file's directory, which it replaces the file through), and mcp get
// shows it. Without the variable it keeps its graph beside its own
// script, which no server may write.
func TestSandboxMemoryAndThinkingServers(t *testing.T) {
	t.Parallel() // waits on processes most of its time (package doc: Parallel tests)
	memory := testenv.NodeBin(t, "mcp-server-memory")
	thinking := testenv.NodeBin(t, "mcp-server-sequential-thinking")
	s := newSandboxHome(t)
	graph := filepath.Join(s.project, "memory.jsonl")
	// Where the server writes without the variable: its package's dist.
	script, err := filepath.EvalSymlinks(memory[1])
	if err != nil {
		t.Fatal(err)
	}
	packaged := filepath.Join(filepath.Dir(script), "memory.jsonl")
	if _, err := os.Stat(packaged); err == nil {
		t.Fatalf("%s exists before the test: remove it (a run without the sandbox left it)", packaged)
	}
	t.Cleanup(func() { _ = os.Remove(packaged) })
	server := func(argv []string, env map[string]string) map[string]any {
		return map[string]any{"command": argv[0], "args": argv[1:], "env": env}
	}
	writeJSONFile(t, s.global, map[string]any{"version": 1, "mcp": map[string]any{"servers": map[string]any{
		"memory":      server(memory, map[string]string{"MEMORY_FILE_PATH": graph}),
		"memdefault":  server(memory, nil),
		"thinking":    server(thinking, map[string]string{"DISABLE_THOUGHT_LOGGING": "true"}),
		"thinkingraw": server(thinking, nil),
	}}})
	call := func(id, tool string, args any) (string, int) {
		b, _ := json.Marshal(args)
		return s.host(t, "mcp", "call", id, tool, "--args", string(b), "--yes")
	}
	entities := map[string]any{"entities": []any{map[string]any{"name": "sandbox", "entityType": "test", "observations": []string{"default policy"}}}}
	if out, code := call("memory", "create_entities", entities); code != 0 {
		t.Errorf("memory create_entities: exit %d\n%s", code, out)
	}
	if out, code := call("memory", "read_graph", map[string]any{}); code != 0 || !strings.Contains(out, "default policy") {
		t.Errorf("memory read_graph: exit %d\n%s", code, out)
	}
	if b, err := os.ReadFile(graph); err != nil || !strings.Contains(string(b), "default policy") {
		t.Errorf("the graph file outside the server's cwd: %v %q", err, b)
	}
	if out, _ := s.host(t, "mcp", "get", "memory"); !strings.Contains(out, "~/project (named in its config)") {
		t.Errorf("mcp get does not show the grant of MEMORY_FILE_PATH's directory:\n%s", out)
	}
	out, code := call("memdefault", "create_entities", entities)
	if _, err := os.Stat(packaged); err == nil || code == 0 {
		t.Errorf("the memory server wrote into its own package under the default sandbox (exit %d)\n%s", code, out)
	}
	if !strings.Contains(out, "EACCES") && !strings.Contains(out, "permission denied") {
		t.Errorf("the refused write is not said:\n%s", out)
	}
	thought := map[string]any{"thought": "one step", "nextThoughtNeeded": false, "thoughtNumber": 1, "totalThoughts": 1}
	for _, id := range []string{"thinking", "thinkingraw"} {
		if out, code := call(id, "sequentialthinking", thought); code != 0 || !strings.Contains(out, "thoughtNumber") {
			t.Errorf("%s sequentialthinking: exit %d\n%s", id, code, out)
		}
	}
}

// A server refused by its sandbox says so where the user looks: host mcp
// test's probe and host mcp call name the refused path and the grant. The
// memory server under strict (which grants no paths its env names) keeps
// its graph outside what strict lets it write.
func TestSandboxRefusalNamedByTestAndCall(t *testing.T) {
	t.Parallel() // waits on processes most of its time (package doc: Parallel tests)
	memory := testenv.NodeBin(t, "mcp-server-memory")
	s := newSandboxHome(t)
	graph := filepath.Join(s.project, "memory.jsonl")
	writeJSONFile(t, s.global, map[string]any{"version": 1, "mcp": map[string]any{"servers": map[string]any{
		"memory": map[string]any{"command": memory[0], "args": memory[1:], "env": map[string]string{"MEMORY_FILE_PATH": graph}, "sandbox": "strict"},
	}}})
	entities := `{"entities":[{"name":"x","entityType":"t","observations":["o"]}]}`
	out, code := s.host(t, "mcp", "test", "memory", "--probe", "create_entities", "--args", entities)
	if code != 1 || !strings.Contains(out, "probe failed: memory/create_entities") || !strings.Contains(out, "the sandbox denied "+graph) || !strings.Contains(out, `grant it with "sandbox": {"filesystem"`) {
		t.Errorf("mcp test --probe: exit %d, want 1, the refused path and the grant:\n%s", code, out)
	}
	out, code = s.host(t, "mcp", "call", "memory", "create_entities", "--args", entities, "--yes")
	if code != 1 || !strings.Contains(out, "the sandbox denied "+graph) {
		t.Errorf("mcp call: exit %d, want 1 and the refused path:\n%s", code, out)
	}
	// Under the default the same configuration works: its env is a grant.
	writeJSONFile(t, s.global, map[string]any{"version": 1, "mcp": map[string]any{"servers": map[string]any{
		"memory": map[string]any{"command": memory[0], "args": memory[1:], "env": map[string]string{"MEMORY_FILE_PATH": graph}},
	}}})
	if out, code := s.host(t, "mcp", "test", "memory", "--probe", "create_entities", "--args", entities); code != 0 || !strings.Contains(out, "probe: memory/create_entities answered") {
		t.Errorf("default: mcp test --probe: exit %d:\n%s", code, out)
	}
}
