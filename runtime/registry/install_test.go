package registry

import (
	"context"
	"errors"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcp-host/mcp-host/runtime/config"
)

func TestInstallerFetchesFromTheFirstRegistryThatHasIt(t *testing.T) {
	a := httptest.NewServer(&fakeRegistry{servers: []response{item("io.github.t/a", "1.0.0", StatusActive)}})
	defer a.Close()
	b := httptest.NewServer(&fakeRegistry{servers: []response{item("io.github.t/b", "2.0.0", StatusActive)}})
	defer b.Close()
	in := &Installer{Registries: []string{a.URL, b.URL}, LookPath: lookOnly("npx")}
	e, err := in.Fetch(context.Background(), "io.github.t/b", "", "")
	if err != nil || e.Registry != b.URL {
		t.Fatalf("fetch: %+v %v", e.Registry, err)
	}
	if _, err := in.Fetch(context.Background(), "io.github.t/b", "", a.URL); err == nil {
		t.Fatal("fetch from a registry without it succeeded")
	}
	r, err := in.Search(context.Background(), "io.github.t", true)
	if err != nil || len(r.Entries) != 2 {
		t.Fatalf("search both: %v %d", err, len(r.Entries))
	}
	r, err = in.Search(context.Background(), "io.github.t ABOUT io.github.t/b", true)
	if err != nil || len(r.Entries) != 1 || r.Entries[0].Server.Name != "io.github.t/b" {
		t.Fatalf("search with more words: %v %+v", err, r)
	}
	if n, v := SplitSpec("io.github.t/b@2.0.0"); n != "io.github.t/b" || v != "2.0.0" {
		t.Fatalf("split %q %q", n, v)
	}
	if n, v := SplitSpec("io.github.t/b"); n != "io.github.t/b" || v != "" {
		t.Fatalf("split %q %q", n, v)
	}
}

func TestWriteReplacesTheDefinitionOnly(t *testing.T) {
	path := filepath.Join(t.TempDir(), "config.json")
	off := false
	if err := os.WriteFile(path, []byte(`{"version":1,"mcp":{"servers":{"s":{"command":"npx","args":["-y","p@1"],"enabled":false,"trust":true,"include_tools":["a*"]}}}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	pl := &Plan{Config: config.ServerConfig{Command: "npx", Args: []string{"-y", "p@2"}, Env: map[string]string{"K": "${K}"},
		Registry: &config.RegistrySource{URL: "https://r", Name: "io.github.t/p", Version: "2"}}}
	if err := Write(path, "s", pl, false); err == nil || !strings.Contains(err.Error(), "already exists") {
		t.Fatalf("no replace: %v", err)
	}
	if err := Write(path, "s", pl, true); err != nil {
		t.Fatal(err)
	}
	eff, err := config.Load(config.LoadOptions{GlobalPath: path})
	if err != nil || len(eff.Servers) != 1 {
		t.Fatal(err)
	}
	c := eff.Servers[0].Config
	if c.Args[1] != "p@2" || c.Enabled == nil || *c.Enabled != off || c.Trust || c.IncludeTools[0] != "a*" || c.Registry.Version != "2" {
		t.Fatalf("written %+v", c)
	}
	if got := ValuesFrom(config.ServerConfig{Env: map[string]string{"A": "1", "S": "${S}"}, Headers: map[string]string{"H": "v"}}); len(got) != 2 || got["A"] != "1" || got["H"] != "v" {
		t.Fatalf("values %v", got)
	}
}

// TestCheckRefusesBeforeWriting: the policy hook sees what would run and
// its refusal is Prepare's error.
func TestCheckRefusesBeforeWriting(t *testing.T) {
	srv := httptest.NewServer(&fakeRegistry{servers: []response{item("io.github.t/a", "1.0.0", StatusActive)}})
	defer srv.Close()
	var seen string
	in := &Installer{Registries: []string{srv.URL}, LookPath: lookOnly("npx"), Check: func(id string, c config.ServerConfig) error {
		seen = id + ": " + CommandLine(c)
		return errors.New("blocked by policy: command npx")
	}}
	e, err := in.Fetch(context.Background(), "io.github.t/a", "", "")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := in.Prepare(context.Background(), e, Options{ID: "a"}); !errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), "blocked by policy") {
		t.Fatalf("prepare: %v", err)
	}
	if seen != "a: npx -y @x/a@1.0.0" {
		t.Fatalf("check saw %q", seen)
	}
}
