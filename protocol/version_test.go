package protocol_test

import (
	"encoding/json"
	"os"
	"regexp"
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
	if !ok || !strings.Contains(changes, "\n### "+protocol.Version+"\n") {
		t.Errorf("PROTOCOL.md's Changes section has no entry for %s", protocol.Version)
	}
}

// A UI of another version gets unsupported_version naming both versions;
// the current version and none pass.
func TestCheckVersion(t *testing.T) {
	if protocol.CheckVersion(protocol.Version) != nil || protocol.CheckVersion("") != nil {
		t.Fatal("the current version (or none) was refused")
	}
	err := protocol.CheckVersion("2026-11-23")
	if err == nil || err.Code != protocol.CodeUnsupportedVersion {
		t.Fatalf("got %v, want code %d", err, protocol.CodeUnsupportedVersion)
	}
	if !strings.Contains(err.Message, "2026-11-23") || !strings.Contains(err.Message, protocol.Version) {
		t.Errorf("message %q does not name both versions", err.Message)
	}
	if d := protocol.DataOf(err); d.Kind != protocol.KindUnsupportedVersion || d.ProtocolVersion != protocol.Version || d.Field != "protocol_version" {
		t.Errorf("data %+v", d)
	}
}

// PROTOCOL.md's example of unsupported_version is what CheckVersion
// answers a UI of the previous version.
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
