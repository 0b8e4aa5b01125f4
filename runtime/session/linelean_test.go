package session

import (
	"io"
	"runtime"
	"strings"
	"testing"
)

// bigAnswer is a JSON-RPC answer of about n bytes: a tool result of
// 100-byte lines (newlines escaped, as a server writes them).
func bigAnswer(n int) string {
	line := strings.Repeat("x", 98) + `\n`
	return `{"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"` + strings.Repeat(line, n/100) + `"}]}}`
}

// A 5 MB answer costs the filter little more than one copy of its line
// on its way to the SDK (measured as bytes allocated; the old filter grew
// the line by append, decoded the whole message to check it, and copied
// it again, some 10 times the line), and reaches the SDK byte for byte.
func TestLargeLineCostsAboutOneCopy(t *testing.T) {
	in := bigAnswer(5<<20) + "\n"
	f := newLineFilter(strings.NewReader(in), 0, "srv", nil, nil)
	buf := make([]byte, 64<<10)
	var got strings.Builder
	got.Grow(len(in))
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for {
		n, err := f.Read(buf)
		got.Write(buf[:n])
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	runtime.ReadMemStats(&after)
	if got.String() != in {
		t.Fatalf("the SDK reads %d bytes, not the line of %d", got.Len(), len(in))
	}
	alloc := after.TotalAlloc - before.TotalAlloc
	t.Logf("%d bytes allocated for a line of %d", alloc, len(in))
	if alloc > uint64(4*len(in)) {
		t.Errorf("%d bytes allocated for a line of %d, want under 4 times it", alloc, len(in))
	}
}

// A large message is checked without its result, but still as the SDK
// would check it whole: nested deeper than the SDK accepts, or not valid
// JSON, it is skipped rather than handed on; a large request's params are
// left out of the check the same way and the request passes.
func TestLargeMessageChecks(t *testing.T) {
	pad := strings.Repeat(" ", leanProbeMin)
	deep := `{"jsonrpc":"2.0","id":1,"result":{"a":` + strings.Repeat("[", 1000) + strings.Repeat("]", 1000) + `,"p":"` + pad + `"}}`
	broken := `{"jsonrpc":"2.0","id":2,"result":{"p":"` + pad + `",}}`
	request := `{"jsonrpc":"2.0","id":3,"method":"sampling/createMessage","params":{"p":"` + pad + `"}}`
	ok := `{"jsonrpc":"2.0","id":4,"result":"` + pad + `"}`
	badVersion := `{"jsonrpc":"1.0","id":5,"result":{"p":"` + pad + `"}}`
	r := runFilter(t, deep+"\n"+broken+"\n"+request+"\n"+ok+"\n"+badVersion+"\n", 0)
	if want := request + "\n" + ok + "\n"; r.out != want {
		t.Errorf("the SDK reads %d bytes, want the request and the answer (%d)", len(r.out), len(want))
	}
	if r.skipped != 3 {
		t.Errorf("skipped %d lines, want 3: %q", r.skipped, r.notes)
	}
}
