package session

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"

	"github.com/mcp-host/mcp-host/runtime/hostfetch"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// DefaultMaxResponseBytes is the default of [Options.MaxResponseBytes].
const DefaultMaxResponseBytes = 32 << 20

// errorBodyBytes bounds the body of an HTTP error answer: it is read only
// for a JSON-RPC error or an excerpt.
const errorBodyBytes = 64 << 10

// JSON-RPC error codes of answers the session makes up in place of the
// server's, so that the request fails at once and the connection lives on.
// The server never sent them; errors.Is with [ErrResponseTooLarge] and
// [ErrWrongAnswer] tells them apart from the server's own errors.
const (
	// CodeResponseTooLarge: the answer exceeded Options.MaxResponseBytes.
	CodeResponseTooLarge = -32050
	// CodeWrongAnswer: the server answered with another request's id.
	CodeWrongAnswer = -32051
)

var (
	// ErrResponseTooLarge is matched by the error of a request whose answer
	// (a JSON body or an SSE event) exceeded Options.MaxResponseBytes.
	ErrResponseTooLarge = errors.New("response exceeds the response cap")
	// ErrWrongAnswer is matched by the error of a request the server
	// answered with another id (or none).
	ErrWrongAnswer = errors.New("server answered with another request id")
)

// madeUp marks a JSON-RPC error the session put in place of an answer.
type madeUp struct {
	sentinel error
	rpc      *jsonrpc.Error
}

func (e *madeUp) Error() string   { return e.rpc.Message }
func (e *madeUp) Unwrap() []error { return []error{e.sentinel, e.rpc} }

// markMadeUp makes the session's own stand-in answers match their sentinel.
func markMadeUp(err error) error {
	var rpc *jsonrpc.Error
	if !errors.As(err, &rpc) {
		return err
	}
	switch rpc.Code {
	case CodeResponseTooLarge:
		return &madeUp{errors.Join(ErrResponseTooLarge, hostfetch.ErrTooLarge), rpc}
	case CodeWrongAnswer:
		return &madeUp{ErrWrongAnswer, rpc}
	}
	return err
}

// sdkEventCap is the SDK's own SSE event cap: set, because go-sdk v1.8.0's
// Streamable HTTP client has none when it is zero, and above the session's
// cap, which the guard enforces first with a clearer outcome.
func sdkEventCap(o *Options) int { return o.maxResponseBytes() + 64<<10 }

// sizeText renders a byte count for an error: "32 MiB", "1500 bytes".
func sizeText(n int) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}

// tooLargeFor is the message of a stand-in answer for an oversized one,
// read with cap max (see capFor).
func (g *guardRoundTripper) tooLargeFor(what string, max int) string {
	if max < g.max {
		return fmt.Sprintf("%s exceeds the answer cap of %s of this read and was discarded, its rest unread", what, sizeText(max))
	}
	return fmt.Sprintf("%s exceeds the response cap of %s (max_response_bytes) and was discarded", what, sizeText(g.max))
}

// capFor returns the cap of the answer to req: the session's response cap,
// or the smaller answer cap the request's context carries (a bounded read
// of the host's own, see hostfetch.WithAnswerCap).
func (g *guardRoundTripper) capFor(req *http.Request) int {
	if c := hostfetch.AnswerCap(req.Context()); c > 0 && c < g.max {
		return c
	}
	return g.max
}

// wrapBody bounds what the session will read of resp, after Go's transport
// has decompressed it: a JSON answer to a request is read whole (up to the
// cap) and checked to answer that request; an event stream is read event by
// event, each up to the cap; anything else is cut at the cap with an error,
// and an error status's body at errorBodyBytes. id is the id of the call
// req carries (see callID), nil if none; x is its exchange, if any.
func (g *guardRoundTripper) wrapBody(req *http.Request, resp *http.Response, id []byte, x *exchange) {
	if resp.Body == nil || resp.Body == http.NoBody {
		return
	}
	if resp.StatusCode/100 != 2 {
		resp.Body = &limitedBody{src: resp.Body, left: errorBodyBytes}
		return
	}
	max := g.capFor(req)
	ct, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	switch ct {
	case "text/event-stream":
		resp.Body = g.newSSEGuard(req, resp.Body, id, x, max)
		return
	case "application/json":
		if id != nil {
			ja := &jsonAnswer{g: g, max: max, src: resp.Body, callID: id, length: resp.ContentLength, lean: listCaptureFrom(req.Context())}
			if resp.ContentLength > int64(max) {
				ja.replace(CodeResponseTooLarge, g.tooLargeFor("the answer", max))
			}
			resp.Body = ja
			return
		}
	}
	resp.Body = &limitedBody{src: resp.Body, left: max, err: fmt.Errorf("server %q: %s", g.id, g.tooLargeFor("the answer", max))}
}

// callID returns the raw id of the JSON-RPC request req carries, or nil if
// it carries none (a GET, a notification, a response).
func callID(req *http.Request) []byte {
	if req.Method != http.MethodPost || req.GetBody == nil {
		return nil
	}
	body, err := req.GetBody()
	if err != nil {
		return nil
	}
	defer body.Close()
	var sc idScanner
	if _, err := io.Copy(&sc, body); err != nil {
		return nil
	}
	sc.finish()
	if !sc.hasMethod || !sc.hasID || sc.idLong {
		return nil
	}
	return sc.id
}

// limitedBody passes at most left bytes; past them it reports err, or
// io.EOF if err is nil.
type limitedBody struct {
	src  io.ReadCloser
	left int
	err  error
}

func (l *limitedBody) Read(p []byte) (int, error) {
	if l.left <= 0 {
		if l.err == nil {
			return 0, io.EOF
		}
		// One byte more tells a body of exactly the cap from a larger one.
		var one [1]byte
		if n, _ := l.src.Read(one[:]); n == 0 {
			return 0, io.EOF
		}
		return 0, l.err
	}
	if len(p) > l.left {
		p = p[:l.left]
	}
	n, err := l.src.Read(p)
	l.left -= n
	return n, err
}

func (l *limitedBody) Close() error { return l.src.Close() }

// jsonAnswer holds a JSON answer until it is whole and known to answer the
// request, in chunks handed on and dropped as the SDK reads them. An answer
// over the cap or with another id is replaced by a JSON-RPC error for the
// request, so the call fails at once and the session stays usable.
type jsonAnswer struct {
	g      *guardRoundTripper
	max    int // the answer's cap (guardRoundTripper.capFor)
	src    io.ReadCloser
	callID []byte
	length int64        // Content-Length, -1 if unknown
	lean   *listCapture // a tools/list call's, to read the page into

	filled bool
	chunks [][]byte
	err    error
}

func (j *jsonAnswer) Read(p []byte) (int, error) {
	if !j.filled {
		j.fill()
	}
	for len(j.chunks) > 0 && len(j.chunks[0]) == 0 {
		j.chunks[0] = nil
		j.chunks = j.chunks[1:]
	}
	if len(j.chunks) == 0 {
		if j.err != nil {
			return 0, j.err
		}
		return 0, io.EOF
	}
	n := copy(p, j.chunks[0])
	j.chunks[0] = j.chunks[0][n:]
	return n, nil
}

func (j *jsonAnswer) Close() error { return j.src.Close() }

// replace drops what was read and closes the body: the answer is a made-up
// error now.
func (j *jsonAnswer) replace(code int64, message string) {
	j.filled = true
	j.src.Close()
	j.chunks = [][]byte{errorAnswer(j.callID, code, message)}
}

func (j *jsonAnswer) fill() {
	j.filled = true
	var sc idScanner
	total, size := 0, 2<<10
	if j.length >= 0 && j.length < int64(j.max) {
		size = int(j.length) + 1 // one more to see the end at once
	} else if n := j.lean.bufferFor(j.max); n > 0 {
		size = n
	}
	for {
		buf := make([]byte, size)
		n, err := io.ReadFull(j.src, buf)
		if n > 0 {
			total += n
			if total > j.max {
				j.replace(CodeResponseTooLarge, j.g.tooLargeFor("the answer", j.max))
				return
			}
			sc.Write(buf[:n])
			j.chunks = append(j.chunks, buf[:n])
		}
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			break
		}
		if err != nil {
			j.chunks, j.err = nil, err
			return
		}
		size = min(size*2, 256<<10)
	}
	sc.finish()
	if sc.hasID && !sc.idLong && sameID(sc.id, j.callID) {
		if j.lean != nil && len(j.chunks) > 0 {
			j.lean.saw(total)
			j.chunks = leanJoined(j.chunks, j.lean)
		}
		return
	}
	j.replace(CodeWrongAnswer, wrongAnswer(j.callID, &sc))
}

// wrongAnswer describes an answer that does not answer request id.
func wrongAnswer(id []byte, sc *idScanner) string {
	switch kind, _ := classifyID(sc.id); {
	case sc.notObject:
		return fmt.Sprintf("the answer to request %s is not a single JSON-RPC message", id)
	case !sc.hasID:
		return fmt.Sprintf("the answer to request %s carries no id", id)
	case kind == idNull:
		return fmt.Sprintf("the server answered request %s with id null (it could not read the request)", id)
	default:
		theirs := string(sc.id)
		if len(theirs) > 40 || sc.idLong {
			theirs = fmt.Sprintf("%q…", theirs[:min(len(theirs), 40)])
		} else if !json.Valid(sc.id) {
			theirs = fmt.Sprintf("%q", theirs)
		}
		return fmt.Sprintf("the server answered request %s with id %s", id, theirs)
	}
}
