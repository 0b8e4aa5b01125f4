package resultstore

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/mcp-host/mcp-host/core"
	"github.com/mcp-host/mcp-host/runtime/adapter"
)

// Bounds of one read.
const (
	// maxMatches bounds the lines a search answers.
	maxMatches = 50
	// matchContext is the most bytes of a matching line shown.
	matchContext = 400
	// fragment is the most bytes of a line handled at once: a longer line
	// is read (and searched) in fragments of this size.
	fragment = 64 << 10
)

// readTool is [adapter.ResultReadTool] over one scope.
type readTool struct {
	sc     *Scope
	maxOut int
}

// Tool returns the host tool that reads the scope's results, answering
// at most maxOut bytes a call (<= 0 means adapter.DefaultMaxOutputBytes).
// It reads only files the host wrote, so it needs no confirm.
func (sc *Scope) Tool(maxOut int) core.Tool {
	if maxOut <= 0 {
		maxOut = adapter.DefaultMaxOutputBytes
	}
	return &readTool{sc: sc, maxOut: maxOut}
}

// Name returns [adapter.ResultReadTool].
func (t *readTool) Name() string { return adapter.ResultReadTool }

// Description tells the model when to use the tool.
func (t *readTool) Description() string {
	return "Read more of an MCP tool result that was cut at the output budget: the note of such a result gives its id. " +
		"Give offset and length (bytes), or lines (\"first-last\", 1-based), or search (a term: the matching lines with their numbers). " +
		fmt.Sprintf("Answers at most %d bytes a call. Kept results are removed when the conversation ends, or after a day.", t.maxOut)
}

// Schema is the tool's input schema.
func (t *readTool) Schema() json.RawMessage {
	return json.RawMessage(`{"type":"object","properties":{` +
		`"id":{"type":"string","description":"the id the cut result's note gives"},` +
		`"offset":{"type":"integer","minimum":0,"description":"byte to start at"},` +
		`"length":{"type":"integer","minimum":1,"description":"bytes to read"},` +
		`"lines":{"type":"string","description":"a line range such as \"120-180\""},` +
		`"search":{"type":"string","description":"a term to find (case-insensitive)"}},"required":["id"]}`)
}

// readArgs are the tool's arguments.
type readArgs struct {
	ID     string `json:"id"`
	Offset *int64 `json:"offset"`
	Length int    `json:"length"`
	Lines  string `json:"lines"`
	Search string `json:"search"`
}

// Call reads from a kept result.
func (t *readTool) Call(_ context.Context, raw json.RawMessage) (*core.Result, error) {
	var a readArgs
	if err := json.Unmarshal(raw, &a); err != nil || a.ID == "" {
		return core.ErrorResult(`Give "id" (from the cut result's note), and "offset" and "length", or "lines", or "search".`), nil
	}
	f, size, err := t.sc.open(a.ID)
	if err != nil {
		return core.ErrorResult(err.Error()), nil
	}
	defer f.Close()
	var text string
	switch {
	case a.Search != "":
		text, err = t.search(f, a.Search)
	case a.Lines != "":
		text, err = t.lines(f, a.Lines)
	default:
		var off int64
		if a.Offset != nil {
			off = *a.Offset
		}
		text, err = t.bytes(f, size, off, a.Length)
	}
	if err != nil {
		return core.ErrorResult(fmt.Sprintf("read kept result %q: %v", a.ID, err)), nil
	}
	return &core.Result{Content: []core.Content{{Type: core.ContentText, Text: text}}}, nil
}

// bytes answers length bytes (at most maxOut) from off, moved to whole
// characters.
func (t *readTool) bytes(f io.ReaderAt, size, off int64, length int) (string, error) {
	if off < 0 || off > size {
		return "", fmt.Errorf("offset %d is outside the result's %d bytes", off, size)
	}
	if length <= 0 || length > t.maxOut {
		length = t.maxOut
	}
	n := min(int64(length), size-off)
	buf := make([]byte, n+utf8.UTFMax)
	got, err := f.ReadAt(buf, off)
	if err != nil && !errors.Is(err, io.EOF) {
		return "", err
	}
	buf = buf[:got]
	start := 0
	for start < len(buf) && start < utf8.UTFMax && !utf8.RuneStart(buf[start]) {
		start++
	}
	end := int(n)
	for end < len(buf) && end > start && !utf8.RuneStart(buf[end]) {
		end--
	}
	end = min(end, len(buf))
	chunk := buf[start:end]
	from, to := off+int64(start), off+int64(end)
	note := fmt.Sprintf("\n[bytes %d-%d of %d", from, to, size)
	if to < size {
		note += fmt.Sprintf("; next offset %d]", to)
	} else {
		note += "; the end]"
	}
	return string(chunk) + note, nil
}

// eachFragment calls fn with every fragment of every line of r (line
// numbers from 1; last reports the fragment ends its line) until fn
// returns false.
func eachFragment(r io.Reader, fn func(line int, frag []byte, first bool) bool) error {
	br := bufio.NewReaderSize(r, fragment)
	line, first := 1, true
	for {
		frag, err := br.ReadSlice('\n')
		if len(frag) > 0 && !fn(line, frag, first) {
			return nil
		}
		switch {
		case err == nil:
			line, first = line+1, true
		case errors.Is(err, bufio.ErrBufferFull):
			first = false
		case errors.Is(err, io.EOF):
			return nil
		default:
			return err
		}
	}
}

// lines answers a range of lines, within maxOut bytes.
func (t *readTool) lines(r io.Reader, spec string) (string, error) {
	a, b, ok := strings.Cut(spec, "-")
	from, err1 := strconv.Atoi(strings.TrimSpace(a))
	to, err2 := strconv.Atoi(strings.TrimSpace(b))
	if !ok {
		to, err2 = from, nil
	}
	if err1 != nil || err2 != nil || from < 1 || to < from {
		return "", fmt.Errorf("lines %q: want \"first-last\", 1-based", spec)
	}
	var out bytes.Buffer
	last, full := 0, false
	err := eachFragment(r, func(line int, frag []byte, _ bool) bool {
		if line > to {
			return false
		}
		if line < from {
			return true
		}
		room := t.maxOut - out.Len()
		if len(frag) > room {
			out.Write(cutRunes(frag, room))
			full = true
			return false
		}
		out.Write(frag)
		last = line
		return true
	})
	if err != nil {
		return "", err
	}
	switch {
	case out.Len() == 0:
		return fmt.Sprintf("[no line %d: the result has fewer lines]", from), nil
	case full:
		fmt.Fprintf(&out, "\n[cut at %d bytes; read on with a smaller range or with offset and length]", t.maxOut)
	default:
		fmt.Fprintf(&out, "\n[lines %d-%d]", from, last)
	}
	return out.String(), nil
}

// search answers the lines that contain term, each with its number.
func (t *readTool) search(r io.Reader, term string) (string, error) {
	want := bytes.ToLower([]byte(term))
	var out bytes.Buffer
	n, lastLine := 0, 0
	more := false
	err := eachFragment(r, func(line int, frag []byte, _ bool) bool {
		if line == lastLine {
			return true // one answer a line
		}
		i := bytes.Index(bytes.ToLower(frag), want)
		if i < 0 {
			return true
		}
		if n == maxMatches || out.Len() > t.maxOut-matchContext-32 {
			more = true
			return false
		}
		n, lastLine = n+1, line
		start := max(0, i-matchContext/2)
		for start > 0 && !utf8.RuneStart(frag[start]) {
			start--
		}
		show := cutRunes(frag[start:], matchContext)
		fmt.Fprintf(&out, "%d: %s\n", line, strings.TrimRight(string(show), "\r\n"))
		return true
	})
	if err != nil {
		return "", err
	}
	switch {
	case n == 0:
		return fmt.Sprintf("[no line contains %q]", term), nil
	case more:
		fmt.Fprintf(&out, "[more lines match: the first %d are shown; read them with lines, or search for a narrower term]", n)
	}
	return out.String(), nil
}

// cutRunes returns the longest prefix of b of at most n bytes that ends
// on a character boundary.
func cutRunes(b []byte, n int) []byte {
	if n >= len(b) {
		return b
	}
	if n <= 0 {
		return nil
	}
	for n > 0 && !utf8.RuneStart(b[n]) {
		n--
	}
	return b[:n]
}
