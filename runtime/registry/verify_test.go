package registry

import (
	"context"
	"encoding/json"
	"errors"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestVerifyBundle: an installed mcpb entry verifies against its unpacked
// bundle; an edited one does not, with both command lines; the registry
// is asked once per process; one that cannot be reached fails the check.
func TestVerifyBundle(t *testing.T) {
	data := makeZip(t, zfile{name: "manifest.json", body: nodeManifest}, zfile{name: "server/index.js", body: "console.log(1)"})
	u, sum := serveBytes(t, data)
	f := &fakeRegistry{}
	it := item("io.github.t/b", "1.0.0", StatusActive)
	it.Server.Packages = []Package{{RegistryType: "mcpb", Identifier: u, FileSHA256: sum, Transport: Transport{Type: "stdio"}}}
	meta, _ := json.Marshal(map[string]any{"status": StatusActive})
	it.Meta = map[string]json.RawMessage{officialMeta: meta}
	f.servers = append(f.servers, it)
	srv := httptest.NewServer(f)
	defer srv.Close()

	dataDir := t.TempDir()
	in := &Installer{Registries: []string{srv.URL}, DataDir: dataDir, LookPath: lookOnly("node")}
	e, err := in.Fetch(context.Background(), "io.github.t/b", "1.0.0", "")
	if err != nil {
		t.Fatal(err)
	}
	pl, err := in.Prepare(context.Background(), e, Options{ID: "b"})
	if err != nil {
		t.Fatal(err)
	}
	v := &Verifier{DataDir: dataDir}
	before := f.calls.Load()
	if err := v.Verify("b", pl.Config); err != nil {
		t.Fatalf("installed bundle: %v", err)
	}
	edited := pl.Config
	edited.Args = []string{"-e", "evil()"}
	err = v.Verify("b", edited)
	if !errors.Is(err, ErrMismatch) || !strings.Contains(err.Error(), `it runs "HOME_DIR=`) || !strings.Contains(err.Error(), "node -e evil()") {
		t.Fatalf("edited: %v", err)
	}
	if n := f.calls.Load() - before; n != 1 {
		t.Fatalf("registry asked %d times, want once per process", n)
	}
	srv.Close()
	if err := (&Verifier{DataDir: dataDir}).Verify("b", pl.Config); err == nil || !strings.Contains(err.Error(), "cannot fetch io.github.t/b@1.0.0 from "+srv.URL) {
		t.Fatalf("unreachable registry: %v", err)
	}
	bare := pl.Config
	bare.Registry = nil
	if err := v.Verify("b", bare); err == nil || !strings.Contains(err.Error(), "records no registry entry") {
		t.Fatalf("no registry: %v", err)
	}
}
