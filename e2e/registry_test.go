package e2e_test

import (
	"archive/zip"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"encoding/pem"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/mcp-host/mcp-host/e2e/internal/testenv"
)

// bundleServer is a whole MCP server over stdio in plain Node: one tool,
// greet, that answers $GREETING and the bundle's version.
const bundleServer = `const rl = require('readline').createInterface({input: process.stdin});
const V = %q;
rl.on('line', (l) => {
  let m; try { m = JSON.parse(l); } catch { return; }
  if (m.id === undefined) return;
  let r;
  if (m.method === 'initialize') r = {protocolVersion: m.params.protocolVersion, capabilities: {tools: {}}, serverInfo: {name: 'bundle', version: V}};
  else if (m.method === 'tools/list') r = {tools: [{name: 'greet', description: 'greets', inputSchema: {type: 'object', properties: {}}}]};
  else if (m.method === 'tools/call') r = {content: [{type: 'text', text: (process.env.GREETING || '') + ' from bundle ' + V}]};
  else if (m.method === 'ping') r = {};
  else { process.stdout.write(JSON.stringify({jsonrpc: '2.0', id: m.id, error: {code: -32601, message: 'no ' + m.method}}) + '\n'); return; }
  process.stdout.write(JSON.stringify({jsonrpc: '2.0', id: m.id, result: r}) + '\n');
});
`

// mcpb builds an MCPB bundle (a zip with manifest.json) of bundleServer.
func mcpb(t *testing.T, version string) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for name, body := range map[string]string{
		"manifest.json":   `{"manifest_version":"0.3","name":"e2e-bundle","version":"` + version + `","server":{"type":"node","entry_point":"server/index.js","mcp_config":{"command":"node","args":["${__dirname}/server/index.js"]}}}`,
		"server/index.js": strings.Replace(bundleServer, "%q", `"`+version+`"`, 1),
	} {
		w, err := zw.Create(name)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = w.Write([]byte(body))
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func sha(b []byte) string { s := sha256.Sum256(b); return hex.EncodeToString(s[:]) }

const schemaURL = "https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json"

func writeSeed(t *testing.T, path string, servers ...map[string]any) {
	t.Helper()
	for _, s := range servers {
		s["$schema"] = schemaURL
	}
	data, _ := json.Marshal(servers)
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

func bundleEntry(name, version, url, hash string) map[string]any {
	return map[string]any{"name": name, "description": "a bundle the test builds", "version": version,
		"packages": []any{map[string]any{"registryType": "mcpb", "identifier": url, "fileSha256": hash, "transport": map[string]any{"type": "stdio"},
			"environmentVariables": []any{map[string]any{"name": "GREETING", "isRequired": true, "description": "what greet says"}}}}}
}

// TestRegistryInstallRunUpdate runs the official MCP registry server
// (built from its Go module) on a PostgreSQL the test starts, seeded with
// an npm server the suite installs, an MCPB bundle the test builds (and a
// tampered one), a remote and a PyPI package; then host mcp search, add
// --from-registry, call, and update to a new version with re-approval.
func TestRegistryInstallRunUpdate(t *testing.T) {
	t.Parallel() // waits on processes most of its time (package doc: Parallel tests)
	node := testenv.Node(t)
	npx, err := exec.LookPath("npx")
	testenv.Require(t, "npx (npm)", err)
	db := testenv.StartPostgres(t)

	v1, v2 := mcpb(t, "1.0.0"), mcpb(t, "1.1.0")
	files := map[string][]byte{"/b-1.0.0.mcpb": v1, "/b-1.1.0.mcpb": v2, "/tampered.mcpb": append(append([]byte{}, v1...), 0)}
	bundles := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if b, ok := files[r.URL.Path]; ok {
			_, _ = w.Write(b)
			return
		}
		http.NotFound(w, r)
	}))
	defer bundles.Close()

	// The remote: server-everything over Streamable HTTP behind TLS on
	// [::1] (the registry takes only https remotes, and not 127.0.0.1); the
	// host trusts the test's certificate through SSL_CERT_FILE.
	upstream, err := url.Parse(testenv.StartEverything(t, "streamableHttp"))
	if err != nil {
		t.Fatal(err)
	}
	var remoteKey atomic.Value
	proxy := httputil.NewSingleHostReverseProxy(upstream)
	remote := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if k := r.Header.Get("X-Api-Key"); k != "" {
			remoteKey.Store(k)
		}
		r.Host = upstream.Host
		proxy.ServeHTTP(w, r)
	}))
	ln, err := net.Listen("tcp", "[::1]:0")
	testenv.Require(t, "an IPv6 loopback address", err)
	remote.Listener = ln
	remote.StartTLS()
	defer remote.Close()

	tmp := t.TempDir()
	caFile := filepath.Join(tmp, "ca.pem")
	if err := os.WriteFile(caFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: remote.Certificate().Raw}), 0o644); err != nil {
		t.Fatal(err)
	}
	seed1, seed2 := filepath.Join(tmp, "seed1.json"), filepath.Join(tmp, "seed2.json")
	writeSeed(t, seed1,
		map[string]any{"name": "io.github.e2e/everything", "description": "the MCP everything server\u001b]0;pwned\u0007\u001b[2J", "version": "1.0.0",
			"packages": []any{map[string]any{"registryType": "npm", "identifier": "@modelcontextprotocol/server-everything", "version": "2026.8.31",
				"transport":            map[string]any{"type": "stdio"},
				"environmentVariables": []any{map[string]any{"name": "E2E_API_KEY", "isSecret": true, "isRequired": true, "description": "an API key"}}}}},
		bundleEntry("io.github.e2e/bundle", "1.0.0", bundles.URL+"/b-1.0.0.mcpb", sha(v1)),
		bundleEntry("io.github.e2e/tampered", "1.0.0", bundles.URL+"/tampered.mcpb", sha(v1)),
		map[string]any{"name": "io.github.e2e/remote", "description": "a hosted server", "version": "1.0.0",
			"remotes": []any{map[string]any{"type": "streamable-http", "url": remote.URL + "/mcp",
				"headers": []any{map[string]any{"name": "X-Api-Key", "isSecret": true, "isRequired": true}}}}},
		map[string]any{"name": "io.github.e2e/python", "description": "needs uvx", "version": "1.0.0",
			"packages": []any{map[string]any{"registryType": "pypi", "identifier": "mcp-server-e2e", "version": "1.0.0", "transport": map[string]any{"type": "stdio"}}}},
	)
	reg := testenv.StartRegistry(t, db, seed1)

	h := newHostCLI(t)
	h.dir = filepath.Join(testenv.RepoRoot(t), "e2e", "node") // npx finds the pinned package here, offline
	home := filepath.Join(tmp, "home")
	if err := os.MkdirAll(home, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(home, ".npmrc"), []byte("offline=true\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	const secret = "e2e-registry-secret-4f1c9a"
	env := []string{"MCP_HOST_REGISTRY=" + reg.URL, "HOME=" + home, "XDG_CONFIG_HOME=" + filepath.Join(tmp, "xdg-config"),
		"MCP_HOST_CACHE_DIR=" + filepath.Join(tmp, "cache"), "MCP_HOST_DATA_DIR=" + filepath.Join(tmp, "data"),
		"MCP_HOST_TOKEN_STORE=file", "SSL_CERT_FILE=" + caFile, "PATH=" + filepath.Dir(node) + string(os.PathListSeparator) + filepath.Dir(npx) + string(os.PathListSeparator) + "/usr/bin:/bin"}

	// search: the seeded servers, fresh, then from the cache with its age.
	out, errOut, code := h.run(t, env, "mcp", "search", "io.github.e2e")
	for _, want := range []string{"io.github.e2e/everything", "io.github.e2e/bundle", "io.github.e2e/remote", "remote:streamable-http", "mcpb", "fresh"} {
		if code != 0 || !strings.Contains(out, want) {
			t.Fatalf("search: code %d, want %q:\n%s%s", code, want, out, errOut)
		}
	}
	if strings.ContainsAny(out, "\x1b\x07") {
		t.Fatalf("search printed the publisher's control characters: %q", out)
	}
	if out, _, _ = h.run(t, env, "mcp", "search", "io.github.e2e"); !strings.Contains(out, "cached ") {
		t.Fatalf("second search: want the cache's age:\n%s", out)
	}

	// The managed policy judges what an entry would run before anything is
	// written (here: a deny rule on npx -y with any package).
	policyFile := filepath.Join(tmp, "managed.json")
	if err := os.WriteFile(policyFile, []byte(`{"deny": [{"command": ["npx", "-y", "*"]}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	_, errOut, code = h.run(t, append(env, "MCP_HOST_MANAGED_POLICY="+policyFile), "mcp", "add", "ev", "--from-registry", "io.github.e2e/everything", "--yes")
	if code != 4 || !strings.Contains(errOut, "refused") || !strings.Contains(errOut, "deny[0]") || !strings.Contains(errOut, "nothing was written") {
		t.Fatalf("add under a policy that denies it: code %d:\n%s", code, errOut)
	}
	if _, err := os.Stat(h.global); err == nil {
		t.Fatal("a refused registry entry was written")
	}

	// npm: what runs is shown first; without a terminal, --yes is needed.
	_, errOut, code = h.run(t, env, "mcp", "add", "ev", "--from-registry", "io.github.e2e/everything")
	if code != 4 || !strings.Contains(errOut, "npx -y @modelcontextprotocol/server-everything@2026.8.31") || !strings.Contains(errOut, "--yes") {
		t.Fatalf("add without --yes: code %d:\n%s", code, errOut)
	}
	out, errOut, code = h.run(t, env, "mcp", "add", "ev", "--from-registry", "io.github.e2e/everything", "--yes")
	if code != 0 || !strings.Contains(out, "export E2E_API_KEY=") {
		t.Fatalf("add ev: code %d:\n%s%s", code, out, errOut)
	}
	out, _, _ = h.run(t, env, "mcp", "get", "ev")
	if !strings.Contains(out, "io.github.e2e/everything@1.0.0 (npm from "+reg.URL) {
		t.Fatalf("mcp get ev: want where it was installed from:\n%s", out)
	}
	out, errOut, code = h.run(t, append(env, "E2E_API_KEY="+secret), "mcp", "call", "ev", "echo", "--args", `{"message":"hi from the registry"}`, "--yes")
	if code != 0 || !strings.Contains(out, "hi from the registry") {
		t.Fatalf("call ev echo: code %d:\n%s%s", code, out, errOut)
	}

	// mcpb in a project: verified, unpacked, approved, run.
	_, errOut, code = h.run(t, env, "mcp", "add", "b", "-s", "project", "--from-registry", "io.github.e2e/bundle@1.0.0", "--yes")
	if code != 2 || !strings.Contains(errOut, "--var GREETING=") {
		t.Fatalf("add b without its value: code %d:\n%s", code, errOut)
	}
	out, errOut, code = h.run(t, env, "mcp", "add", "b", "-s", "project", "--from-registry", "io.github.e2e/bundle@1.0.0", "--var", "GREETING=hello", "--yes")
	if code != 0 || !strings.Contains(errOut, "GREETING=hello node "+filepath.Join(tmp, "data", "bundles")) {
		t.Fatalf("add b: code %d:\n%s%s", code, out, errOut)
	}
	t.Cleanup(func() { _ = os.RemoveAll(filepath.Join(h.dir, ".mcp-host")) })
	callB := func(want string) {
		t.Helper()
		_, errOut, code := h.run(t, env, "mcp", "call", "b", "greet", "--yes")
		if code != 4 || !strings.Contains(errOut, "approv") {
			t.Fatalf("call b before approval: code %d:\n%s", code, errOut)
		}
		if _, errOut, code := h.run(t, env, "mcp", "approve", "b"); code != 0 {
			t.Fatalf("approve b: code %d:\n%s", code, errOut)
		}
		out, errOut, code := h.run(t, env, "mcp", "call", "b", "greet", "--yes")
		if code != 0 || !strings.Contains(out, want) {
			t.Fatalf("call b greet: code %d, want %q:\n%s%s", code, want, out, errOut)
		}
	}
	callB("hello from bundle 1.0.0")

	// The unpacked bundle changed behind the host's back (by another
	// program, or a server with "sandbox": false) does not run: it is
	// checked against its digest at install before each start.
	scripts, _ := filepath.Glob(filepath.Join(tmp, "data", "bundles", "*", "*", "server", "index.js"))
	if len(scripts) == 0 {
		t.Fatalf("no unpacked script under %s", filepath.Join(tmp, "data", "bundles"))
	}
	orig, err := os.ReadFile(scripts[0])
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(scripts[0], append(append([]byte{}, orig...), []byte("\n// planted\n")...), 0o600); err != nil {
		t.Fatal(err)
	}
	if out, errOut, code := h.run(t, env, "mcp", "call", "b", "greet", "--yes"); code == 0 || !strings.Contains(out+errOut, "changed since it was installed") {
		t.Errorf("call b with its bundle changed: code %d, want a refusal saying so:\n%s%s", code, out, errOut)
	}
	if err := os.WriteFile(scripts[0], orig, 0o600); err != nil {
		t.Fatal(err)
	}
	if out, errOut, code := h.run(t, env, "mcp", "call", "b", "greet", "--yes"); code != 0 || !strings.Contains(out, "hello from bundle 1.0.0") {
		t.Errorf("call b with its bundle restored: code %d:\n%s%s", code, out, errOut)
	}

	// A bundle whose bytes are not what the registry's hash says is
	// refused, and nothing is written.
	_, errOut, code = h.run(t, env, "mcp", "add", "t", "--from-registry", "io.github.e2e/tampered", "--var", "GREETING=x", "--yes")
	if code == 0 || !strings.Contains(errOut, "SHA-256") || !strings.Contains(errOut, "nothing was written") {
		t.Fatalf("tampered: code %d:\n%s", code, errOut)
	}
	// A package this machine cannot run says so before anything is written.
	if _, err := exec.LookPath("uvx"); err != nil {
		_, errOut, code = h.run(t, env, "mcp", "add", "py", "--from-registry", "io.github.e2e/python", "--yes")
		if code != 2 || !strings.Contains(errOut, "needs uvx") || !strings.Contains(errOut, "nothing was written") {
			t.Fatalf("pypi without uvx: code %d:\n%s", code, errOut)
		}
	}
	// A remote: its secret header is a ${VAR} reference, sent from the
	// environment.
	out, errOut, code = h.run(t, env, "mcp", "add", "rem", "--from-registry", "io.github.e2e/remote", "--yes")
	if code != 0 || !strings.Contains(errOut, "http "+remote.URL+"/mcp -H \"X-Api-Key: ${X_API_KEY}\"") || !strings.Contains(out, "export X_API_KEY=") {
		t.Fatalf("add remote: code %d:\n%s%s", code, out, errOut)
	}
	out, errOut, code = h.run(t, append(env, "X_API_KEY="+secret), "mcp", "call", "rem", "echo", "--args", `{"message":"hi over TLS"}`, "--yes")
	if code != 0 || !strings.Contains(out, "hi over TLS") || remoteKey.Load() != secret {
		t.Fatalf("call rem echo: code %d, key sent %v:\n%s%s", code, remoteKey.Load() == secret, out, errOut)
	}
	global, _ := os.ReadFile(h.global)
	for _, id := range []string{`"t"`, `"py"`} {
		if bytes.Contains(global, []byte(id+":")) {
			t.Fatalf("refused entry %s was written:\n%s", id, global)
		}
	}

	// A new version: update shows both command lines, then the project
	// server needs approval again before it runs the new bundle.
	out, _, _ = h.run(t, env, "mcp", "update", "b", "--scope", "project", "--yes")
	if !strings.Contains(out, "up to date") {
		t.Fatalf("update before a new version: %s", out)
	}
	writeSeed(t, seed2, bundleEntry("io.github.e2e/bundle", "1.1.0", bundles.URL+"/b-1.1.0.mcpb", sha(v2)))
	reg.Reseed(t, seed2)
	out, errOut, code = h.run(t, env, "mcp", "update", "b", "--scope", "project", "--yes")
	if code != 0 || !strings.Contains(errOut, "1.0.0 -> 1.1.0") || !strings.Contains(errOut, "now: GREETING=hello node") || !strings.Contains(out, "approve it again") {
		t.Fatalf("update b: code %d:\n%s%s", code, out, errOut)
	}
	callB("hello from bundle 1.1.0")

	// The secret is in no file: config, project file, approvals, tokens,
	// cache, bundles, the home directory.
	for _, root := range []string{tmp, filepath.Dir(h.global), filepath.Join(h.dir, ".mcp-host")} {
		_ = filepath.Walk(root, func(p string, info os.FileInfo, err error) error {
			if err != nil || info.IsDir() {
				return nil
			}
			if b, _ := os.ReadFile(p); bytes.Contains(b, []byte(secret)) {
				t.Errorf("the secret is in %s", p)
			}
			return nil
		})
	}
}
