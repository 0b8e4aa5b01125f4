package session

import (
	"bytes"
	"encoding/json"
	"io"
	"strconv"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// fuzzMax is the line cap under fuzzing: small, so that lines over it are
// common.
const fuzzMax = 256

var lineFilterSeeds = []string{
	"",
	"Server running on stdio\n" + initAnswer + "\n",
	initAnswer + "\r\n" + logNote,
	"\n\n  \r\n\t\n",
	`[` + initAnswer + `,` + logNote + `,{"x":1},[]]` + "\n",
	"[]\n[1,2,3]\n{}\n\"str\"\n42\nnull\n",
	`{"jsonrpc":"2.0","id":1.5,"method":"ping"}` + "\n" + `{"jsonrpc":"2.0","id":1.5,"result":{}}` + "\n",
	`{"jsonrpc":"2.0","id":1e2,"method":"ping"}` + "\n" + `{"jsonrpc":"2.0","id":-0,"method":"ping"}` + "\n",
	`{"jsonrpc":"2.0","id":9007199254740993,"method":"ping"}` + "\n",
	`{"jsonrpc":"2.0","id":1E700,"method":"ping"}` + "\n" + `{"jsonrpc":"2.0","id":1E700,"method":"ping","params":` + "\n",
	`{"jsonrpc":"2.0","\u0069d":2.5,"method":"ping"}` + "\n",
	`{"jsonrpc":"2.0","id":1,"id":1.5,"method":"ping"}` + "\n" + `{"jsonrpc":"2.0","id":1.5,"id":1,"method":"ping"}` + "\n",
	`{"jsonrpc":"2.0","id":true,"method":"ping"}` + "\n" + `{"jsonrpc":"2.0","id":{"a":1},"method":"x"}` + "\n",
	`{"jsonrpc":"1.0","id":4,"method":"ping"}` + "\n" + `{"jsonrpc":"2.0","id":5,"method":7}` + "\n",
	`{"jsonrpc":"2.0","id":"a\"b\\","result":{"s":"}{][\"\\"}}` + "\n",
	`{"result":{"text":"` + strings.Repeat("x", 2*fuzzMax) + `"},"jsonrpc":"2.0","id":9}` + "\n" + initAnswer + "\n",
	`{"jsonrpc":"2.0","id":"big","method":"m","params":"` + strings.Repeat("y", 2*fuzzMax) + `"}` + "\n",
	`{"jsonrpc":"2.0","method":"n","params":"` + strings.Repeat("z", 2*fuzzMax) + "\n",
	"\x00\xff\xfe{\x1b[31m}\n" + `{"jsonrpc":"2.0","id":2,"error":{"code":-1,"message":"m"}}`,
	`{"jsonrpc":"2.0","id":2,"error":"not an object"}` + "\n",
	strings.Repeat("[", 2000) + "\n" + strings.Repeat("{\"a\":", 1100) + "1" + strings.Repeat("}", 1100) + "\n",
}

// FuzzStdioLineFilter checks the promises of lineFilter on any stdout:
// the SDK gets only lines it decodes without error (so nothing a server
// prints can end the session), with no id it would change; every answer
// written back is a well-formed JSON-RPC error; every skipped line is
// counted and noted; and every well-formed message under the cap with an id
// the SDK keeps exactly gets through, in order.
func FuzzStdioLineFilter(f *testing.F) {
	for _, s := range lineFilterSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		r := runFilter(t, string(in), fuzzMax)
		var got []string
		if r.out != "" {
			if !strings.HasSuffix(r.out, "\n") {
				t.Fatalf("output does not end in a newline: %q", r.out)
			}
			got = strings.Split(strings.TrimSuffix(r.out, "\n"), "\n")
		}
		for _, line := range got {
			msg, err := jsonrpc.DecodeMessage([]byte(line))
			if err != nil {
				t.Fatalf("the SDK would fail on %q: %v", line, err)
			}
			checkIDKept(t, line, msg)
			if strings.HasPrefix(line, "[") {
				t.Fatalf("a batch reached the SDK: %q", line)
			}
			if len(line) > fuzzMax+2 && !strings.Contains(line, `"code":-32050`) {
				t.Fatalf("a line of %d bytes passed a cap of %d", len(line), fuzzMax)
			}
			var sc idScanner
			sc.Write([]byte(line))
			sc.finish()
			if sc.hasID && scanKind(&sc) == idInvalid && string(sc.id) != "null" {
				t.Fatalf("id %q, which the SDK changes, reached it in %q", sc.id, line)
			}
		}
		for _, reply := range r.replies {
			checkErrorAnswer(t, reply)
		}
		if int64(len(r.notes)) != r.skipped {
			t.Fatalf("%d lines skipped, %d noted", r.skipped, len(r.notes))
		}
		// Completeness: what must pass, in order.
		want := mustPass(in, fuzzMax)
		i := 0
		for _, line := range got {
			if i < len(want) && line == want[i] {
				i++
			}
		}
		if i < len(want) {
			t.Fatalf("well-formed message %q did not reach the SDK (it read %q)", want[i], got)
		}
	})
}

// checkErrorAnswer checks that reply, written back to the server, is one
// line holding a JSON-RPC 2.0 error answer: the id null, a string or a
// number (echoed as the server wrote it, which the server's own reader, not
// ours, has to take), and an error with an integer code and a message.
func checkErrorAnswer(t *testing.T, reply string) {
	body, ok := strings.CutSuffix(reply, "\n")
	if !ok || strings.Contains(body, "\n") || !json.Valid([]byte(body)) {
		t.Fatalf("reply %q is not one line of JSON", reply)
	}
	var ans struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   *struct {
			Code    *int64  `json:"code"`
			Message *string `json:"message"`
		} `json:"error"`
	}
	d := json.NewDecoder(strings.NewReader(body))
	d.UseNumber()
	if err := d.Decode(&ans); err != nil {
		t.Fatalf("reply %q: %v", reply, err)
	}
	switch {
	case ans.JSONRPC != "2.0":
		t.Fatalf("reply %q: jsonrpc is %q", reply, ans.JSONRPC)
	case len(ans.ID) == 0 || ans.ID[0] != 'n' && ans.ID[0] != '"' && !isJSONNumber(ans.ID):
		t.Fatalf("reply %q: id %s is no string, number or null", reply, ans.ID)
	case ans.Error == nil || ans.Error.Code == nil || ans.Error.Message == nil:
		t.Fatalf("reply %q: no error with a code and a message", reply)
	}
}

// isJSONNumber reports whether raw is one JSON number, of any size.
func isJSONNumber(raw []byte) bool {
	return json.Valid(raw) && len(raw) > 0 && (raw[0] == '-' || raw[0] >= '0' && raw[0] <= '9')
}

// checkIDKept checks, independently of idScanner, that the id the SDK
// decoded from line is the id written in it.
func checkIDKept(t *testing.T, line string, msg jsonrpc.Message) {
	var members map[string]json.RawMessage
	if err := json.Unmarshal([]byte(line), &members); err != nil {
		t.Fatalf("output line %q is no JSON object: %v", line, err)
	}
	var id jsonrpc.ID
	switch m := msg.(type) {
	case *jsonrpc.Request:
		id = m.ID
	case *jsonrpc.Response:
		id = m.ID
	}
	// The same integer: -0 is 0, as for any JSON reader.
	if n, ok := id.Raw().(int64); ok {
		if lit, err := strconv.ParseInt(string(members["id"]), 10, 64); err != nil || lit != n {
			t.Fatalf("the SDK reads id %d from %q", n, line)
		}
	}
}

// mustPass lists the lines of in that are single JSON-RPC messages under
// the cap, decoded by the SDK with nothing after them (its stream reader
// fails on trailing data), whose id (if any) the SDK keeps exactly.
func mustPass(in []byte, max int) []string {
	var out []string
	for len(in) > 0 {
		raw := in
		if i := bytes.IndexByte(in, '\n'); i >= 0 {
			raw, in = in[:i+1], in[i+1:]
		} else {
			in = nil
		}
		if len(raw) > max+2 {
			continue
		}
		line := bytes.TrimSpace(raw)
		if len(line) == 0 || line[0] != '{' {
			continue
		}
		if _, err := jsonrpc.DecodeMessage(line); err != nil || !json.Valid(line) {
			continue
		}
		var sc idScanner
		sc.Write(line)
		sc.finish()
		if sc.hasID && scanKind(&sc) == idInvalid {
			continue
		}
		out = append(out, string(line))
	}
	return out
}

// TestLineFilterReadsInSmallPieces feeds the seeds one byte per Read, as a
// slow pipe would, and expects the same result as in one piece.
func TestLineFilterReadsInSmallPieces(t *testing.T) {
	for _, s := range lineFilterSeeds {
		whole := runFilter(t, s, fuzzMax)
		f := newLineFilter(&oneByteReader{s: s}, fuzzMax, "srv", func(string) {}, func([]byte) {})
		out, err := io.ReadAll(f)
		if err != nil || string(out) != whole.out {
			t.Errorf("byte by byte: %q, %v; whole: %q", out, err, whole.out)
		}
	}
}

type oneByteReader struct{ s string }

func (r *oneByteReader) Read(p []byte) (int, error) {
	if r.s == "" {
		return 0, io.EOF
	}
	if len(p) == 0 {
		return 0, nil
	}
	p[0] = r.s[0]
	r.s = r.s[1:]
	return 1, nil
}
