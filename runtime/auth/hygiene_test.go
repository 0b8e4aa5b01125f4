package auth

import (
	"context"
	"errors"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/mcp-host/mcp-host/redact"
)

// noSecrets fails when text holds any of the secrets, a control character
// or a bidi override.
func noSecrets(t *testing.T, what, text string, secrets ...string) {
	t.Helper()
	for _, s := range secrets {
		if strings.Contains(text, s) {
			t.Errorf("%s quotes the secret %q: %s", what, s, text)
		}
	}
	if strings.ContainsAny(text, "\x1b\x07\u202e") {
		t.Errorf("%s carries control or bidi characters: %q", what, text)
	}
}

var quotedBody = regexp.MustCompile(`body "((?:[^"\\]|\\.)*)"`)

// Errors quote at most a short, redacted excerpt of what an authorization
// server sent, and never a token or client secret, even when the server
// echoes them (issue 11, secret hygiene).
func TestErrorsQuoteShortRedactedExcerpts(t *testing.T) {
	const clientSecret = "cs-0123456789-secret"
	ctx := context.Background()
	newLoggedIn := func(t *testing.T) (*testAS, *Handler, *clock) {
		as := newTestAS(t)
		as.clientSecret = clientSecret
		rs := newTestRS(t, as)
		clk := &clock{t: time.Unix(1_700_000_000, 0)}
		h := newHandler(t, rs, &testPrompter{}, nil, func(o *Options) { o.Now = clk.Now })
		if err := h.Login(ctx); err != nil {
			t.Fatal(err)
		}
		return as, h, clk
	}
	refreshErr := func(h *Handler, clk *clock) error {
		clk.Add(2 * time.Hour)
		ts, _ := h.TokenSource(ctx)
		_, err := ts.Token()
		return err
	}
	secrets := []string{"refresh-1", "access-1", clientSecret, "code-client-1"}

	t.Run("error_description echoing the request", func(t *testing.T) {
		as, h, clk := newLoggedIn(t)
		as.mu.Lock()
		as.tokenStatus = 400
		as.tokenBody = `{"error":"invalid_request","error_description":"refresh_token refresh-1 with client_secret ` + clientSecret + ` and Bearer access-1 \u001b[2J\u202e"}`
		as.mu.Unlock()
		err := refreshErr(h, clk)
		if err == nil {
			t.Fatal("no error")
		}
		noSecrets(t, "refresh error", err.Error(), secrets...)
	})
	t.Run("HTML page of 20 KB", func(t *testing.T) {
		as, h, clk := newLoggedIn(t)
		page := "<html><title>Bad Gateway</title>\x1b]0;pwned\x07" + strings.Repeat("<p>Authorization: Bearer access-1 refresh-1 "+clientSecret+"</p>", 300) + "</html>"
		as.mu.Lock()
		as.tokenStatus, as.tokenBody = 502, page
		as.mu.Unlock()
		err := refreshErr(h, clk)
		if err == nil {
			t.Fatal("no error")
		}
		msg := err.Error()
		noSecrets(t, "refresh error", msg, secrets...)
		m := quotedBody.FindStringSubmatch(msg)
		if m == nil {
			t.Fatalf("error %q quotes no excerpt of the body", msg)
		}
		if len(m[1]) > 256 || !strings.Contains(m[1], "Bad Gateway") {
			t.Errorf("excerpt of %d bytes: %q", len(m[1]), m[1])
		}
		if len(msg) > 700 {
			t.Errorf("error of %d bytes", len(msg))
		}
	})
	t.Run("machine grant rejection", func(t *testing.T) {
		as := newTestAS(t)
		rs := newTestRS(t, as)
		h := newHandler(t, rs, nil, nil, func(o *Options) {
			o.Grant, o.ClientID, o.ClientSecret = GrantClientCredentials, "machine", clientSecret
		})
		as.tokenStatus = 401
		as.tokenBody = `{"error":"invalid_client","error_description":"secret ` + clientSecret + ` is wrong"}`
		req, resp := unauthorized(rs, 401, "", "")
		err := h.Authorize(ctx, req, resp)
		var lre *LoginRequiredError
		if !errors.As(err, &lre) {
			t.Fatalf("Authorize: %v", err)
		}
		noSecrets(t, "login-required reason", lre.Reason, clientSecret)
		st, _ := h.Status(ctx)
		noSecrets(t, "status reason", st.Reason, clientSecret)
	})
	t.Run("metadata naming a huge issuer", func(t *testing.T) {
		as := newTestAS(t)
		as.issuerOverride = "https://" + strings.Repeat("a", 100_000) + ".example"
		rs := newTestRS(t, as)
		h := newHandler(t, rs, &testPrompter{}, nil, nil)
		req, resp := unauthorized(rs, 401, "", "")
		err := h.Authorize(ctx, req, resp)
		if err == nil || len(err.Error()) > 2000 {
			t.Errorf("error of %d bytes", len(err.Error()))
		}
	})
	t.Run("revocation failure", func(t *testing.T) {
		as, h, _ := newLoggedIn(t)
		as.mu.Lock()
		as.meta = map[string]any{"revocation_endpoint": as.URL() + "/revoke"}
		as.revokeStatus = 500
		as.mu.Unlock()
		_, err := h.LogoutWith(ctx, LogoutOptions{Revoke: true})
		if err == nil {
			t.Fatal("no error")
		}
		noSecrets(t, "revocation error", err.Error(), secrets...)
	})
}

// The token response that is not JSON is quoted as an excerpt too, so a
// captive portal shows up as what it is.
func TestNonJSONTokenAnswerIsQuoted(t *testing.T) {
	as := newTestAS(t)
	rs := newTestRS(t, as)
	clk := &clock{t: time.Unix(1_700_000_000, 0)}
	h := newHandler(t, rs, &testPrompter{}, nil, func(o *Options) { o.Now = clk.Now })
	ctx := context.Background()
	if err := h.Login(ctx); err != nil {
		t.Fatal(err)
	}
	as.mu.Lock()
	as.tokenHook = func(w http.ResponseWriter, r *http.Request) bool {
		w.Header().Set("Content-Type", "text/html")
		_, _ = w.Write([]byte("<html><title>Hotel WiFi</title>accept the terms</html>"))
		return true
	}
	as.mu.Unlock()
	clk.Add(2 * time.Hour)
	ts, _ := h.TokenSource(ctx)
	_, err := ts.Token()
	if err == nil || !strings.Contains(err.Error(), "Hotel WiFi") {
		t.Errorf("error %v does not show what answered", err)
	}
}

// Tokens and client secrets are registered with the redactor where the
// handler gets them (from the store, the token endpoint, a registration),
// so that whatever quotes them later (a network error, a log line, a
// status field) is masked by redact.String.
func TestSecretsAreRegisteredWithTheRedactor(t *testing.T) {
	as := newTestAS(t)
	as.name = "reg-"
	as.clientSecret = "dcr-secret-registered-1"
	rs := newTestRS(t, as)
	store := NewMemoryStore()
	h := newHandler(t, rs, &testPrompter{}, store, nil)
	if err := h.Login(context.Background()); err != nil {
		t.Fatal(err)
	}
	// A record that only the store knows, loaded by a fresh handler.
	key := Key{ServerID: "other", URL: rs.URL()}
	_ = store.Save(context.Background(), key, &Record{Token: &Token{AccessToken: "stored-access-xyz", RefreshToken: "stored-refresh-xyz"}})
	h2, _ := New(Options{ServerID: "other", ServerURL: rs.URL(), Store: store})
	if _, err := h2.Status(context.Background()); err != nil {
		t.Fatal(err)
	}
	msg := redact.String("dial failed for access-1 with refresh-1, dcr-secret-registered-1, stored-access-xyz, stored-refresh-xyz")
	noSecrets(t, "redacted message", msg, "access-1", "refresh-1", "dcr-secret-registered-1", "stored-access-xyz", "stored-refresh-xyz")
}

// A URL a person would misread is never opened: userinfo makes the host
// shown differ from the host reached, and a hidden character makes the URL
// shown differ from the URL opened.
func TestCheckBrowserURLRefusesMisleadingURLs(t *testing.T) {
	for _, raw := range []string{
		"https://good.com@evil.com/",
		"https://good.com:x@evil.com/",
		"http://good.com@127.0.0.1:9/",
		"https://evil.com/\u202egood",
		"https://ev\u200bil.com/",
	} {
		if err := CheckBrowserURL(raw); err == nil {
			t.Errorf("CheckBrowserURL(%q) = nil, want a refusal", raw)
		}
	}
	for _, raw := range []string{"https://xn--pple-43d.com/x?state=1", "https://\u0430pple.com/", "http://127.0.0.1:9/cb"} {
		if err := CheckBrowserURL(raw); err != nil {
			t.Errorf("CheckBrowserURL(%q) = %v, want nil", raw, err)
		}
	}
}
