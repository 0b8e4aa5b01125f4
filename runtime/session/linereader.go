package session

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync/atomic"

	"github.com/mcp-host/mcp-host/termsafe"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// maxNoteLine bounds how much of a skipped line (in runes) is kept in the
// stderr tail.
const maxNoteLine = 512

// bigLine is the buffer size above which a line buffer is dropped after use
// rather than kept for the next line.
const bigLine = 1 << 20

// lineFilter reads a stdio server's stdout line by line and hands the SDK's
// JSON-RPC reader only what it can decode, so that no line from the server
// can end the session:
//
//   - a line that is not a JSON-RPC message (a banner such as "Server running
//     on stdio", a log line, a message with more data after it on its line,
//     on which the SDK's stream reader would fail) is skipped, counted and
//     kept in the stderr tail with the note "[stdout, not JSON-RPC]"; a
//     blank line is skipped silently;
//   - a batch (a JSON array) is split into its messages, each checked alone,
//     so the SDK never sees a batch (it refuses them from protocol 2025-06-18
//     on, ending the session);
//   - a request whose id is a number the SDK cannot echo exactly (1.5, 1e3,
//     2^63; the SDK would answer 1.5 as 1) is answered with -32600 Invalid
//     Request carrying the id exactly as written, as JSON-RPC 2.0 asks of a
//     request whose id is known, and not passed on; an answer with such an id
//     answers none of our requests (we send small integers and strings) and
//     is dropped with a note;
//   - a line longer than the server's response cap (Options.MaxResponseBytes)
//     is never buffered whole: it is skipped while its top-level "id" is read
//     on the fly, and an answer over the cap becomes an error answer
//     (CodeResponseTooLarge, matching [ErrResponseTooLarge]) to the waiting
//     request, naming the cap, so the call fails at once and the session goes
//     on; a request over the cap is refused with -32600.
//
// A server that only prints garbage still times out: nothing it prints
// reaches the SDK.
type lineFilter struct {
	src    *bufio.Reader
	max    int
	server string

	caps answerCaps // per-call answer caps, below max (see stdioConn)

	note    func(string) // appends to the stderr tail
	reply   func([]byte) // writes a message to the server's stdin
	skipped atomic.Int64
	pace    *pacer // bounds how fast lines are read (pace.go)

	line []byte // the line being read
	out  []byte // bytes ready for the SDK
	err  error  // sticky read error, returned once out is drained
}

func newLineFilter(r io.Reader, max int, server string, note func(string), reply func([]byte)) *lineFilter {
	if max <= 0 {
		max = DefaultMaxResponseBytes
	}
	return &lineFilter{src: bufio.NewReaderSize(r, 64<<10), max: max, server: server, note: note, reply: reply}
}

// Read implements io.Reader for the SDK: newline-delimited JSON-RPC messages.
func (f *lineFilter) Read(p []byte) (int, error) {
	for len(f.out) == 0 {
		if f.err != nil {
			return 0, f.err
		}
		f.err = f.next()
	}
	n := copy(p, f.out)
	f.out = f.out[n:]
	if len(f.out) == 0 {
		f.out = nil // it may hold a large line's buffer
	}
	return n, nil
}

// Skipped returns how many stdout lines were not passed to the SDK.
func (f *lineFilter) Skipped() int64 { return f.skipped.Load() }

// next reads one line and queues what the SDK should see of it.
func (f *lineFilter) next() error {
	_ = f.pace.wait(context.Background()) // no deadline: it ends within 1/maxMessageRate
	if cap(f.line) > bigLine {
		f.line = nil
	}
	f.line = f.line[:0]
	var over *idScanner // set once the line passed the cap
	var head []byte     // the start of a line over the cap, for the note
	var size int64
	limit := f.max // the cap the line is over, once over is set
	// early scans a line that passed the smallest answer cap of a call
	// in flight, for its id: the call's own cap may hold.
	var early *idScanner
	for {
		chunk, err := f.src.ReadSlice('\n')
		size += int64(len(chunk))
		switch {
		case over != nil:
			over.Write(chunk)
		case len(f.line)+len(chunk) > f.max+2: // the cap plus "\r\n"
			over = &idScanner{}
			over.Write(f.line)
			over.Write(chunk)
			head = append(append(head, f.line...), chunk...)
			head = head[:min(len(head), maxNoteLine)]
			f.line = f.line[:0]
		default:
			f.line = growLine(f.line, chunk) // linelean.go
			// (The cap is looked up as the line grows, past bigLine
			// only, so that small lines cost no lock: the call may have
			// been sent after the line's first bytes were awaited.)
			if early == nil && len(f.line) > bigLine {
				if small := f.caps.smallest(); small > 0 && len(f.line) > small+2 {
					early = &idScanner{}
					early.Write(f.line)
				}
			} else if early != nil {
				early.Write(chunk)
			}
			// An answer whose id came first is cut at its call's cap.
			if early != nil && early.hasID {
				if n := f.caps.of(early.id); n > 0 && len(f.line) > n+2 {
					over, limit = early, n
					head = append(head, f.line[:min(len(f.line), maxNoteLine)]...)
					f.line = f.line[:0]
				}
			}
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		if err != nil && size == 0 {
			return err
		}
		if over == nil && early != nil {
			// An answer whose id came last is dropped at its end, unread
			// by the SDK, if it is over its call's cap.
			early.finish()
			if n := f.caps.of(early.id); early.hasID && n > 0 && len(bytes.TrimSpace(f.line)) > n {
				over, limit = early, n
				head = append(head, f.line[:min(len(f.line), maxNoteLine)]...)
			}
		}
		if over != nil {
			over.finish()
			f.overCap(over, head, size, limit)
		} else {
			f.handleLine(f.line)
		}
		if cap(f.line) > bigLine {
			f.line = nil // f.out may still hold it, until the SDK read it
		}
		if err == io.EOF {
			return io.EOF
		}
		return err
	}
}

// handleLine classifies one complete line.
func (f *lineFilter) handleLine(line []byte) {
	t := bytes.TrimSpace(line)
	if len(t) == 0 {
		return // blank lines carry nothing; the SDK skips them too
	}
	switch t[0] {
	case '{':
		if !f.message(t, true) {
			f.skip(t, "not JSON-RPC")
		}
		return
	case '[':
		var batch []json.RawMessage
		if json.Unmarshal(t, &batch) != nil || len(batch) == 0 {
			f.skip(t, "not JSON-RPC")
			return
		}
		for _, m := range batch {
			if !f.message(bytes.TrimSpace(m), false) {
				f.skip(m, "not JSON-RPC, in a batch")
			}
		}
		return
	}
	f.skip(t, "not JSON-RPC")
}

// message passes one message to the SDK if the SDK decodes it to the same
// message the server sent, answers or notes it otherwise, and reports whether
// it was a JSON-RPC message at all. inLine says raw is the trimmed line in
// f.line, which is then handed to the SDK as it is rather than copied.
func (f *lineFilter) message(raw []byte, inLine bool) bool {
	var scan idScanner
	scan.Write(raw)
	scan.finish()
	probe, ok := probeOf(raw) // linelean.go
	err := errors.New("nested deeper than the SDK accepts")
	if ok {
		_, err = jsonrpc.DecodeMessage(probe)
	}
	if err == nil && !json.Valid(raw) {
		// The SDK's decoder stops after the first value, but its stream
		// reader fails on anything after it on the line: {"a":1}0.
		err = errors.New("data after the message")
	}
	if err != nil {
		if !scan.notObject && scan.hasMethod && scan.hasID {
			// A request we cannot read: JSON-RPC wants an Invalid Request
			// answer, with its id if the id itself is usable.
			f.refuse(&scan, "not a valid JSON-RPC request: "+err.Error())
			f.skip(raw, "invalid JSON-RPC request, answered -32600")
			return true
		}
		return false
	}
	if scan.hasID && scanKind(&scan) == idInvalid {
		why := "id " + noteText(scan.id) + " is not an integer this client can echo exactly"
		if scan.hasMethod {
			f.refuse(&scan, why)
			f.skip(raw, why+"; answered -32600")
		} else {
			f.skip(raw, why+"; an answer to no request of ours, dropped")
		}
		return true
	}
	if inLine && len(f.out) == 0 && cap(raw) > len(raw) && raw[:len(raw)+1][len(raw)] == '\n' {
		f.out = raw[: len(raw)+1 : len(raw)+1] // the line, its newline included
		return true
	}
	f.out = append(f.out, raw...)
	f.out = append(f.out, '\n')
	return true
}

// scanKind classifies the id the scanner found. A string too long to keep
// is still a string, which the SDK keeps exactly; a number too long to keep
// is no integer it can.
func scanKind(scan *idScanner) idKind {
	if scan.idLong {
		if len(scan.id) > 0 && scan.id[0] == '"' {
			return idString
		}
		return idInvalid
	}
	k, _ := classifyID(scan.id)
	return k
}

// refuse answers a server's request with -32600 Invalid Request. The id is
// echoed exactly as written when it is a string or a number (JSON-RPC 2.0
// section 5: null only when the id cannot be determined), and null otherwise.
func (f *lineFilter) refuse(scan *idScanner, why string) {
	id := []byte("null")
	if !scan.idLong && len(scan.id) > 0 && (scan.id[0] == '"' || scan.id[0] == '-' || scan.id[0] >= '0' && scan.id[0] <= '9') {
		id = scan.id
	}
	if f.reply != nil {
		f.reply(append(errorAnswer(id, jsonrpc.CodeInvalidRequest, "Invalid Request: "+why), '\n'))
	}
}

// overCap handles a line longer than limit (the response cap, or the
// answer cap of the call it answers), of which only scan's findings and
// head are known.
func (f *lineFilter) overCap(scan *idScanner, head []byte, size int64, limit int) {
	capText := fmt.Sprintf("the response cap of %s (max_response_bytes)", sizeText(f.max))
	if limit < f.max {
		capText = fmt.Sprintf("the answer cap of %s of this read", sizeText(limit))
	}
	why := fmt.Sprintf("message of %d bytes exceeds %s", size, capText)
	kind := scanKind(scan)
	usable := !scan.notObject && scan.hasID && !scan.idLong && (kind == idString || kind == idInteger)
	switch {
	case usable && scan.hasMethod:
		f.refuse(scan, why)
		f.skip(head, why+"; request answered -32600")
	case usable:
		// An answer: fail the waiting request now rather than at its
		// timeout, with an error answer in its place.
		msg := fmt.Sprintf("the answer (%d bytes) exceeds %s and was discarded", size, capText)
		f.out = append(append(f.out, errorAnswer(scan.id, CodeResponseTooLarge, msg)...), '\n')
		f.skip(head, why+"; answer discarded")
	default:
		f.skip(head, why+"; discarded")
	}
}

// skip counts a line not passed to the SDK and keeps the start of it, made
// safe for a terminal, in the stderr tail.
func (f *lineFilter) skip(line []byte, why string) {
	n := f.skipped.Add(1)
	if f.note == nil {
		return
	}
	tag := "[stdout, not JSON-RPC]"
	if why != "not JSON-RPC" {
		tag = "[stdout, " + why + "]"
	}
	f.note(fmt.Sprintf("%s (#%d) %s", tag, n, noteText(line)))
}

// noteText renders the start of a skipped line as one line of at most
// maxNoteLine runes that is safe to show in a terminal.
func noteText(b []byte) string {
	cut := len(b) > 4*maxNoteLine
	if cut {
		b = b[:4*maxNoteLine]
	}
	s := termsafe.LineMax(string(b), maxNoteLine)
	if cut && !strings.HasSuffix(s, termsafe.Ellipsis) {
		s += termsafe.Ellipsis
	}
	return s
}
