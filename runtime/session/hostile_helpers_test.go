package session_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// rpcMsg is what a hostile handler learns about the request it may answer.
type rpcMsg struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params struct {
		Name string `json:"name"`
	} `json:"params"`
}

// hostile is a go-sdk server behind a handler that lets a test answer some
// POSTs itself, as a misbehaving server would. Every tool in tools is
// listed; the SDK answers calls the test does not take.
type hostile struct {
	*httptest.Server
	posts atomic.Int32
}

// newHostile starts the server. take is called for every POSTed JSON-RPC
// message; it returns true if it answered. jsonResponse makes the SDK
// answer with JSON bodies rather than event streams.
func newHostile(t *testing.T, jsonResponse bool, tools []string, take func(w http.ResponseWriter, r *http.Request, msg rpcMsg) bool) *hostile {
	t.Helper()
	srv := mcp.NewServer(&mcp.Implementation{Name: "hostile", Version: "1"}, nil)
	for _, name := range append([]string{"echo"}, tools...) {
		mcp.AddTool(srv, &mcp.Tool{Name: name}, func(_ context.Context, _ *mcp.CallToolRequest, in echoArgs) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: in.Text}}}, nil, nil
		})
	}
	sdk := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, &mcp.StreamableHTTPOptions{JSONResponse: jsonResponse})
	h := &hostile{}
	h.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost {
			h.posts.Add(1)
			body, _ := io.ReadAll(r.Body)
			var msg rpcMsg
			if json.Unmarshal(body, &msg) == nil && take != nil && take(w, r, msg) {
				return
			}
			r.Body = io.NopCloser(bytes.NewReader(body))
		}
		sdk.ServeHTTP(w, r)
	}))
	t.Cleanup(h.Close)
	return h
}

// writeJSONAnswer writes a tools/call result whose one text block holds n
// bytes of 'x', streamed, under the given id.
func writeJSONAnswer(w io.Writer, id json.RawMessage, n int) {
	io.WriteString(w, `{"jsonrpc":"2.0","id":`+string(id)+`,"result":{"content":[{"type":"text","text":"`)
	chunk := bytes.Repeat([]byte("x"), 64<<10)
	for n > 0 {
		k := min(n, len(chunk))
		if _, err := w.Write(chunk[:k]); err != nil {
			return
		}
		n -= k
	}
	io.WriteString(w, `"}]}}`)
}
