package auth

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"
)

// challengeRS is an MCP server that answers every request to /mcp with 401
// and a challenge naming its metadata at a path no well-known rule finds,
// so only a client that saw the challenge can discover it. gate, if set,
// holds every metadata answer until it is closed.
type challengeRS struct {
	srv *httptest.Server

	mu       sync.Mutex
	gate     chan struct{}
	prmHits  int
	probes   []string // method of each request to /mcp
	prmAsked chan struct{}
}

func newChallengeRS(t *testing.T, as *testAS) *challengeRS {
	t.Helper()
	rs := &challengeRS{prmAsked: make(chan struct{}, 16)}
	rs.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/mcp":
			rs.mu.Lock()
			rs.probes = append(rs.probes, r.Method)
			rs.mu.Unlock()
			if r.Header.Get("Authorization") != "" {
				t.Errorf("the probe carried credentials")
			}
			w.Header().Set("WWW-Authenticate", `Bearer resource_metadata="`+rs.srv.URL+`/meta/resource-doc", scope="mcp:read"`)
			w.WriteHeader(http.StatusUnauthorized)
		case "/meta/resource-doc":
			rs.mu.Lock()
			rs.prmHits++
			gate := rs.gate
			rs.mu.Unlock()
			rs.prmAsked <- struct{}{}
			if gate != nil {
				<-gate
			}
			w.Header().Set("Content-Type", "application/json")
			_ = json.NewEncoder(w).Encode(map[string]any{
				"resource":              rs.srv.URL + "/mcp",
				"authorization_servers": []string{as.URL()},
			})
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(rs.srv.Close)
	return rs
}

func (rs *challengeRS) URL() string { return rs.srv.URL + "/mcp" }

// A login asked for before any request met the server's 401 (a UI calling
// mcp.login right after start) discovers the server by asking it: the
// metadata named in its challenge is found, not a 2025-03-26 fallback at
// the MCP server's origin.
func TestLoginBeforeAnyChallengeProbesTheServer(t *testing.T) {
	as := newTestAS(t)
	rs := newChallengeRS(t, as)
	p := &testPrompter{}
	h, err := New(Options{ServerID: "srv", ServerURL: rs.URL()})
	if err != nil {
		t.Fatal(err)
	}
	if err := h.LoginWith(context.Background(), p); err != nil {
		t.Fatalf("login on a fresh handler: %v", err)
	}
	if as.registrations != 1 || p.logins.Load() != 1 || currentToken(t, h) == "" {
		t.Errorf("registrations %d, browser logins %d; want 1 and 1 and a token", as.registrations, p.logins.Load())
	}
	if got := as.authorizes[0].Get("scope"); got != "mcp:read" {
		t.Errorf("scope %q, want the challenge's mcp:read", got)
	}
	rs.mu.Lock()
	defer rs.mu.Unlock()
	if len(rs.probes) != 1 || rs.probes[0] != http.MethodPost {
		t.Errorf("requests to the MCP endpoint %v, want one POST", rs.probes)
	}
}

// A login asked for while the first connection's authorization (which has
// no prompter) is still discovering waits for it and then runs, instead
// of returning that connection's "login required: not logged in".
func TestLoginDuringAConnectionsAuthorizationRuns(t *testing.T) {
	as := newTestAS(t)
	rs := newChallengeRS(t, as)
	rs.gate = make(chan struct{})
	h, err := New(Options{ServerID: "srv", ServerURL: rs.URL()}) // no prompter: a connection
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	connErr := make(chan error, 1)
	go func() {
		req, _ := http.NewRequest(http.MethodPost, rs.URL(), nil)
		resp := &http.Response{StatusCode: http.StatusUnauthorized, Header: http.Header{"Www-Authenticate": {`Bearer resource_metadata="` + rs.srv.URL + `/meta/resource-doc"`}}, Body: http.NoBody}
		connErr <- h.Authorize(ctx, req, resp)
	}()
	<-rs.prmAsked // the connection is discovering
	loginErr := make(chan error, 1)
	p := &testPrompter{}
	go func() { loginErr <- h.LoginWith(ctx, p) }()
	time.Sleep(100 * time.Millisecond) // the login waits for the connection's flow
	close(rs.gate)
	if err := <-connErr; !errors.Is(err, ErrLoginRequired) {
		t.Errorf("connection without a prompter: %v, want ErrLoginRequired", err)
	}
	if err := <-loginErr; err != nil {
		t.Fatalf("login: %v", err)
	}
	if as.registrations != 1 || p.logins.Load() != 1 || currentToken(t, h) == "" {
		t.Errorf("registrations %d, browser logins %d; want 1, 1 and a token", as.registrations, p.logins.Load())
	}
}
