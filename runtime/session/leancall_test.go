package session

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The SDK's decoding of a trimmed answer, with the texts the session read
// put back, is the SDK's decoding of the whole answer: large text blocks
// among other blocks (escapes, non-ASCII, surrogate pairs, invalid UTF-8
// kept as the decoders keep it), structured content and _meta untouched;
// a block the session cannot read plainly (a duplicate "text", an escaped
// member name, a type that is not plainly "text") is left to the SDK.
func TestLeanCallResultDecodesAsTheSDK(t *testing.T) {
	big := func(tag string) string {
		return `"` + tag + strings.Repeat(`a\"b\\c\n\u00e9\ud83d\ude00 `, leanTextMin/20) + "\xff" + `"`
	}
	raw := `{"content":[` +
		`{"type":"text","text":` + big("one") + `,"_meta":{"k":1}},` +
		`{"type":"image","data":"AQID","mimeType":"image/png"},` +
		`{"type":"text","text":"small"},` +
		`{"type":"text","text":` + big("dup") + `,"text":"second"},` +
		`{"t\u0079pe":"text","text":` + big("escaped") + `},` +
		`{"type" : "text" , "text" : ` + big("two") + `}` +
		`],"structuredContent":{"n":2},"isError":false}`
	trimmed, texts, ok := leanCallResult([]byte(raw))
	if !ok {
		t.Fatal("the answer was not trimmed")
	}
	if len(texts) != 2 || !strings.HasPrefix(texts[0], "one") || !strings.HasPrefix(texts[5], "two") {
		t.Fatalf("texts read at %v", keys(texts))
	}
	if len(trimmed) > len(raw)-2*leanTextMin {
		t.Errorf("trimmed to %d bytes of %d", len(trimmed), len(raw))
	}
	var whole, lean mcp.CallToolResult
	if err := json.Unmarshal([]byte(raw), &whole); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(trimmed, &lean); err != nil {
		t.Fatal(err)
	}
	cc := &callCapture{}
	cc.put(texts)
	if err := cc.restore(&lean); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(&whole, &lean) {
		t.Error("the lean decoding differs from the SDK's")
	}
	// A small answer, or one without large texts, is passed on as it is.
	for _, r := range []string{`{"content":[{"type":"text","text":"hi"}]}`, `{"content":[{"type":"image","data":"` + strings.Repeat("A", leanTextMin) + `"}]}`} {
		if _, _, ok := leanCallResult([]byte(r)); ok {
			t.Errorf("trimmed %.60s…", r)
		}
	}
	// A block that is no longer text when decoded is an error, not a
	// silent loss.
	cc.put(map[int]string{1: "x"})
	if err := cc.restore(&whole); err == nil {
		t.Error("restore into an image block succeeded")
	}
}

func keys(m map[int]string) []int {
	var out []int
	for k := range m {
		out = append(out, k)
	}
	return out
}
