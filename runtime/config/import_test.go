package config

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestParseImportMovesSecrets(t *testing.T) {
	src := `{"mcpServers":{
	  "gh":{"command":"gh-mcp","env":{"GH_TOKEN":"t0k","API_KEY":"k3y","HOME_DIR":"/h","REF":"${env:SET_ELSEWHERE}","PASSWORD":"${KEPT}"}},
	  "a b":{"url":"https://x.example/mcp","headers":{"Authorization":"Bearer s3cr3t","X-API-KEY":"k2","Accept":"text/plain"}},
	  "a-b":{"url":"https://y.example/mcp","headers":{"Authorization":"raw-s3cr3t"},"disabled":true},
	  "on":{"command":"x","disabled":false}
	}}`
	got, err := ParseImport([]byte(src), "file")
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]ImportedServer{}
	for _, s := range got {
		byName[s.Name] = s
	}
	gh := byName["gh"]
	wantEnv := map[string]string{"GH_TOKEN": "${GH_TOKEN}", "API_KEY": "${GH_API_KEY}", "HOME_DIR": "/h", "REF": "${SET_ELSEWHERE}", "PASSWORD": "${KEPT}"}
	if !reflect.DeepEqual(gh.Config.Env, wantEnv) {
		t.Errorf("gh env = %v, want %v", gh.Config.Env, wantEnv)
	}
	if want := []MovedSecret{{"env.API_KEY", "GH_API_KEY"}, {"env.GH_TOKEN", "GH_TOKEN"}}; !reflect.DeepEqual(gh.Moved, want) {
		t.Errorf("gh moved = %v, want %v", gh.Moved, want)
	}
	ab, ab2 := byName["a b"], byName["a-b"]
	if ab.ID != "a-b-2" || ab2.ID != "a-b" || !ab.Renamed() || ab2.Renamed() {
		t.Errorf("ids %q and %q: the collision is not resolved and reported", ab.ID, ab2.ID)
	}
	if ab.Config.Headers["Authorization"] != "Bearer ${A_B_2_AUTHORIZATION}" || ab.Config.Headers["Accept"] != "text/plain" || ab.Config.Headers["X-API-KEY"] != "${A_B_2_X_API_KEY}" {
		t.Errorf("a b headers = %v", ab.Config.Headers)
	}
	// Both entries have an Authorization header: the variables differ.
	if v := ab2.Config.Headers["Authorization"]; v == ab.Config.Headers["Authorization"] || !strings.HasPrefix(v, "${") {
		t.Errorf("a-b Authorization = %q", v)
	}
	on := byName["on"]
	if ab2.Config.IsEnabled() || !on.Config.IsEnabled() || !ab.Config.IsEnabled() {
		t.Error(`"disabled" not kept as enabled:false (or set where it was not)`)
	}
	for _, s := range got {
		for _, secret := range []string{"t0k", "k3y", "s3cr3t", "k2"} {
			for _, v := range s.Config.Secrets() {
				if strings.Contains(v, secret) {
					t.Errorf("%s still holds a secret value", s.Name)
				}
			}
		}
	}
}

func TestSecretVar(t *testing.T) {
	for _, tc := range [][3]string{
		{"github", "GITHUB_TOKEN", "GITHUB_TOKEN"},
		{"my-api", "Authorization", "MY_API_AUTHORIZATION"},
		{"db", "password", "DB_PASSWORD"},
		{"9x", "key", "MCP_9X_KEY"},
	} {
		if got := secretVar(tc[0], tc[1]); got != tc[2] {
			t.Errorf("secretVar(%q, %q) = %q, want %q", tc[0], tc[1], got, tc[2])
		}
	}
}

func TestPreviewEditWritesNothing(t *testing.T) {
	path := filepath.Join(t.TempDir(), "config.json")
	orig := `{"version":1,"mcp":{"servers":{"a":{"command":"x"}}}}`
	if err := os.WriteFile(path, []byte(orig), 0o600); err != nil {
		t.Fatal(err)
	}
	var seen []string
	err := PreviewEdit(path, func(f *File) error {
		for id := range f.MCP.Servers {
			seen = append(seen, id)
		}
		f.MCP.Servers["b"] = &ServerConfig{Command: "y"}
		return nil
	})
	if err != nil || !reflect.DeepEqual(seen, []string{"a"}) {
		t.Fatalf("PreviewEdit saw %v, %v", seen, err)
	}
	if b, _ := os.ReadFile(path); string(b) != orig {
		t.Errorf("PreviewEdit wrote the file:\n%s", b)
	}
	if err := PreviewEdit(filepath.Join(t.TempDir(), "missing.json"), func(*File) error { return nil }); err != nil {
		t.Errorf("PreviewEdit of a missing file: %v", err)
	}
}

func TestParseImportMovesSecretArgs(t *testing.T) {
	src := `{"mcpServers":{"brave":{"command":"brave-mcp","args":["--api-key","BSAk3y","--token=tt0k","--key-file","/k.pem","--auth-type","oauth","--verbose","--secret","${SET}"]}}}`
	got, err := ParseImport([]byte(src), "file")
	if err != nil || len(got) != 1 {
		t.Fatal(got, err)
	}
	want := []string{"--api-key", "${BRAVE_API_KEY}", "--token=${BRAVE_TOKEN}", "--key-file", "/k.pem", "--auth-type", "oauth", "--verbose", "--secret", "${SET}"}
	if !reflect.DeepEqual(got[0].Config.Args, want) {
		t.Errorf("args = %q, want %q", got[0].Config.Args, want)
	}
	if wantMoved := []MovedSecret{{"args[1]", "BRAVE_API_KEY"}, {"args[2]", "BRAVE_TOKEN"}}; !reflect.DeepEqual(got[0].Moved, wantMoved) {
		t.Errorf("moved = %v, want %v", got[0].Moved, wantMoved)
	}
}
