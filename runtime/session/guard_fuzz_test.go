package session

import (
	"bytes"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"testing"
)

// stubTransport answers every request (the guard's own answers to refused
// server requests) with 202.
type stubTransport struct{}

func (stubTransport) RoundTrip(*http.Request) (*http.Response, error) {
	return &http.Response{StatusCode: http.StatusAccepted, Body: http.NoBody, Header: http.Header{}}, nil
}

func fuzzGuard(max int, legacy bool) *guardRoundTripper {
	own, _ := url.Parse("http://h.example/mcp")
	return &guardRoundTripper{
		id: "fuzz", origin: own, crossOrigin: "test", legacySSE: legacy, max: max,
		log: slog.New(slog.DiscardHandler), next: stubTransport{}, replies: make(chan struct{}, 1),
	}
}

// sseEvents splits a stream the way the SDK's reader does: lines end at
// '\n'; a line that is empty once "\r\n" are trimmed ends an event.
func sseEvents(stream []byte) [][]byte {
	var events [][]byte
	var cur []byte
	for len(stream) > 0 {
		i := bytes.IndexByte(stream, '\n')
		line := stream
		if i >= 0 {
			line = stream[:i+1]
		}
		stream = stream[len(line):]
		if len(bytes.TrimRight(line, "\r\n")) == 0 && i >= 0 {
			events = append(events, cur)
			cur = nil
			continue
		}
		cur = append(cur, line...)
	}
	return append(events, cur)
}

// FuzzSSEGuard feeds arbitrary streams through the guard: it never panics
// or hangs, never hands on an event over the cap but its own made-up
// answers, and passes a stream with nothing to check through unchanged.
func FuzzSSEGuard(f *testing.F) {
	f.Add([]byte("event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n\n"), false, true)
	f.Add([]byte("data: {\"jsonrpc\":\"2.0\",\"id\":1.5,\"method\":\"ping\"}\n\ndata: x\n\n"), false, false)
	f.Add([]byte("event: endpoint\ndata: http://other.example/m\n\n"), true, false)
	f.Add([]byte("data: {\"id\":\"q\",\"result\":\""+strings.Repeat("a", 300)+"\"}\r\n\r\n: c\n\nretry: 5\nid: 7\n"), false, true)
	f.Add([]byte("da"+strings.Repeat("t", 400)+"a: y\n\n\n\n"), true, false)
	const max = 128
	f.Fuzz(func(t *testing.T, stream []byte, legacy, post bool) {
		method, body := http.MethodGet, io.Reader(nil)
		if post && !legacy {
			method, body = http.MethodPost, strings.NewReader(`{"jsonrpc":"2.0","id":3,"method":"tools/call"}`)
		}
		req, _ := http.NewRequest(method, "http://h.example/mcp", body)
		g := fuzzGuard(max, legacy)
		out, err := io.ReadAll(g.newSSEGuard(req, io.NopCloser(bytes.NewReader(stream)), callID(req), nil, g.max))
		if err != nil {
			if _, ok := err.(*crossOriginError); !ok || !legacy {
				t.Fatalf("read error %v", err)
			}
		}
		for _, ev := range sseEvents(out) {
			if len(ev) > max && !bytes.HasPrefix(ev, []byte(`data: {"jsonrpc":"2.0","id":`)) {
				t.Fatalf("an event of %d bytes passed the cap of %d: %.80q", len(ev), max, ev)
			}
		}
		plain := !legacy && !post && !bytes.Contains(stream, []byte("id")) && !bytes.Contains(stream, []byte(`\u`))
		for _, ev := range sseEvents(stream) {
			plain = plain && len(ev) <= max-2
		}
		if plain && !bytes.Equal(out, stream) {
			t.Fatalf("a stream with nothing to check changed:\n in %q\nout %q", stream, out)
		}
	})
}

// FuzzIDScanner checks the streaming id scanner against encoding/json on
// valid JSON objects, fed whole and split at every point.
func FuzzIDScanner(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"ping"}`,
		`{"result":{"id":"inner","x":[1,{"id":2}]},"id":"outer"}`,
		`{"id":1.5,"method":""}`,
		`{"i\u0064":7, "method" : null , "id":"\"q\\\""}`,
		` { "id" : -0 } `,
		`{"id":{"a":"}"},"method":"m"}`,
		`[1,2]`,
	} {
		f.Add([]byte(s), uint16(3))
	}
	f.Fuzz(func(t *testing.T, data []byte, split uint16) {
		var whole, parts idScanner
		whole.Write(data)
		whole.finish()
		k := int(split) % (len(data) + 1)
		parts.Write(data[:k])
		parts.Write(data[k:])
		parts.finish()
		if whole.hasID != parts.hasID || !bytes.Equal(whole.id, parts.id) || whole.hasMethod != parts.hasMethod {
			t.Fatalf("split at %d changed the result", k)
		}
		var m map[string]json.RawMessage
		if !json.Valid(data) || json.Unmarshal(data, &m) != nil {
			return
		}
		ref, has := m["id"]
		if has != whole.hasID {
			t.Fatalf("hasID %v, encoding/json %v", whole.hasID, has)
		}
		if has && !whole.idLong && !bytes.Equal(compact(ref), compact(whole.id)) {
			t.Fatalf("id %q, encoding/json %q", whole.id, ref)
		}
		var method string
		if raw, ok := m["method"]; ok && json.Unmarshal(raw, &method) == nil && method != "" && !whole.hasMethod {
			t.Fatalf("method %q missed", method)
		}
	})
}

func compact(b []byte) []byte {
	var buf bytes.Buffer
	if json.Compact(&buf, b) != nil {
		return b
	}
	return buf.Bytes()
}

// FuzzAnswerMatch checks the JSON answer holder: an answer is handed on
// unchanged exactly when it answers the request (by encoding/json's
// reading of its id); otherwise the SDK gets a JSON-RPC error for the
// request's own id.
func FuzzAnswerMatch(f *testing.F) {
	f.Add([]byte(`{"jsonrpc":"2.0","id":4,"result":{}}`), []byte(`4`))
	f.Add([]byte(`{"jsonrpc":"2.0","id":"4","result":{}}`), []byte(`4`))
	f.Add([]byte(`{"jsonrpc":"2.0","id":4.0,"result":{}}`), []byte(`4`))
	f.Add([]byte(`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse"}}`), []byte(`"mcp-host-ext-1"`))
	f.Add([]byte(`{"jsonrpc":"2.0","result":{"id":4}}`), []byte(`4`))
	f.Add([]byte(`{"jsonrpc":"2.0","id":4,"result":"`+strings.Repeat("x", 600)+`"}`), []byte(`4`))
	f.Fuzz(func(t *testing.T, body, id []byte) {
		if kind, _ := classifyID(id); kind != idInteger && kind != idString {
			return // the session's own ids are integers or strings
		}
		g := fuzzGuard(512, false)
		ja := &jsonAnswer{g: g, max: g.max, src: io.NopCloser(bytes.NewReader(body)), callID: id, length: -1}
		out, err := io.ReadAll(ja)
		if err != nil {
			t.Fatal(err)
		}
		var got struct {
			ID    json.RawMessage `json:"id"`
			Error *struct {
				Code int64 `json:"code"`
			} `json:"error"`
		}
		if bytes.Equal(out, body) {
			if len(body) > g.max {
				t.Fatal("an answer over the cap was handed on")
			}
			var m map[string]json.RawMessage
			if json.Valid(body) && json.Unmarshal(body, &m) == nil && !sameID(m["id"], id) {
				t.Fatalf("an answer for id %s was handed on for request %s", m["id"], id)
			}
			return
		}
		if json.Unmarshal(out, &got) != nil || got.Error == nil || !sameID(got.ID, id) {
			t.Fatalf("made-up answer %q is not an error for request %s", out, id)
		}
		if got.Error.Code != CodeWrongAnswer && got.Error.Code != CodeResponseTooLarge {
			t.Fatalf("code %d", got.Error.Code)
		}
		var m map[string]json.RawMessage
		if len(body) <= g.max && json.Valid(body) && json.Unmarshal(body, &m) == nil && sameID(m["id"], id) {
			t.Fatalf("a valid answer for request %s was replaced", id)
		}
	})
}
