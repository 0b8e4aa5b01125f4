package e2e_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcp-host/mcp-host/protocol"
)

// reflector answers every request with a 500 whose body quotes the
// request back (URL, headers, form), as a hostile or merely chatty server
// would: whatever the host sent it could end up in an error message.
func reflector(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	w.Header().Set("Content-Type", "text/plain")
	w.WriteHeader(http.StatusInternalServerError)
	fmt.Fprintf(w, "cannot serve %s %s\nheaders: %v\nbody: %s\n", r.Method, r.URL, r.Header, body)
}

// hostileOAuth is a protected MCP endpoint whose authorization server
// rejects every client_credentials request with an error description that
// quotes the client's secret back.
func hostileOAuth(t *testing.T) string {
	t.Helper()
	mux := http.NewServeMux()
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	base := srv.URL
	mux.HandleFunc("/.well-known/oauth-protected-resource", func(w http.ResponseWriter, r *http.Request) {
		json.NewEncoder(w).Encode(map[string]any{"resource": base + "/mcp", "authorization_servers": []string{base}})
	})
	mux.HandleFunc("/.well-known/oauth-authorization-server", func(w http.ResponseWriter, r *http.Request) {
		json.NewEncoder(w).Encode(map[string]any{
			"issuer": base, "token_endpoint": base + "/token", "authorization_endpoint": base + "/authorize",
			"grant_types_supported":                 []string{"client_credentials"},
			"token_endpoint_auth_methods_supported": []string{"client_secret_post"},
			"code_challenge_methods_supported":      []string{"S256"},
		})
	})
	mux.HandleFunc("/token", func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		json.NewEncoder(w).Encode(map[string]any{"error": "invalid_client",
			"error_description": fmt.Sprintf("no such client: %s / %s", body, r.Header.Get("Authorization"))})
	})
	mux.HandleFunc("/mcp", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("WWW-Authenticate", `Bearer resource_metadata="`+base+`/.well-known/oauth-protected-resource"`)
		w.WriteHeader(http.StatusUnauthorized)
	})
	return base + "/mcp"
}

// TestNoSecretInAnyOutput: values that come from ${VAR}s (in a URL, a
// header, an OAuth client secret) never show in anything the host prints
// or sends to the UI, even when servers quote them back in their errors
// and the network stack quotes URLs in dial errors; --debug included.
func TestNoSecretInAnyOutput(t *testing.T) {
	t.Parallel() // waits on processes most of its time (package doc: Parallel tests)
	secrets := map[string]string{
		"E2E_SECRET_QUERY":  "qv-7f3a9c1e5b2d8046-QUERY",
		"E2E_SECRET_HEADER": "hv-0b4e6d2a9c7f1358-HEADER",
		"E2E_SECRET_CLIENT": "cs-5d1c8e3f7a2b9064-CLIENT",
	}
	reflect := httptest.NewServer(http.HandlerFunc(reflector))
	t.Cleanup(reflect.Close)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	dead := ln.Addr().String()
	ln.Close()

	dir := t.TempDir()
	config := filepath.Join(dir, "global", "config.json")
	header := map[string]any{"X-Api-Key": "${E2E_SECRET_HEADER}", "X-Literal": "literal-header-value-42"}
	writeJSONFile(t, config, map[string]any{"version": 1, "mcp": map[string]any{"servers": map[string]any{
		"reflect": map[string]any{"transport": "http", "url": reflect.URL + "/mcp?k=${E2E_SECRET_QUERY}", "headers": header},
		"dead":    map[string]any{"transport": "http", "url": "http://" + dead + "/mcp?k=${E2E_SECRET_QUERY}", "headers": header},
		"cc": map[string]any{"transport": "http", "url": hostileOAuth(t), "headers": header,
			"oauth": map[string]any{"grant": "client_credentials", "client_id": "e2e-client", "client_secret": "${E2E_SECRET_CLIENT}"}},
	}}})
	env := []string{"MCP_HOST_CONFIG=" + config, "MCP_HOST_SERVERS=", "MCP_HOST_TOKEN_STORE=file"}
	for k, v := range secrets {
		env = append(env, k+"="+v)
	}
	var outputs bytes.Buffer

	// host serve --debug, driven as a UI.
	h := startServe(t, env, "--debug")
	ctx := ctxT(t, 2*time.Minute)
	if _, err := h.rt.Initialize(ctx, &protocol.InitializeParams{ProtocolVersion: protocol.Version,
		ClientInfo: protocol.Implementation{Name: "e2e"}, Capabilities: protocol.UICapabilities{Confirm: true}}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 60*time.Second, "every server failed", func() bool {
		l, err := h.rt.MCPList(ctx, &protocol.Empty{})
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range l.Servers {
			if s.LastError == "" {
				return false
			}
		}
		return true
	})
	h.ui.setAnswer(answerWith("allow_once"))
	for _, id := range []string{"reflect", "dead", "cc"} {
		g, err := h.rt.MCPGet(ctx, &protocol.ServerParams{ID: id})
		if err != nil {
			t.Fatal(err)
		}
		b, _ := json.Marshal(g)
		outputs.Write(b)
		if _, err := h.rt.ToolCall(ctx, &protocol.ToolCallParams{Server: id, Tool: "x"}); err != nil {
			outputs.WriteString(err.Error())
		}
		if _, err := h.rt.MCPReconnect(ctx, &protocol.ServerParams{ID: id}); err != nil {
			outputs.WriteString(err.Error())
		}
	}
	time.Sleep(time.Second) // the reconnects fail again, logged with --debug
	if _, err := h.rt.Shutdown(ctx, &protocol.Empty{}); err != nil {
		t.Fatal(err)
	}
	select {
	case <-h.exited:
	case <-time.After(15 * time.Second):
		t.Fatal("host serve did not exit")
	}
	h.out.mu.Lock()
	outputs.Write(h.out.w.(*bytes.Buffer).Bytes())
	h.out.mu.Unlock()
	outputs.WriteString(h.stderr.String())

	// The CLI.
	bin := buildHost(t)
	for _, args := range [][]string{
		{"mcp", "list", "--json"}, {"mcp", "list"},
		{"mcp", "get", "reflect"}, {"mcp", "get", "dead", "--json"}, {"mcp", "get", "cc"},
		{"mcp", "test", "reflect"}, {"mcp", "test", "cc"}, {"mcp", "tools", "--json"},
		{"mcp", "call", "reflect", "x", "--yes"},
	} {
		cmd := exec.Command(bin, args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), env...)
		out, _ := cmd.CombinedOutput()
		fmt.Fprintf(&outputs, "\n$ host %s\n%s", strings.Join(args, " "), out)
	}

	all := outputs.String()
	for name, v := range secrets {
		if strings.Contains(all, v) {
			i := strings.Index(all, v)
			t.Errorf("the value of %s appears in the output: …%s…", name, all[max(0, i-200):min(len(all), i+60)])
		}
	}
	if strings.Contains(all, "literal-header-value-42") {
		t.Errorf("a header value appears in the output")
	}
	// The test means something only if the errors were there to leak.
	for _, want := range []string{"reflect", "dead", "cc", "***"} {
		if !strings.Contains(all, want) {
			t.Errorf("outputs never mention %q; the test saw too little", want)
		}
	}
}
