package policy

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/mcp-host/mcp-host/runtime/config"
	"github.com/mcp-host/mcp-host/runtime/registry"
)

// registryServer serves one server.json over the registry's v0.1 API on
// loopback: GET /v0.1/servers/{name}/versions/{version}.
func registryServer(t *testing.T, s registry.Server) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		want := "/v0.1/servers/" + strings.ReplaceAll(s.Name, "/", "%2F") + "/versions/"
		v, ok := strings.CutPrefix(r.URL.EscapedPath(), want)
		if !ok || (v != s.Version && v != "latest") {
			http.NotFound(w, r)
			return
		}
		_ = json.NewEncoder(w).Encode(map[string]any{"server": s, "_meta": map[string]any{}})
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// weather is a registry entry with an npm package that takes a required
// environment variable.
var weather = registry.Server{Name: "io.example/weather", Description: "weather", Version: "1.2.0",
	Packages: []registry.Package{{RegistryType: "npm", Identifier: "@example/weather", Version: "1.2.0",
		Transport:   registry.Transport{Type: "stdio"},
		Environment: []registry.KeyValue{{Name: "UNITS", Input: registry.Input{IsRequired: true}}}}}}

// install is what host mcp add --from-registry writes for weather from u.
func install(t *testing.T, u string) config.ServerEntry {
	t.Helper()
	in := &registry.Installer{Registries: []string{u}, LookPath: func(s string) (string, error) { return s, nil }}
	e, err := in.Fetch(context.Background(), weather.Name, weather.Version, "")
	if err != nil {
		t.Fatal(err)
	}
	pl, err := in.Prepare(context.Background(), e, registry.Options{ID: "weather", Values: map[string]string{"UNITS": "metric"}})
	if err != nil || len(pl.Missing) > 0 {
		t.Fatalf("prepare: %v %+v", err, pl)
	}
	return config.ServerEntry{ID: "weather", Config: pl.Config, Source: config.SourceGlobal, DefinedIn: config.SourceGlobal, Path: "/u/config.json", DefinedPath: "/u/config.json"}
}

func TestRegistryOnly(t *testing.T) {
	org := registryServer(t, weather)
	other := registryServer(t, weather) // serves the very same entry
	p := parse(t, `{"user_servers": "registry_only", "registries": ["`+org+`/"]}`)
	if len(p.Registries) != 1 || p.Registries[0] != org {
		t.Fatalf("registries %q, want [%s]", p.Registries, org)
	}
	p.Verify = (&registry.Verifier{}).Verify

	good := install(t, org)
	if b := p.Judge(good, noEnv).Blocked; b != nil {
		t.Fatalf("installed from the policy's registry: blocked: %v", b)
	}

	edited := install(t, org)
	edited.Config.Args = append(edited.Config.Args, "--evil")
	env := install(t, org)
	env.Config.Env["NODE_OPTIONS"] = "--require=/tmp/x.js"
	foreign := install(t, other)
	forged := install(t, other)
	forged.Config.Registry.URL = org // the user edits the recorded registry: the command still decides
	forged.Config.Command = "sh"
	none := stdioEntry("typed", "npx", "-y", "@example/weather@1.2.0")
	for _, c := range []struct {
		e    config.ServerEntry
		want string
	}{
		{edited, `it runs "UNITS=metric npx -y @example/weather@1.2.0 --evil", the registry entry runs "UNITS=metric npx -y @example/weather@1.2.0"`},
		{env, "NODE_OPTIONS"},
		{foreign, "its recorded registry " + other + " is not one of the policy's \"registries\" (" + org + ")"},
		{forged, `it runs "UNITS=metric sh -y`},
		{none, "records none"},
	} {
		b := p.Judge(c.e, noEnv).Blocked
		if b == nil || b.Rule != `"user_servers": "registry_only"` || !strings.Contains(b.Reason, c.want) {
			t.Errorf("%s: blocked %v, want the registry_only rule with %q", c.e.Config.Command, b, c.want)
		}
	}
	// The connect-time check judges the same way.
	got := judge(p, noEnv, edited)
	w := got["weather"]
	if w.Check(&w.Config) == nil {
		t.Errorf("connect-time check admits an edited command line")
	}

	noList := parse(t, `{"user_servers": "registry_only"}`)
	if b := noList.Judge(install(t, org), noEnv).Blocked; b == nil || !strings.Contains(b.Reason, `lists no "registries"`) {
		t.Errorf("no registries: %v", b)
	}
}

func TestRegistriesParse(t *testing.T) {
	p := Parse("/etc/mcp-host/managed.json", []byte("{\n  \"registries\": [\"ftp://x\"]\n}"))
	if p.Err == nil || !strings.Contains(p.Err.Error(), `managed.json:2:17: "registries"[0]: "ftp://x" is not an http(s) URL`) {
		t.Errorf("err %v", p.Err)
	}
}
