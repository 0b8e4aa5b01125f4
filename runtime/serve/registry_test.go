package serve_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcp-host/mcp-host/protocol"
	"github.com/mcp-host/mcp-host/runtime"
	"github.com/mcp-host/mcp-host/runtime/config"
	"github.com/mcp-host/mcp-host/runtime/registry"
	"github.com/mcp-host/mcp-host/runtime/serve"
)

// registryFixture is one answer item of the registry API v0.1, as its
// OpenAPI document describes it.
const registryFixture = `{"server":{"$schema":"https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json",
 "name":"io.github.t/files","description":"files\u001b[31m server","version":"1.2.0",
 "packages":[{"registryType":"npm","identifier":"@t/files","version":"1.2.0","transport":{"type":"stdio"},
   "packageArguments":[{"type":"positional","valueHint":"root","isRequired":true,"description":"directory"}],
   "environmentVariables":[{"name":"FILES_TOKEN","isSecret":true,"isRequired":true}]}]},
 "_meta":{"io.modelcontextprotocol.registry/official":{"status":"active","isLatest":true,"publishedAt":"2025-12-11T00:00:00Z"}}}`

func TestRegistryMethods(t *testing.T) {
	reg := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.EscapedPath() {
		case "/v0.1/servers":
			_, _ = io.WriteString(w, `{"servers":[`+registryFixture+`],"metadata":{"count":1}}`)
		case "/v0.1/servers/io.github.t%2Ffiles/versions/latest":
			_, _ = io.WriteString(w, registryFixture)
		default:
			http.NotFound(w, r)
		}
	}))
	defer reg.Close()
	dir := t.TempDir()
	global := filepath.Join(dir, "config.json")
	in := &registry.Installer{Registries: []string{reg.URL}, LookPath: func(string) (string, error) { return "/usr/bin/npx", nil }}

	toRuntime, fromUI := io.Pipe()
	toUI, fromRuntime := io.Pipe()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	go func() {
		_ = serve.Serve(ctx, toRuntime, fromRuntime, serve.ServeOptions{Config: config.LoadOptions{GlobalPath: global}, WatchInterval: -1, Registry: in,
			// The added server never starts: its ${FILES_TOKEN} is unset, so
			// no npx reaches for the network.
			Manager: runtime.ManagerOptions{LookupEnv: func(string) (string, bool) { return "", false }}})
		fromRuntime.Close()
	}()
	defer fromUI.Close()
	conn := protocol.NewConn(toUI, fromUI, protocol.ClientHandler(&ui{}), protocol.ConnOptions{})
	go conn.Run(ctx)
	rt, gallery := protocol.NewServerCaller(conn), protocol.NewRegistryCaller(conn)
	if _, err := rt.Initialize(ctx, &protocol.InitializeParams{ProtocolVersion: protocol.Version}); err != nil {
		t.Fatal(err)
	}

	found, err := gallery.RegistrySearch(ctx, &protocol.RegistrySearchParams{Query: "files"})
	if err != nil || len(found.Servers) != 1 || found.Age != "fresh" {
		t.Fatalf("search: %+v %v", found, err)
	}
	if s := found.Servers[0]; s.Name != "io.github.t/files" || strings.Contains(s.Description, "\x1b") || s.Kinds[0] != "npm" || s.Status != "active" {
		t.Fatalf("server %+v", s)
	}
	got, err := gallery.RegistryGet(ctx, &protocol.RegistryGetParams{Name: "io.github.t/files"})
	if err != nil || len(got.Missing) != 1 || got.Missing[0].Key != "root" {
		t.Fatalf("get without values: %+v %v", got, err)
	}
	get := protocol.RegistryGetParams{Name: "io.github.t/files", Values: map[string]string{"root": "/data"}}
	got, err = gallery.RegistryGet(ctx, &get)
	want := "FILES_TOKEN='${FILES_TOKEN}' npx -y @t/files@1.2.0 /data"
	if err != nil || got.Runs != want || len(got.Secrets) != 1 || got.Secrets[0].Key != "FILES_TOKEN" {
		t.Fatalf("get: %+v %v", got, err)
	}
	if _, err := gallery.RegistryAdd(ctx, &protocol.RegistryAddParams{RegistryGetParams: get, ID: "files"}); code(err) != protocol.CodeInvalidParams {
		t.Fatalf("add without runs: %v", err)
	}
	if _, err := gallery.RegistryAdd(ctx, &protocol.RegistryAddParams{RegistryGetParams: get, ID: "files", Runs: "npx -y something-else"}); code(err) != protocol.CodeFailed {
		t.Fatalf("add with other runs: %v", err)
	}
	if _, err := os.Stat(global); err == nil {
		t.Fatal("a refused add wrote the config")
	}
	added, err := gallery.RegistryAdd(ctx, &protocol.RegistryAddParams{RegistryGetParams: get, ID: "files", Runs: want})
	if err != nil || added.Path != global || added.Runs != want {
		t.Fatalf("add: %+v %v", added, err)
	}
	var file struct {
		MCP struct {
			Servers map[string]config.ServerConfig `json:"servers"`
		} `json:"mcp"`
	}
	data, _ := os.ReadFile(global)
	if err := json.Unmarshal(data, &file); err != nil {
		t.Fatal(err)
	}
	c := file.MCP.Servers["files"]
	if c.Command != "npx" || c.Env["FILES_TOKEN"] != "${FILES_TOKEN}" || c.Registry == nil || c.Registry.Version != "1.2.0" || c.Registry.URL != reg.URL {
		t.Fatalf("written: %s", data)
	}
	list, err := rt.MCPList(ctx, &protocol.Empty{})
	if err != nil || len(list.Servers) != 1 || list.Servers[0].ID != "files" {
		t.Fatalf("mcp.list after add: %+v %v", list, err)
	}
}
