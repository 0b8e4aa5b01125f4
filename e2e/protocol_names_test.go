package e2e_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"testing"
	"time"

	"github.com/mcp-host/mcp-host/protocol"
)

// rawAnswer writes line to the runtime's stdin as it is and returns the
// answer with id (a JSON string), as a map.
func rawAnswer(t *testing.T, g *gapsHost, id, line string) map[string]any {
	t.Helper()
	if _, err := io.WriteString(g.stdin, line+"\n"); err != nil {
		t.Fatal(err)
	}
	var got map[string]any
	waitFor(t, 20*time.Second, "the answer to "+line, func() bool {
		g.out.mu.Lock()
		defer g.out.mu.Unlock()
		for _, l := range bytes.Split(g.out.w.(*bytes.Buffer).Bytes(), []byte("\n")) {
			var m map[string]any
			if json.Unmarshal(l, &m) == nil && m["id"] == id && m["method"] == nil {
				got = m
				return true
			}
		}
		return false
	})
	return got
}

// TestProtocolEveryRequestRefusesUnknownFields: over host serve's pipes,
// every request of the protocol (initialize, prompts.*, resources.*,
// registry.*, mcp.permissions.* included) answers a params field it does
// not take with -32602 naming it, and does nothing else.
func TestProtocolEveryRequestRefusesUnknownFields(t *testing.T) {
	t.Parallel() // waits on processes most of its time (package doc: Parallel tests)
	g := startGaps(t, protocol.UICapabilities{Confirm: true}, nil)
	for _, m := range protocol.Methods {
		if m.Direction != protocol.UIToRuntime {
			continue
		}
		id := "u-" + m.Name
		a := rawAnswer(t, g, id, fmt.Sprintf(`{"jsonrpc":"2.0","id":%q,"method":%q,"params":{"bogus_field":1}}`, id, m.Name))
		e, _ := a["error"].(map[string]any)
		data, _ := e["data"].(map[string]any)
		if e == nil || e["code"] != float64(protocol.CodeInvalidParams) || data["field"] != "bogus_field" {
			t.Errorf("%s with an unknown field: %v, want -32602 naming it", m.Name, a)
		}
	}
	// The runtime is still up: shutdown's refusal did not shut it down.
	if _, err := g.rt.MCPList(ctxT(t, 10*time.Second), &protocol.Empty{}); err != nil {
		t.Fatal(err)
	}
}

// TestProtocolConsistentNames: the mcp.* requests take "server" like
// every other request, "id" still works as its alias, and both with
// different values are -32602; a server's status carries "status" beside
// "state".
func TestProtocolConsistentNames(t *testing.T) {
	g := startGaps(t, protocol.UICapabilities{Confirm: true}, nil)
	for i, c := range []struct {
		method, params string
		field          string // the -32602 field, or "" for success
	}{
		{"mcp.get", `{"server":"everything"}`, ""},
		{"mcp.get", `{"id":"everything"}`, ""},
		{"mcp.get", `{"server":"everything","id":"everything"}`, ""},
		{"mcp.get", `{"server":"everything","id":"other"}`, "id"},
		{"mcp.get", `{}`, "server"},
		{"mcp.enable", `{"server":"everything","id":"other"}`, "id"},
		{"mcp.enable", `{"id":"everything"}`, ""},
		{"mcp.logout", `{"server":"x","id":"everything"}`, "id"},
		{"mcp.approve", `{"server":"x","id":"everything","approve":true,"digest":"d"}`, "id"},
	} {
		id := fmt.Sprintf("n%d", i)
		a := rawAnswer(t, g, id, fmt.Sprintf(`{"jsonrpc":"2.0","id":%q,"method":%q,"params":%s}`, id, c.method, c.params))
		e, _ := a["error"].(map[string]any)
		if c.field == "" {
			res, _ := a["result"].(map[string]any)
			srv, _ := res["server"].(map[string]any)
			if e != nil || srv["id"] != "everything" || srv["status"] == nil || srv["status"] != srv["state"] {
				t.Errorf("%s %s: %v; want everything's status with status = state", c.method, c.params, a)
			}
			continue
		}
		data, _ := e["data"].(map[string]any)
		if e == nil || e["code"] != float64(protocol.CodeInvalidParams) || data["field"] != c.field {
			t.Errorf("%s %s: %v; want -32602 naming %q", c.method, c.params, a, c.field)
		}
	}
	if len(g.init.Servers) == 0 || g.init.Servers[0].Status != g.init.Servers[0].State {
		t.Errorf("initialize's statuses: %+v", g.init.Servers)
	}
	for _, raw := range g.wireNotes("mcp.status") {
		var p map[string]map[string]any
		if err := json.Unmarshal(raw, &p); err != nil || p["server"]["status"] != p["server"]["state"] {
			t.Errorf("mcp.status %s: status and state differ", raw)
		}
	}
}
