package session

import (
	"errors"
	"io"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// filterRun is what a lineFilter made of some stdout.
type filterRun struct {
	out     string   // what the SDK reads
	notes   []string // what went to the stderr tail
	replies []string // what was written back to the server
	skipped int64
}

func runFilter(t testing.TB, in string, max int) filterRun {
	t.Helper()
	var mu sync.Mutex
	var r filterRun
	f := newLineFilter(strings.NewReader(in), max, "srv",
		func(s string) { mu.Lock(); r.notes = append(r.notes, s); mu.Unlock() },
		func(b []byte) { mu.Lock(); r.replies = append(r.replies, string(b)); mu.Unlock() })
	out, err := io.ReadAll(f)
	if err != nil {
		t.Fatalf("filter read: %v", err)
	}
	r.out, r.skipped = string(out), f.Skipped()
	return r
}

const (
	initAnswer = `{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-06-18"}}`
	logNote    = `{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"hi"}}`
)

func TestLineFilterSkipsWhatIsNotJSONRPC(t *testing.T) {
	in := "Server running on stdio\n" +
		"\n   \r\n" + // blank lines: nothing to note
		initAnswer + "\r\n" + // CRLF
		"{oops\n" +
		`{"level":30,"msg":"json but not JSON-RPC"}` + "\n" +
		`"just a string"` + "\n" +
		"[1, 2]\n" + // two notes, one per element
		"[]\n" +
		`{"jsonrpc":"2.0","method":"x"}0` + "\n" + // the SDK's stream reader fails on trailing data
		logNote // last line without a newline
	r := runFilter(t, in, 0)
	if want := initAnswer + "\n" + logNote + "\n"; r.out != want {
		t.Errorf("SDK reads %q, want %q", r.out, want)
	}
	if r.skipped != 8 || len(r.notes) != 8 {
		t.Fatalf("skipped %d, notes %q; want 8", r.skipped, r.notes)
	}
	if r.notes[0] != "[stdout, not JSON-RPC] (#1) Server running on stdio" {
		t.Errorf("first note = %q", r.notes[0])
	}
	if len(r.replies) != 0 {
		t.Errorf("answered %q to lines that are no requests", r.replies)
	}
}

func TestLineFilterSplitsBatches(t *testing.T) {
	in := `[` + initAnswer + `, {"nope":1}, ` + logNote + `]` + "\n"
	r := runFilter(t, in, 0)
	if want := initAnswer + "\n" + logNote + "\n"; r.out != want {
		t.Errorf("SDK reads %q, want %q", r.out, want)
	}
	if r.skipped != 1 || !strings.Contains(r.notes[0], "in a batch") {
		t.Errorf("notes = %q", r.notes)
	}
}

func TestLineFilterAnswerOverCapFailsItsRequest(t *testing.T) {
	const max = 1024
	big := strings.Repeat("x", 4*max)
	in := `{"result":{"text":"` + big + `"},"jsonrpc":"2.0","id":7}` + "\n" + // TypeScript's member order
		`{"jsonrpc":"2.0","id":8,"method":"sampling/createMessage","params":{"x":"` + big + `"}}` + "\n" +
		`{"jsonrpc":"2.0","method":"notifications/message","params":{"x":"` + big + `"}}` + "\n" +
		initAnswer + "\n"
	r := runFilter(t, in, max)
	lines := strings.Split(strings.TrimSuffix(r.out, "\n"), "\n")
	if len(lines) != 2 || lines[1] != initAnswer {
		t.Fatalf("SDK reads %q", r.out)
	}
	msg, err := jsonrpc.DecodeMessage([]byte(lines[0]))
	if err != nil {
		t.Fatal(err)
	}
	resp, ok := msg.(*jsonrpc.Response)
	var rpcErr *jsonrpc.Error
	if !ok || resp.ID.Raw() != int64(7) || !errors.As(resp.Error, &rpcErr) ||
		rpcErr.Code != CodeResponseTooLarge || !strings.Contains(rpcErr.Message, "exceeds the response cap of 1 KiB (max_response_bytes)") {
		t.Errorf("in place of the big answer the SDK reads %+v", msg)
	}
	if len(r.replies) != 1 || !strings.Contains(r.replies[0], `"id":8,"error":{"code":-32600`) {
		t.Errorf("replies = %q, want request 8 refused", r.replies)
	}
	if r.skipped != 3 {
		t.Errorf("skipped = %d, want 3", r.skipped)
	}
	for _, n := range r.notes {
		if utf8.RuneCountInString(n) > maxNoteLine+200 {
			t.Errorf("note of %d bytes: the whole line was kept", len(n))
		}
	}
}

func TestNoteTextIsSafeAndBounded(t *testing.T) {
	if got, want := noteText([]byte("a\x1b[2Jb\x00c\xffd")), "abc\uFFFDd"; got != want {
		t.Errorf("noteText = %q, want %q", got, want)
	}
	long := noteText([]byte(strings.Repeat("é", 10*maxNoteLine)))
	if n := utf8.RuneCountInString(long); n != maxNoteLine || !strings.HasSuffix(long, "…") {
		t.Errorf("long line noted as %d runes: %q…", n, long[:20])
	}
}

func TestLineFilterIDsTheSDKWouldChange(t *testing.T) {
	in := `{"jsonrpc":"2.0","id":1.5,"method":"ping"}` + "\n" +
		`{"jsonrpc":"2.0","id":1.5,"result":{}}` + "\n" + // answers nothing of ours
		`{"jsonrpc":"2.0","id":true,"method":"ping"}` + "\n" +
		`{"jsonrpc":"2.0","\u0069d":2.5,"method":"ping"}` + "\n" + // an escaped key is still "id"
		`{"jsonrpc":"2.0","id":3,"method":"ping"}` + "\n"
	r := runFilter(t, in, 0)
	if want := `{"jsonrpc":"2.0","id":3,"method":"ping"}` + "\n"; r.out != want {
		t.Errorf("SDK reads %q, want only request 3", r.out)
	}
	want := []string{
		`{"jsonrpc":"2.0","id":1.5,"error":{"code":-32600,`,
		`{"jsonrpc":"2.0","id":null,"error":{"code":-32600,`,
		`{"jsonrpc":"2.0","id":2.5,"error":{"code":-32600,`,
	}
	if len(r.replies) != len(want) {
		t.Fatalf("replies = %q", r.replies)
	}
	for i, w := range want {
		if !strings.HasPrefix(r.replies[i], w) || !strings.HasSuffix(r.replies[i], "}}\n") {
			t.Errorf("reply %d = %q, want it to start %q", i, r.replies[i], w)
		}
	}
	if r.skipped != 4 {
		t.Errorf("skipped = %d, want 4 (notes %q)", r.skipped, r.notes)
	}
}
