package e2e_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcp-host/mcp-host/e2e/internal/testenv"
)

// peerCLI runs one of the peers' own CLIs (claude, codex, gemini: pinned
// in e2e/node/package.json) with HOME set to home, in dir.
func peerCLI(t *testing.T, home, dir, bin string, args ...string) {
	t.Helper()
	argv := testenv.NodeBin(t, bin)
	if !strings.HasSuffix(argv[1], "js") {
		// Claude Code's bin is its native executable (the package's
		// postinstall put it there), not a script for node.
		argv = argv[1:]
	}
	cmd := exec.Command(argv[0], append(argv[1:], args...)...)
	cmd.Dir = dir
	if err := os.MkdirAll(filepath.Join(home, ".codex"), 0o700); err != nil {
		t.Fatal(err)
	}
	// The CLIs keep everything under HOME; no login, no network is needed
	// to add a server.
	cmd.Env = append(os.Environ(), "HOME="+home, "CODEX_HOME="+filepath.Join(home, ".codex"),
		"PATH="+filepath.Dir(testenv.Node(t))+string(os.PathListSeparator)+os.Getenv("PATH"),
		"NO_BROWSER=1", "CI=1", "DISABLE_AUTOUPDATER=1", "GEMINI_CLI_NO_RELAUNCH=true")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s %s: %v\n%s", bin, strings.Join(args, " "), err, out)
	}
}

// TestImportFromPeers has Claude Code, Codex and Gemini CLI write their
// own configuration files with their own "mcp add", then imports each with
// "host mcp import --from" and reads the servers back with "host mcp list":
// every scope the CLI wrote is found, secrets become ${VAR} references,
// each client's variable forms become ours, and Gemini's "trust" is not
// carried over.
func TestImportFromPeers(t *testing.T) {
	t.Parallel() // waits on processes most of its time (package doc: Parallel tests)
	for _, tc := range []struct {
		peer, bin string
		adds      [][]string
		// want: server id, then strings its config must hold.
		want   map[string][]string
		absent []string
	}{
		{
			peer: "claude-code", bin: "claude",
			adds: [][]string{
				{"mcp", "add", "-s", "user", "files", "-e", "API_KEY=k3y-claude", "-e", "ROOT_DIR=${ROOT:-/srv}", "--", "npx", "-y", "server-fs", "${ROOT}"},
				{"mcp", "add", "-s", "local", "--transport", "http", "-H", "Authorization: Bearer s3cr3t-claude", "--client-id", "cid", "--callback-port", "8765", "sentry", "https://mcp.sentry.example/mcp"},
				{"mcp", "add", "-s", "project", "--transport", "sse", "legacy", "https://sse.example/sse"},
			},
			want: map[string][]string{
				"files":  {`"API_KEY": "${FILES_API_KEY}"`, `"ROOT_DIR": "${ROOT:-/srv}"`, `"${ROOT}"`},
				"sentry": {`"Authorization": "Bearer ${SENTRY_AUTHORIZATION}"`, `"client_id": "cid"`, `"callback_port": 8765`},
				"legacy": {`"transport": "sse"`},
			},
			absent: []string{"k3y-claude", "s3cr3t-claude"},
		},
		{
			peer: "codex", bin: "codex",
			adds: [][]string{
				{"mcp", "add", "--env", "API_KEY=k3y-codex", "docs", "--", "npx", "-y", "docs-mcp"},
				{"mcp", "add", "--url", "https://api.example/mcp", "--bearer-token-env-var", "GH_TOKEN", "gh"},
			},
			want: map[string][]string{
				"docs": {`"API_KEY": "${DOCS_API_KEY}"`, `"docs-mcp"`},
				"gh":   {`"Authorization": "Bearer ${GH_TOKEN}"`, `"transport": "http"`},
			},
			absent: []string{"k3y-codex"},
		},
		{
			peer: "gemini", bin: "gemini",
			adds: [][]string{
				{"mcp", "add", "-s", "user", "--trust", "--timeout", "5000", "--include-tools", "a,b", "-e", "TOKEN=$GH_PAT", "tools", "npx", "-y", "tools-mcp"},
				{"mcp", "add", "-t", "http", "-H", "X-Api-Key: k3y-gemini", "web", "https://web.example/mcp"},
			},
			want: map[string][]string{
				"tools": {`"TOKEN": "${GH_PAT}"`, `"request_timeout_ms": 5000`, `"a",`},
				"web":   {`"X-Api-Key": "${WEB_X_API_KEY}"`, `"transport": "http"`},
			},
			absent: []string{"k3y-gemini", `"trust"`},
		},
	} {
		t.Run(tc.peer, func(t *testing.T) {
			h := newHostCLI(t)
			home := t.TempDir()
			for _, add := range tc.adds {
				peerCLI(t, home, h.dir, tc.bin, add...)
			}
			env := []string{"HOME=" + home}
			out, errOut, code := h.run(t, env, "mcp", "import", "--from", tc.peer)
			if code != 0 || !strings.Contains(out, "imported ") {
				t.Fatalf("import --from %s: code %d\n%s%s", tc.peer, code, out, errOut)
			}
			cfg, err := os.ReadFile(h.global)
			if err != nil {
				t.Fatal(err)
			}
			list, errOut, code := h.run(t, env, "mcp", "list", "--scope", "global")
			if code != 0 {
				t.Fatalf("list: code %d\n%s%s", code, list, errOut)
			}
			for id, wants := range tc.want {
				if !strings.Contains(list, id) {
					t.Errorf("%s not in host mcp list:\n%s", id, list)
				}
				for _, w := range wants {
					if !strings.Contains(string(cfg), w) {
						t.Errorf("%s: config lacks %s:\n%s", id, w, cfg)
					}
				}
			}
			for _, a := range tc.absent {
				if strings.Contains(string(cfg), a) || strings.Contains(out, a) {
					t.Errorf("%s was carried over:\n%s\n%s", a, out, cfg)
				}
			}
		})
	}
}
