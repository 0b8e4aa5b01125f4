package e2e_test

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcp-host/mcp-host/protocol"
)

// The harness's schema check sees a message with a field of the wrong
// type: run.start's prompt as a number, sent over the real pipes.
func TestSchemaCheckCatchesAWrongFieldType(t *testing.T) {
	h := startServe(t, []string{"MCP_HOST_SERVERS={}"})
	ctx := ctxT(t, 30*time.Second)
	if _, err := h.rt.Initialize(ctx, &protocol.InitializeParams{ProtocolVersion: protocol.Version, ClientInfo: protocol.Implementation{Name: "e2e-schema"}}); err != nil {
		t.Fatal(err)
	}
	if bad := h.schema.take(); len(bad) != 0 {
		t.Fatalf("valid messages were refused: %v", bad)
	}
	err := h.conn.Call(ctx, protocol.MethodRunStart, map[string]any{"prompt": 42}, nil)
	if err == nil {
		t.Fatal("run.start with a number as prompt was answered without an error")
	}
	bad := h.schema.take()
	if len(bad) != 1 || !strings.Contains(bad[0].Error(), "params of run.start") || !strings.Contains(bad[0].Error(), "the UI sent") {
		t.Fatalf("schema check reported %v, want one error about run.start's params", bad)
	}
	t.Logf("caught: %v", bad[0])
}

// A UI of a protocol version outside the window gets an initialize error
// naming its version and the window, stays uninitialized, and can
// initialize again naming one the runtime speaks, which it is served.
func TestProtocolVersionMismatch(t *testing.T) {
	h := startServe(t, []string{"MCP_HOST_SERVERS={}"})
	ctx := ctxT(t, 30*time.Second)
	const old = "2026-11-21" // before the window (protocol.Versions)
	_, err := h.rt.Initialize(ctx, &protocol.InitializeParams{ProtocolVersion: old, ClientInfo: protocol.Implementation{Name: "old-ui"}})
	var perr *protocol.Error
	if !errors.As(err, &perr) || perr.Code != protocol.CodeUnsupportedVersion {
		t.Fatalf("initialize with %s: %v, want code %d", old, err, protocol.CodeUnsupportedVersion)
	}
	if !strings.Contains(perr.Message, old) || !strings.Contains(perr.Message, protocol.Version) {
		t.Errorf("message %q does not name both versions", perr.Message)
	}
	if d := protocol.DataOf(err); d.Kind != protocol.KindUnsupportedVersion || d.ProtocolVersion != protocol.Version || !slices.Equal(d.SupportedVersions, protocol.Versions) {
		t.Errorf("data %+v", d)
	}
	_, err = h.rt.MCPList(ctx, &protocol.Empty{})
	if !errors.As(err, &perr) || perr.Code != protocol.CodeNotInitialized {
		t.Errorf("mcp.list after the refused initialize: %v, want %d", err, protocol.CodeNotInitialized)
	}
	// A UI that speaks an older version of the window and one outside it
	// is served the older one.
	res, err := h.rt.Initialize(ctx, &protocol.InitializeParams{ProtocolVersion: old, ProtocolVersions: []string{old, "2026-11-23"}, ClientInfo: protocol.Implementation{Name: "older-ui"}})
	if err != nil || res.ProtocolVersion != "2026-11-23" {
		t.Fatalf("initialize with %s and 2026-11-23 after the refusal: %v, %+v", old, err, res)
	}
}
