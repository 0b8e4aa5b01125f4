package session

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"net/url"
	"sync"
	"time"
)

// sseGuard sits between an event stream and the SDK. It holds each event
// until it is whole, so that nothing of an event over the cap reaches the
// SDK (whose reader would otherwise buffer it all, or fail the connection),
// and checks what the server claims before the SDK acts on it:
//
//   - an event over the cap is dropped; the request it answers gets a
//     made-up error instead, at once, and the session lives on;
//   - on a POST's stream, an answer with another id is replaced by an error
//     for the request the POST carried;
//   - a request from the server whose id is not a string or an integer
//     (the SDK would read 1.5 as 1) is refused with a JSON-RPC error and
//     never reaches the SDK;
//   - a legacy stream's endpoint event must name the server's own origin.
type sseGuard struct {
	g      *guardRoundTripper
	max    int // an event's cap (guardRoundTripper.capFor)
	src    io.ReadCloser
	br     *bufio.Reader
	req    *http.Request
	callID []byte // the request a POST's stream answers; nil for a GET
	x      *exchange
	lean   *listCapture // a tools/list call's, to read the page into
	legacy bool         // the legacy transport's GET stream

	ev   event
	out  [][]byte // what the SDK reads next
	done bool     // the call was answered by the guard: end of stream
	err  error    // sticky
}

// event is what the guard learns about the event it is reading.
type event struct {
	size     int
	chunks   [][]byte // the raw event, unless it went over the cap
	name     []byte   // the event field, bounded
	data     []byte   // the start of the data, for an endpoint event
	dataSeen bool
	// cursorKnown: the start of the data told what it can of a tools/list
	// answer's nextCursor (peekCursor)
	cursorKnown bool
	ids         idScanner
}

// maxEndpointBytes bounds the endpoint event's data that is checked.
const maxEndpointBytes = 8 << 10

// callStreamReaders are the read buffers of calls' event streams, which are
// read and closed on one goroutine (the SDK's, or postCall's) and so can be
// handed back at Close. A GET stream, closed from anywhere, keeps its own.
var callStreamReaders = sync.Pool{New: func() any { return bufio.NewReaderSize(nil, 4<<10) }}

// errReadAfterClose is what a closed event stream answers.
var errReadAfterClose = errors.New("read on a closed event stream")

func (g *guardRoundTripper) newSSEGuard(req *http.Request, body io.ReadCloser, id []byte, x *exchange, max int) *sseGuard {
	var br *bufio.Reader
	if id != nil {
		br = callStreamReaders.Get().(*bufio.Reader)
		br.Reset(body)
	} else {
		br = bufio.NewReaderSize(body, 4<<10)
	}
	return &sseGuard{
		g:      g,
		max:    max,
		src:    body,
		br:     br,
		req:    req,
		callID: id,
		x:      x,
		lean:   listCaptureFrom(req.Context()),
		legacy: g.legacySSE && req.Method == http.MethodGet,
	}
}

func (s *sseGuard) Read(p []byte) (int, error) {
	if s.callID != nil && s.br == nil { // only a call's stream lets go of br
		return 0, errReadAfterClose
	}
	for len(s.out) == 0 {
		switch {
		case s.done:
			return 0, io.EOF
		case s.err != nil:
			return 0, s.err
		}
		s.next()
	}
	n := copy(p, s.out[0])
	s.out[0] = s.out[0][n:]
	if len(s.out[0]) == 0 {
		s.out[0] = nil
		s.out = s.out[1:]
	}
	return n, nil
}

func (s *sseGuard) Close() error {
	if s.callID != nil && s.br != nil {
		s.br.Reset(nil)
		callStreamReaders.Put(s.br)
		s.br = nil
	}
	return s.src.Close()
}

// next reads one event and decides what the SDK gets of it.
func (s *sseGuard) next() {
	if err := s.g.pace.wait(s.req.Context()); err != nil {
		s.err, s.out = err, nil
		return
	}
	ev := &s.ev
	ev.size, ev.chunks, ev.name, ev.data, ev.dataSeen, ev.cursorKnown = 0, nil, ev.name[:0], ev.data[:0], false, false
	ev.ids = idScanner{key: ev.ids.key[:0], val: ev.ids.val[:0], id: ev.ids.id[:0]}
	keep := true
	for {
		blank, err := s.line(ev, keep)
		if keep && ev.size > s.max {
			keep, ev.chunks = false, nil
			if s.callID != nil {
				s.answer(s.callID, CodeResponseTooLarge, s.g.tooLargeFor("an SSE event", s.max))
				return
			}
			// Read on to the event's end to learn what it was.
		}
		if err != nil && err != io.EOF {
			s.err, s.out = err, nil
			return
		}
		if blank || err == io.EOF {
			if err == io.EOF {
				s.err = io.EOF
			}
			s.decide(ev, keep)
			return
		}
	}
}

// line reads one line into ev and reports whether it was blank (the end of
// an event).
func (s *sseGuard) line(ev *event, keep bool) (blank bool, err error) {
	first, content, field := true, false, ""
	for {
		frag, err := s.br.ReadSlice('\n')
		if len(frag) > 0 {
			ev.size += len(frag)
			if keep && ev.size <= s.max {
				if ev.chunks == nil && s.lean != nil {
					if n := s.lean.bufferFor(s.max); n > 0 {
						ev.chunks = [][]byte{make([]byte, 0, n)}
					}
				}
				ev.store(frag)
			}
			value := frag
			if first {
				first = false
				if name, rest, found := bytes.Cut(frag, []byte{':'}); found {
					field, value = string(name), rest
				}
			}
			content = content || len(bytes.Trim(frag, "\r\n")) > 0
			switch field {
			case "data":
				ev.feedData(value)
				ev.peekCursor(s.lean)
			case "event":
				if len(ev.name) < 64 {
					ev.name = append(ev.name, value[:min(len(value), 64-len(ev.name))]...)
				}
			}
		}
		if s.callID != nil && ev.size > s.max {
			// A call's stream ends with the answer next() makes up: the
			// rest of the event is not read.
			return false, nil
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		if err == nil {
			return !content, nil
		}
		return false, err
	}
}

// feedData passes data to the id scanner and keeps its start.
func (ev *event) feedData(value []byte) {
	ev.dataSeen = true
	ev.ids.Write(value)
	if room := maxEndpointBytes + 1 - len(ev.data); room > 0 {
		ev.data = append(ev.data, value[:min(len(value), room)]...)
	}
}

// store keeps a copy of frag in chunks of up to 64 KiB, or in the room
// of a first chunk made larger to hold the whole event. A large event's
// chunks are made whole at once rather than grown.
func (ev *event) store(frag []byte) {
	const chunk = 64 << 10
	if n := len(ev.chunks); n > 0 {
		last := ev.chunks[n-1]
		if len(last)+len(frag) <= cap(last) || len(last)+len(frag) <= chunk {
			ev.chunks[n-1] = append(last, frag...)
			return
		}
	}
	size := max(len(frag), 512)
	if len(ev.chunks) > 0 {
		size = max(len(frag), chunk)
	}
	ev.chunks = append(ev.chunks, append(make([]byte, 0, size), frag...))
}

// decide hands the event on, replaces or drops it. kept is false for an
// event over the cap.
func (s *sseGuard) decide(ev *event, kept bool) {
	name := string(bytes.TrimSpace(ev.name))
	if s.legacy && name == "endpoint" && kept {
		if err := s.checkEndpoint(ev); err != nil {
			s.err, s.out = err, nil
			s.src.Close()
			return
		}
		s.out = ev.chunks
		return
	}
	// The streamable transport reads only "message" events; the legacy one
	// reads the data of every event.
	if !ev.dataSeen || !s.legacy && name != "" && name != "message" {
		s.out = ev.chunks
		return
	}
	ids := &ev.ids
	ids.finish()
	kind, _ := classifyID(ids.id)
	valid := !ids.idLong && (kind == idString || kind == idInteger)
	isRequest := ids.hasMethod && ids.hasID && kind != idNull
	isAnswer := !ids.hasMethod && ids.hasID
	switch {
	case !kept && isAnswer && valid:
		s.answer(ids.id, CodeResponseTooLarge, s.g.tooLargeFor("an SSE event", s.max))
	case !kept && isRequest && valid:
		s.g.refuse(s.req, ids.id, CodeResponseTooLarge, "request exceeds the client's response cap (max_response_bytes)")
	case !kept:
		s.g.log.Warn("dropped an SSE event over the response cap", "server", s.g.id, "cap", sizeText(s.max))
	case isRequest && !valid:
		s.g.log.Warn("refused a request whose id is not a string or an integer", "server", s.g.id)
		s.g.refuse(s.req, ids.id, int64(jsonrpcInvalidRequest), "Invalid Request: an MCP request id must be a string or an integer")
	case isAnswer && s.callID != nil && !(valid && sameID(ids.id, s.callID)):
		s.answer(s.callID, CodeWrongAnswer, wrongAnswer(s.callID, ids))
	case isAnswer && !valid:
		s.g.log.Warn("dropped an answer whose id is not a string or an integer", "server", s.g.id)
	default:
		if isAnswer && s.callID != nil {
			if s.lean != nil {
				s.lean.saw(ev.size)
				ev.chunks = [][]byte{leanEvent(wholePage(ev.chunks), s.lean)}
			}
			s.x.answeredNow() // before the SDK can see it
		}
		s.out = ev.chunks
	}
}

// jsonrpcInvalidRequest is JSON-RPC's "Invalid Request" code.
const jsonrpcInvalidRequest = -32600

// answer puts a made-up error for request id in place of the event. On a
// POST's stream that ends the stream: its one request is answered.
func (s *sseGuard) answer(id []byte, code int64, message string) {
	msg := errorAnswer(id, code, message)
	ev := make([]byte, 0, len(msg)+8)
	ev = append(append(append(ev, "data: "...), msg...), "\n\n"...)
	s.out = [][]byte{ev}
	if s.callID != nil {
		s.done = true
		s.src.Close()
	}
}

// checkEndpoint refuses an endpoint event that names another origin, before
// the SDK sends anything there.
func (s *sseGuard) checkEndpoint(ev *event) error {
	raw := string(bytes.TrimSpace(ev.data))
	if len(ev.data) > maxEndpointBytes {
		raw = ""
	}
	u, err := s.req.URL.Parse(raw)
	if err != nil || raw == "" || !sameOrigin(u, s.g.origin) {
		if u == nil || raw == "" {
			u = &url.URL{Scheme: "?", Host: "unreadable"}
		}
		coErr := &crossOriginError{id: s.g.id, what: "the SSE endpoint event", to: u, own: s.g.origin}
		s.g.refused.Store(coErr)
		return coErr
	}
	s.g.endpoint.Store(u)
	return nil
}

// refuse answers a server's request with a JSON-RPC error, on its own POST,
// without the SDK: to the session's URL for the streamable transport, to the
// endpoint for the legacy one. At most a few run at once; a server that
// floods gets the rest dropped.
func (g *guardRoundTripper) refuse(stream *http.Request, id []byte, code int64, message string) {
	target := stream.URL
	hdr := http.Header{"Content-Type": {"application/json"}}
	if g.legacySSE {
		if target = g.endpoint.Load(); target == nil {
			return
		}
	} else {
		for _, k := range []string{"Mcp-Session-Id", "Mcp-Protocol-Version", "Authorization"} {
			if v := stream.Header.Get(k); v != "" {
				hdr.Set(k, v)
			}
		}
	}
	select {
	case g.replies <- struct{}{}:
	default:
		g.log.Warn("dropped an answer to the server: too many pending", "server", g.id)
		return
	}
	body := errorAnswer(id, code, message)
	go func() {
		defer func() { <-g.replies }()
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, target.String(), bytes.NewReader(body))
		if err != nil {
			return
		}
		req.Header = hdr
		resp, err := g.RoundTrip(req)
		if err != nil {
			g.log.Debug("answering a refused request", "server", g.id, "err", err)
			return
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}()
}
