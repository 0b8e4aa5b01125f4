package e2e_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcp-host/mcp-host/e2e/internal/testenv"
)

// TestTypeScriptClientInstalled treats @mcp-host/client as the npm package
// a desktop team installs (issue 34): it packs clients/typescript with
// npm pack, installs the tarball offline into a scratch project (strict
// tsconfig, module NodeNext), compiles a strict UI (e2e/clientpkg/ui.ts)
// and the README's example with the pinned tsc, checks that a wrong use of
// the types does not compile, and runs both against the real host serve
// with a scripted model and the demo's stdio server: initialize,
// mcp.list, a run.start whose tool call asks ui.confirm.request, allowed,
// and the run's final agent.event.
func TestTypeScriptClientInstalled(t *testing.T) {
	t.Parallel()
	node := testenv.Node(t)
	tsc := testenv.NodeBin(t, "tsc")
	npm, err := exec.LookPath("npm")
	testenv.Require(t, "npm", err)
	host := buildHost(t)
	root := testenv.RepoRoot(t)
	// npm runs with Node 22 (its #! line names env node) and a cache of
	// its own, and never asks the registry.
	npmEnv := append(os.Environ(), "PATH="+filepath.Dir(node)+string(os.PathListSeparator)+os.Getenv("PATH"),
		"npm_config_cache="+t.TempDir(), "npm_config_update_notifier=false", "npm_config_audit=false", "npm_config_fund=false")
	timed := func(what string, dir string, argv ...string) string {
		t.Helper()
		start := time.Now()
		cmd := exec.Command(argv[0], argv[1:]...)
		cmd.Dir, cmd.Env = dir, npmEnv
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%s (%s): %v\n%s", what, strings.Join(argv, " "), err, out)
		}
		t.Logf("%s: %v", what, time.Since(start).Round(time.Millisecond))
		return string(out)
	}

	// npm pack: the tarball ships the generated client, versions.js and
	// the README, and nothing else.
	packDir := t.TempDir()
	out := timed("npm pack", filepath.Join(root, "clients", "typescript"), npm, "pack", "--json", "--ignore-scripts", "--pack-destination", packDir)
	var packed []struct {
		Name     string `json:"name"`
		Version  string `json:"version"`
		Filename string `json:"filename"`
		Files    []struct {
			Path string `json:"path"`
		} `json:"files"`
	}
	if err := json.Unmarshal([]byte(out), &packed); err != nil || len(packed) != 1 {
		t.Fatalf("npm pack --json: %v\n%s", err, out)
	}
	var files []string
	for _, f := range packed[0].Files {
		files = append(files, f.Path)
	}
	slices.Sort(files)
	want := []string{"README.md", "index.d.ts", "index.js", "package.json", "schema.json", "versions.d.ts", "versions.js"}
	if packed[0].Name != "@mcp-host/client" || !slices.Equal(files, want) {
		t.Fatalf("npm pack: %s@%s with %v, want @mcp-host/client with %v", packed[0].Name, packed[0].Version, files, want)
	}
	tarball := filepath.Join(packDir, filepath.Base(packed[0].Filename))

	// The scratch project: the tarball installed offline, nothing else.
	proj := t.TempDir()
	src := filepath.Join(proj, "src")
	if err := os.Mkdir(src, 0o755); err != nil {
		t.Fatal(err)
	}
	writeJSONFile(t, filepath.Join(proj, "package.json"), map[string]any{"name": "strict-ui", "private": true, "type": "module"})
	writeJSONFile(t, filepath.Join(proj, "tsconfig.json"), map[string]any{
		"compilerOptions": map[string]any{
			"strict": true, "module": "NodeNext", "moduleResolution": "NodeNext", "target": "ES2022",
			"rootDir": "src", "outDir": "dist", "noEmitOnError": true, "skipLibCheck": false,
			// Node's types from the pinned @types/node in e2e/node.
			"types": []string{"node"}, "typeRoots": []string{filepath.Join(root, "e2e", "node", "node_modules", "@types")},
		},
		"include": []string{"src"},
	})
	timed("npm install (offline, the tarball)", proj, npm, "install", "--offline", "--ignore-scripts", "--no-package-lock", tarball)
	installed, err := os.ReadDir(filepath.Join(proj, "node_modules"))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range installed {
		if e.Name() != "@mcp-host" && !strings.HasPrefix(e.Name(), ".") {
			t.Errorf("npm install of the tarball brought %s: the package has runtime dependencies", e.Name())
		}
	}

	write := func(name string, data []byte) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(src, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ui, err := os.ReadFile(filepath.Join(root, "e2e", "clientpkg", "ui.ts"))
	if err != nil {
		t.Fatal(err)
	}
	write("ui.ts", ui)
	write("readme.ts", readmeExample(t, filepath.Join(root, "clients", "typescript", "README.md")))
	tscArgv := append(slices.Clone(tsc), "-p", filepath.Join(proj, "tsconfig.json"), "--strict")
	timed("tsc --strict", proj, tscArgv...)

	// The types are precise, not any: wrong uses do not compile.
	write("wrong.ts", []byte(`import { HostClient } from "@mcp-host/client";
const host = HostClient.spawn();
const id: number = (await host.runStart({ prompt: "x" })).run_id;
host.handle("confirm", () => ({ answer: 1 }));
await host.mcpGet({ server: 1 });
export { id };
`))
	cmd := exec.Command(tscArgv[0], tscArgv[1:]...)
	cmd.Dir = proj
	bad, err := cmd.CombinedOutput()
	for _, line := range []string{"3", "4", "5"} {
		if !regexp.MustCompile(`wrong\.ts\(` + line + `,\d+\): error TS\d+`).Match(bad) {
			t.Errorf("tsc accepts line %s of wrong.ts (err %v):\n%s", line, err, bad)
		}
	}
	t.Logf("tsc refuses wrong.ts:\n%s", bad)
	if err := os.Remove(filepath.Join(src, "wrong.ts")); err != nil {
		t.Fatal(err)
	}

	// The runs: a config with the demo's stdio server, a scripted model.
	dir := t.TempDir()
	config := filepath.Join(dir, "config.json")
	writeJSONFile(t, config, map[string]any{"version": 1, "mcp": map[string]any{"servers": map[string]any{
		"local": map[string]any{"transport": "stdio", "command": host, "args": []string{"demo-stdio-server"}},
	}}})
	writeJSONFile(t, filepath.Join(dir, "script.json"), []map[string]any{
		callStep(call("local/word_count", map[string]any{"text": "one two three"})),
		{"when_result_contains": "3 words", "text": "The text has 3 words."},
		{"text": "The count did not come back."},
	})
	run := func(name string) string {
		t.Helper()
		start := time.Now()
		cmd := exec.Command(node, filepath.Join(proj, "dist", name), filepath.Join(dir, "script.json"))
		// A cache of its own each: with the catalog the other run kept,
		// the server would start idle.
		cmd.Dir, cmd.Env = dir, append(os.Environ(), "MCP_HOST_BIN="+host, "MCP_HOST_CONFIG="+config, "MCP_HOST_SERVERS=",
			"MCP_HOST_TOKEN_STORE=file", "MCP_HOST_CACHE_DIR="+t.TempDir())
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("node dist/%s: %v\n%s", name, err, out)
		}
		t.Logf("node dist/%s (%v):\n%s", name, time.Since(start).Round(time.Millisecond), out)
		return string(out)
	}
	if out := run("ui.js"); !strings.Contains(out, "ui: PASS") {
		t.Errorf("ui.js did not pass:\n%s", out)
	}
	out = run("readme.js")
	for _, want := range []string{"local ready 2 tools", "confirm: Allow local/word_count?", "completed: The text has 3 words."} {
		if !strings.Contains(out, want) {
			t.Errorf("the README's example printed no %q:\n%s", want, out)
		}
	}
}

// readmeExample returns the TypeScript block of the client's README.
func readmeExample(t *testing.T, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile("(?s)\n```ts\n(.*?)\n```\n").FindSubmatch(data)
	if m == nil {
		t.Fatalf("%s has no ```ts block", path)
	}
	return append(m[1], '\n')
}
