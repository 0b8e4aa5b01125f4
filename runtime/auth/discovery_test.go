package auth

import (
	"context"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
)

func TestResourceMatching(t *testing.T) {
	for _, c := range []struct {
		resource, server string
		ok               bool
	}{
		{"https://a.example/mcp", "https://a.example/mcp", true},
		{"https://a.example", "https://a.example/mcp", true},
		{"https://A.example:443/", "https://a.example/mcp", true},
		{"https://a.example/mc", "https://a.example/mcp", false},
		{"https://a.example/mcp/x", "https://a.example/mcp", false},
		{"http://a.example/mcp", "https://a.example/mcp", false},
		{"https://evil.example/mcp", "https://a.example/mcp", false},
		{"https://a.example:8443/mcp", "https://a.example/mcp", false},
		{"https://a.example/mcp#f", "https://a.example/mcp", false},
	} {
		if got := resourceMatches(c.resource, c.server); got != c.ok {
			t.Errorf("resourceMatches(%q, %q) = %v, want %v", c.resource, c.server, got, c.ok)
		}
	}
}

func TestIssParameter(t *testing.T) {
	for _, c := range []struct {
		name       string
		advertised bool
		iss        string
		ok         bool
	}{
		{"advertised-correct", true, "correct", true},
		{"advertised-missing", true, "omit", false},
		{"advertised-wrong", true, "wrong", false},
		{"advertised-trailing-slash", true, "slash", false},
		{"unadvertised-missing", false, "omit", true},
		{"unadvertised-correct", false, "correct", true},
		{"unadvertised-wrong", false, "wrong", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			as := newTestAS(t)
			as.issInRedirect = c.iss
			if !c.advertised {
				as.meta = map[string]any{"authorization_response_iss_parameter_supported": nil}
			}
			rs := newTestRS(t, as)
			h := newHandler(t, rs, &testPrompter{}, nil, nil)
			err := h.Login(context.Background())
			if c.ok && err != nil {
				t.Fatalf("Login: %v", err)
			}
			if !c.ok {
				if err == nil || !strings.Contains(err.Error(), "RFC 9207") {
					t.Fatalf("Login = %v, want an RFC 9207 rejection", err)
				}
				if n := as.count("/token"); n != 0 {
					t.Errorf("token endpoint called %d times after a rejected iss", n)
				}
			}
		})
	}
}

func TestWrongStateRejected(t *testing.T) {
	as := newTestAS(t)
	rs := newTestRS(t, as)
	h := newHandler(t, rs, &testPrompter{tamper: func(r *CallbackResult) { r.State = "forged" }}, nil, nil)
	if err := h.Login(context.Background()); err == nil || !strings.Contains(err.Error(), "state") {
		t.Fatalf("Login = %v, want a state error", err)
	}
	if as.count("/token") != 0 {
		t.Error("code exchanged despite a wrong state")
	}
}

func TestMetadataIssuerMismatchAndMissingS256Refused(t *testing.T) {
	for name, meta := range map[string]map[string]any{
		"issuer": {"issuer": "https://attacker.example.com"},
		"pkce":   {"code_challenge_methods_supported": []string{"plain"}},
		"nopkce": {"code_challenge_methods_supported": nil},
	} {
		t.Run(name, func(t *testing.T) {
			as := newTestAS(t)
			as.meta = meta
			rs := newTestRS(t, as)
			p := &testPrompter{}
			h := newHandler(t, rs, p, nil, nil)
			if err := h.Login(context.Background()); err == nil {
				t.Fatal("Login succeeded with unusable metadata")
			}
			for _, path := range []string{"/register", "/authorize", "/token"} {
				if as.count(path) != 0 {
					t.Errorf("%s used despite unusable metadata", path)
				}
			}
			if p.logins.Load() != 0 {
				t.Error("prompter asked to log in")
			}
		})
	}
}

func TestSecondAuthorizationServerTriedWhenFirstUnusable(t *testing.T) {
	bad, good := newTestAS(t), newTestAS(t)
	bad.meta = map[string]any{"issuer": "https://attacker.example.com"}
	rs := newTestRS(t, good)
	rs.prm["authorization_servers"] = []string{bad.URL(), good.URL()}
	h := newHandler(t, rs, &testPrompter{}, nil, nil)
	if err := h.Login(context.Background()); err != nil {
		t.Fatal(err)
	}
	if good.issued != 1 || bad.count("/token") != 0 {
		t.Errorf("issued by good = %d, bad token requests = %d", good.issued, bad.count("/token"))
	}
}

func TestPreRegisteredClientUsesAdvertisedAuthMethod(t *testing.T) {
	for _, c := range []struct {
		methods []string
		basic   bool
	}{
		{[]string{"client_secret_basic"}, true},
		{[]string{"client_secret_post"}, false},
	} {
		as := newTestAS(t)
		as.meta = map[string]any{"token_endpoint_auth_methods_supported": c.methods, "registration_endpoint": nil}
		rs := newTestRS(t, as)
		h := newHandler(t, rs, &testPrompter{}, nil, func(o *Options) { o.ClientID, o.ClientSecret = "static id", "s3cret" })
		if err := h.Login(context.Background()); err != nil {
			t.Fatal(err)
		}
		f, auth := as.lastTokenForm(), as.tokenAuth[len(as.tokenAuth)-1]
		if c.basic {
			if basicUser(auth) != "static id" || f.Get("client_secret") != "" {
				t.Errorf("basic: header user %q, form secret %q", basicUser(auth), f.Get("client_secret"))
			}
		} else if auth != "" || f.Get("client_secret") != "s3cret" || f.Get("client_id") != "static id" {
			t.Errorf("post: header %q, form %v", auth, f)
		}
		if as.registrations != 0 {
			t.Error("registered although a client is configured")
		}
	}
}

func TestClientMetadataDocumentPreferredWhenSupported(t *testing.T) {
	as := newTestAS(t)
	as.meta = map[string]any{"client_id_metadata_document_supported": true}
	rs := newTestRS(t, as)
	const doc = "https://client.example/metadata.json"
	h := newHandler(t, rs, &testPrompter{}, nil, func(o *Options) { o.ClientMetadataURL = doc; o.ClientID = "static" })
	if err := h.Login(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got := as.authorizes[0].Get("client_id"); got != doc {
		t.Errorf("client_id = %q, want the metadata document URL", got)
	}
}

func TestLegacyServerFallbacks(t *testing.T) {
	// No protected resource metadata and no authorization server metadata:
	// the MCP server's origin serves /authorize, /token and /register.
	as := newTestAS(t)
	as.noMeta = true
	server := &testRS{srv: as.srv}
	h := newHandler(t, server, &testPrompter{}, nil, nil)
	req, resp := unauthorized(server, 401, "", "Bearer")
	if err := h.Authorize(context.Background(), req, resp); err != nil {
		t.Fatalf("Authorize: %v", err)
	}
	if as.registrations != 1 || as.issued != 1 {
		t.Errorf("legacy flow: registrations %d, issued %d", as.registrations, as.issued)
	}
	if got := as.authorizes[0].Get("resource"); got != server.URL() {
		t.Errorf("resource = %q, want the server URL %q", got, server.URL())
	}
}

func TestDiscoveryOrderForPathIssuer(t *testing.T) {
	var (
		mu    sync.Mutex
		paths []string
	)
	srv := newRecordingServer(t, &mu, &paths)
	rs := &testRS{srv: srv}
	h := newHandler(t, rs, nil, nil, nil)
	if _, err := h.fetchServerMeta(context.Background(), srv.URL+"/tenant1"); err != nil {
		t.Fatal(err)
	}
	want := []string{
		"/.well-known/oauth-authorization-server/tenant1",
		"/.well-known/openid-configuration/tenant1",
		"/tenant1/.well-known/openid-configuration",
	}
	mu.Lock()
	defer mu.Unlock()
	if !slices.Equal(paths, want) {
		t.Errorf("metadata requests = %v, want %v", paths, want)
	}
}

func TestPRMDiscoveryOrderStopsAtPathInserted(t *testing.T) {
	as := newTestAS(t)
	rs := newTestRS(t, as)
	h := newHandler(t, rs, nil, nil, nil)
	// No resource_metadata in the challenge: the path-inserted location is
	// found before the root one is tried.
	prm, err := h.fetchPRM(context.Background(), challenge{})
	if err != nil || prm == nil {
		t.Fatalf("fetchPRM = %v, %v", prm, err)
	}
	if rs.prmHits != 1 {
		t.Errorf("PRM hits = %d", rs.prmHits)
	}
}

func newRecordingServer(t *testing.T, mu *sync.Mutex, paths *[]string) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		*paths = append(*paths, r.URL.Path)
		mu.Unlock()
		http.NotFound(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv
}
