package openai_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/mcp-host/mcp-host/core"
	"github.com/mcp-host/mcp-host/core/openai"
)

const (
	testKey = "sk-test-0123456789-secret"
	keyEnv  = "MCP_HOST_TEST_OPENAI_KEY"
)

// server is a local chat completions endpoint. Each request is answered by
// the next handler; requests are recorded.
type server struct {
	t        *testing.T
	srv      *httptest.Server
	mu       sync.Mutex
	handlers []http.HandlerFunc
	bodies   []map[string]any
	headers  []http.Header
}

func newServer(t *testing.T, handlers ...http.HandlerFunc) *server {
	s := &server{t: t, handlers: handlers}
	s.srv = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(s.srv.Close)
	return s
}

func (s *server) serve(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || r.URL.Path != "/v1/chat/completions" {
		s.t.Errorf("request %s %s, want POST /v1/chat/completions", r.Method, r.URL.Path)
		http.Error(w, "not found", http.StatusNotFound)
		return
	}
	raw, _ := io.ReadAll(r.Body)
	var body map[string]any
	if err := json.Unmarshal(raw, &body); err != nil {
		s.t.Errorf("request body is not JSON: %v: %s", err, raw)
	}
	s.mu.Lock()
	s.bodies = append(s.bodies, body)
	s.headers = append(s.headers, r.Header.Clone())
	n := len(s.bodies)
	s.mu.Unlock()
	if n > len(s.handlers) {
		s.t.Errorf("unexpected request %d", n)
		http.Error(w, "no more answers", http.StatusInternalServerError)
		return
	}
	s.handlers[n-1](w, r)
}

func (s *server) body(i int) map[string]any {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.bodies[i]
}

func (s *server) header(i int) http.Header {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.headers[i]
}

func (s *server) provider(t *testing.T, mod func(*openai.Options)) *openai.Provider {
	t.Setenv(keyEnv, testKey)
	opts := openai.Options{BaseURL: s.srv.URL + "/v1/", Model: "test-model", APIKeyEnv: keyEnv}
	if mod != nil {
		mod(&opts)
	}
	p, err := openai.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// sse answers with raw stream fragments, flushing after each one, so that
// the client sees them in separate reads (fragments may cut lines and JSON
// anywhere).
func sse(fragments ...string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(http.StatusOK)
		for _, f := range fragments {
			io.WriteString(w, f)
			w.(http.Flusher).Flush()
		}
	}
}

// chunk renders one streamed chunk the way OpenAI does.
func chunk(delta string, finish string) string {
	fin := "null"
	if finish != "" {
		fin = `"` + finish + `"`
	}
	return fmt.Sprintf(`data: {"id":"chatcmpl-1","object":"chat.completion.chunk","created":1700000000,"model":"test-model","system_fingerprint":"fp_1","choices":[{"index":0,"delta":%s,"logprobs":null,"finish_reason":%s}]}`+"\n\n", delta, fin)
}

func jsonAnswer(status int, body string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		io.WriteString(w, body)
	}
}

func collect(t *testing.T, p *openai.Provider, req core.Request) (*core.Response, []string, error) {
	t.Helper()
	var deltas []string
	resp, err := p.Stream(context.Background(), req, func(d core.Delta) { deltas = append(deltas, d.Text) })
	return resp, deltas, err
}

func userReq(text string) core.Request {
	return core.Request{Messages: []core.Message{{Role: core.RoleSystem, Content: "sys"}, {Role: core.RoleUser, Content: text}}}
}
