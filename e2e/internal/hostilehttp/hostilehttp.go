// Package hostilehttp runs an MCP server over Streamable HTTP that
// misbehaves on purpose, one misbehaviour per tool, for the end-to-end tests
// of the host's robustness: answers far larger than any cap, a gzip bomb,
// an SSE event larger than the cap. Well-behaved requests (the handshake,
// tools/list, the echo tool) are answered by a real go-sdk server. The
// hostile answers are streamed, so the test process does not hold them.
package hostilehttp

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Tools the server lists. Each but ToolEcho misbehaves when called.
const (
	// ToolEcho answers with its "text" argument.
	ToolEcho = "echo"
	// ToolHugeResult answers with a JSON body of HugeResultBytes.
	ToolHugeResult = "huge_result"
	// ToolGzipBomb answers with a gzip body of about 300 KB that inflates
	// to GzipBombBytes of JSON.
	ToolGzipBomb = "gzip_bomb"
	// ToolHugeEvent answers with an event stream whose one event carries
	// HugeEventBytes.
	ToolHugeEvent = "huge_event"
)

// Sizes of the hostile answers.
const (
	HugeResultBytes = 200 << 20
	GzipBombBytes   = 300 << 20
	HugeEventBytes  = 40 << 20
)

// Server is a running hostile server.
type Server struct {
	// URL is the MCP endpoint.
	URL string
	// Sent counts the bytes of hostile answers written (before gzip).
	Sent atomic.Int64
}

// Start starts a server that is closed when the test ends.
func Start(t testing.TB) *Server {
	t.Helper()
	srv := mcp.NewServer(&mcp.Implementation{Name: "hostile", Version: "1"}, nil)
	type args struct {
		Text string `json:"text,omitempty"`
	}
	for _, name := range []string{ToolEcho, ToolHugeResult, ToolGzipBomb, ToolHugeEvent} {
		mcp.AddTool(srv, &mcp.Tool{Name: name}, func(_ context.Context, _ *mcp.CallToolRequest, in args) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: in.Text}}}, nil, nil
		})
	}
	sdk := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, &mcp.StreamableHTTPOptions{JSONResponse: true})
	s := &Server{}
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost {
			body, _ := io.ReadAll(io.LimitReader(r.Body, 1<<20))
			var msg struct {
				ID     json.RawMessage `json:"id"`
				Method string          `json:"method"`
				Params struct {
					Name string `json:"name"`
				} `json:"params"`
			}
			if json.Unmarshal(body, &msg) == nil && msg.Method == "tools/call" && s.misbehave(w, msg.ID, msg.Params.Name) {
				return
			}
			r.Body = io.NopCloser(bytes.NewReader(body))
		}
		sdk.ServeHTTP(w, r)
	}))
	t.Cleanup(ts.Close)
	s.URL = ts.URL + "/mcp"
	return s
}

func (s *Server) misbehave(w http.ResponseWriter, id json.RawMessage, tool string) bool {
	switch tool {
	case ToolHugeResult:
		w.Header().Set("Content-Type", "application/json")
		s.writeAnswer(w, id, HugeResultBytes)
	case ToolGzipBomb:
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Content-Encoding", "gzip")
		// Three gzip members (Go's reader takes them as one stream): the
		// head with the request's id, the inflating middle, made once, and
		// the tail.
		head, tail := gzipped(answerHead(id)), gzipped([]byte(answerTail))
		s.Sent.Add(GzipBombBytes)
		for _, b := range [][]byte{head, bombMiddle(), tail} {
			if _, err := w.Write(b); err != nil {
				return true
			}
		}
	case ToolHugeEvent:
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, "event: message\ndata: ")
		s.writeAnswer(w, id, HugeEventBytes)
		io.WriteString(w, "\n\n")
	default:
		return false
	}
	return true
}

const answerTail = `"}]}}`

func answerHead(id json.RawMessage) []byte {
	return []byte(`{"jsonrpc":"2.0","id":` + string(id) + `,"result":{"content":[{"type":"text","text":"`)
}

// writeAnswer streams a tools/call result whose text is n bytes of 'x'.
func (s *Server) writeAnswer(w io.Writer, id json.RawMessage, n int) {
	if _, err := w.Write(answerHead(id)); err != nil {
		return
	}
	chunk := bytes.Repeat([]byte("x"), 256<<10)
	for n > 0 {
		k := min(n, len(chunk))
		if _, err := w.Write(chunk[:k]); err != nil {
			return
		}
		s.Sent.Add(int64(k))
		n -= k
	}
	io.WriteString(w, answerTail)
}

func gzipped(b []byte) []byte {
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	zw.Write(b)
	zw.Close()
	return buf.Bytes()
}

// bombMiddle is GzipBombBytes of 'x' as one gzip member of 1 MiB repeated
// (a gzip reader takes concatenated members as one stream): as hostile as
// one long member (about 1,000:1), made in microseconds where compressing
// 300 MiB took this race-built test binary about 50 seconds.
var bombMiddle = sync.OnceValue(func() []byte {
	member := gzipped(bytes.Repeat([]byte("x"), 1<<20))
	return bytes.Repeat(member, GzipBombBytes>>20)
})

// CrossOrigin is a legacy (2024-11-05) SSE server whose endpoint event
// names another origin: another port of the same host, which counts what
// reaches it.
type CrossOrigin struct {
	// URL is the event stream's URL.
	URL string
	// Elsewhere counts requests that reached the other origin.
	Elsewhere atomic.Int32
}

// StartCrossOrigin starts the server and the other origin, both closed
// when the test ends.
func StartCrossOrigin(t testing.TB) *CrossOrigin {
	t.Helper()
	c := &CrossOrigin{}
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c.Elsewhere.Add(1)
		w.WriteHeader(http.StatusAccepted)
	}))
	t.Cleanup(other.Close)
	legacy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, "event: endpoint\ndata: "+other.URL+"/message?sessionid=1\n\n")
		w.(http.Flusher).Flush()
		<-r.Context().Done()
	}))
	t.Cleanup(func() {
		legacy.CloseClientConnections()
		legacy.Close()
	})
	c.URL = legacy.URL + "/sse"
	return c
}
