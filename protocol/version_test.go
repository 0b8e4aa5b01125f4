package protocol_test

import (
	"context"
	"encoding/json"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/mcp-host/mcp-host/protocol"
)

// PROTOCOL.md states the version protocol.Version has, its examples speak
// it, and its Changes section has an entry for it: a bump of the constant
// without the doc (or the other way round) fails here.
func TestDocVersionIsTheConstant(t *testing.T) {
	data, err := os.ReadFile("PROTOCOL.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(data)
	if want := "Protocol version: **`" + protocol.Version + "`**"; !strings.Contains(doc, want) {
		t.Errorf("PROTOCOL.md does not say %s", want)
	}
	examples := regexp.MustCompile(`"protocol_version":"(\d{4}-\d\d-\d\d)","(?:client|server)_info"`).FindAllStringSubmatch(doc, -1)
	if len(examples) < 2 {
		t.Errorf("found %d initialize examples with a protocol_version, want the request and the answer", len(examples))
	}
	for _, m := range examples {
		if m[1] != protocol.Version {
			t.Errorf("an initialize example speaks %s, not %s", m[1], protocol.Version)
		}
	}
	changes, ok := strings.CutPrefix(doc[strings.Index(doc, "\n## Changes"):], "\n## Changes")
	if !ok {
		t.Fatal("PROTOCOL.md has no Changes section")
	}
	for _, v := range protocol.Versions {
		if !strings.Contains(changes, "\n### "+v+"\n") {
			t.Errorf("PROTOCOL.md's Changes section has no entry for %s, a version of the window", v)
		}
		if !strings.Contains(doc, "`"+v+"`") {
			t.Errorf("PROTOCOL.md's Versions section does not name %s", v)
		}
	}
}

// The window holds every version released in the six months before the
// newest, never fewer than three, newest first; a UI of each is served
// that version, and one of a version outside it gets unsupported_version
// naming the window.
func TestNegotiate(t *testing.T) {
	if len(protocol.Versions) < 3 || protocol.Versions[0] != protocol.Version || !slices.IsSortedFunc(protocol.Versions, func(a, b string) int { return strings.Compare(b, a) }) {
		t.Fatalf("Versions = %v: want at least three, newest first, starting with %s", protocol.Versions, protocol.Version)
	}
	for _, v := range protocol.Versions {
		if got, err := protocol.Negotiate(&protocol.InitializeParams{ProtocolVersion: v}); err != nil || got != v {
			t.Errorf("a UI of %s: got %q, %v", v, got, err)
		}
	}
	if got, err := protocol.Negotiate(&protocol.InitializeParams{}); err != nil || got != protocol.Version {
		t.Errorf("a UI that names no version: got %q, %v; want %s", got, err, protocol.Version)
	}
	// A UI that speaks several gets the newest both speak, whatever the order.
	got, err := protocol.Negotiate(&protocol.InitializeParams{ProtocolVersion: "2027-06-01", ProtocolVersions: []string{"2026-11-23", "2026-11-24", "2027-06-01"}})
	if err != nil || got != "2026-11-24" {
		t.Errorf("a UI of 2026-11-23, 2026-11-24 and 2027-06-01: got %q, %v; want 2026-11-24", got, err)
	}
	for _, outside := range []string{"2026-11-21", "2027-06-01"} {
		err := protocol.CheckVersion(outside)
		if err == nil || err.Code != protocol.CodeUnsupportedVersion {
			t.Fatalf("%s: got %v, want code %d", outside, err, protocol.CodeUnsupportedVersion)
		}
		if !strings.Contains(err.Message, outside) || !strings.Contains(err.Message, strings.Join(protocol.Versions, ", ")) {
			t.Errorf("message %q does not name the UI's version and the window", err.Message)
		}
		d := protocol.DataOf(err)
		if d.Kind != protocol.KindUnsupportedVersion || d.ProtocolVersion != protocol.Version || d.Field != "protocol_version" || !slices.Equal(d.SupportedVersions, protocol.Versions) {
			t.Errorf("data %+v", d)
		}
	}
}

// PROTOCOL.md's example of unsupported_version is what CheckVersion
// answers a UI of a version outside the window.
func TestDocVersionErrorExample(t *testing.T) {
	data, err := os.ReadFile("PROTOCOL.md")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`\{"jsonrpc":"2.0","id":1,"error":\{"code":-32010,"message":"initialize: the UI speaks protocol ([0-9-]+), .*\}\}\}`).FindStringSubmatch(string(data))
	if m == nil {
		t.Fatal("PROTOCOL.md has no example of error -32010")
	}
	e := protocol.CheckVersion(m[1])
	want, _ := json.Marshal(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      int             `json:"id"`
		Error   *protocol.Error `json:"error"`
	}{"2.0", 1, e})
	if m[0] != string(want) {
		t.Errorf("PROTOCOL.md's -32010 example is\n%s\nthe runtime answers\n%s", m[0], want)
	}
}

// versionedServer negotiates as host serve does and records the
// deprecations it hears of.
type versionedServer struct {
	stubServer
	noted []string
}

func (s *versionedServer) Initialize(_ context.Context, p *protocol.InitializeParams) (*protocol.InitializeResult, error) {
	v, err := protocol.Negotiate(p)
	if err != nil {
		return nil, err
	}
	return &protocol.InitializeResult{ProtocolVersion: v}, nil
}

func (s *versionedServer) NoteDeprecated(_ context.Context, d protocol.Deprecation) {
	s.noted = append(s.noted, d.Old)
}

// session opens a session of version v and returns its handler.
func session(t *testing.T, v string) (protocol.Handler, *versionedServer) {
	t.Helper()
	s := &versionedServer{}
	h := protocol.ServerHandler(s)
	raw, _ := json.Marshal(map[string]any{"protocol_version": v, "client_info": map[string]string{"name": "ui"}, "capabilities": map[string]any{}})
	res, err := h(context.Background(), protocol.MethodInitialize, raw)
	if err != nil || res.(*protocol.InitializeResult).ProtocolVersion != v {
		t.Fatalf("initialize %s: %v %+v", v, err, res)
	}
	return h, s
}

// Each version is served as it was: a params field a request does not
// take is refused from 2026-11-27 on and ignored before; a request
// without its server answers -32602 from 2026-11-23 on and -32002 in
// 2026-11-22. A deprecated alias is noted once per session.
func TestDialects(t *testing.T) {
	extra := json.RawMessage(`{"server":"a","verbose":true}`)
	for _, c := range []struct {
		version      string
		unknownField int // the code of mcp.get with a field it does not take
		noServer     int // the code of mcp.get without its server
	}{
		{protocol.Version, protocol.CodeInvalidParams, protocol.CodeInvalidParams},
		{"2026-11-24", 0, protocol.CodeInvalidParams},
		{"2026-11-23", 0, protocol.CodeInvalidParams},
		{"2026-11-22", 0, protocol.CodeUnknownServer},
	} {
		h, _ := session(t, c.version)
		code := func(params string) int {
			_, err := h(context.Background(), protocol.MethodMCPGet, json.RawMessage(params))
			if err == nil {
				return 0
			}
			return int(err.(*protocol.Error).Code)
		}
		if got := code(string(extra)); got != c.unknownField {
			t.Errorf("%s: mcp.get with a field it does not take: code %d, want %d", c.version, got, c.unknownField)
		}
		if got := code(`{}`); got != c.noServer {
			t.Errorf("%s: mcp.get without a server: code %d, want %d", c.version, got, c.noServer)
		}
		_, err := h(context.Background(), protocol.MethodMCPGet, json.RawMessage(`{}`))
		wantField := map[bool]string{true: "server", false: "id"}[c.version == protocol.Version]
		if d := protocol.DataOf(err); c.noServer == protocol.CodeInvalidParams && d.Field != wantField {
			t.Errorf("%s: mcp.get without a server names field %q, want %q", c.version, d.Field, wantField)
		}
	}
	h, s := session(t, "2026-11-24")
	for range 3 {
		if _, err := h(context.Background(), protocol.MethodMCPGet, json.RawMessage(`{"id":"a"}`)); err != nil {
			t.Fatal(err)
		}
	}
	if !slices.Equal(s.noted, []string{"id"}) {
		t.Errorf("deprecations noted: %v, want id once", s.noted)
	}
}
