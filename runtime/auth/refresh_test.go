package auth

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// hostileAnswer is one way a token endpoint (or whatever stands in front of
// it) fails without saying anything about the credentials.
type hostileAnswer struct {
	name       string
	status     int
	ctype      string
	body       string
	retryAfter string
	hang       bool
	// wantDelay is the backoff the answer should cause.
	wantDelay time.Duration
}

var hostileAnswers = []hostileAnswer{
	{name: "503 with Retry-After", status: 503, ctype: "text/plain", body: "Service Unavailable", retryAfter: "7", wantDelay: 7 * time.Second},
	{name: "500 with an OAuth error body", status: 500, ctype: "application/json", body: `{"error":"invalid_grant","error_description":"database down"}`, wantDelay: time.Second},
	{name: "captive portal HTML 200", status: 200, ctype: "text/html", body: "<html><title>Hotel WiFi</title>Please log in</html>", wantDelay: time.Second},
	{name: "proxy HTML 404", status: 404, ctype: "text/html", body: "<html><h1>404 Not Found</h1>nginx</html>", wantDelay: time.Second},
	{name: "429 with a long Retry-After", status: 429, ctype: "application/json", body: `{"error":"slow_down"}`, retryAfter: "3600", wantDelay: maxBackoff},
	{name: "hang past the timeout", hang: true, wantDelay: time.Second},
}

func (a hostileAnswer) serve(w http.ResponseWriter, r *http.Request) bool {
	if r.PostFormValue("grant_type") == "authorization_code" {
		return false // the login works; the refresh meets the failure
	}
	if a.hang {
		select {
		case <-r.Context().Done():
		case <-time.After(10 * time.Second):
		}
		return true
	}
	if a.retryAfter != "" {
		w.Header().Set("Retry-After", a.retryAfter)
	}
	w.Header().Set("Content-Type", a.ctype)
	w.WriteHeader(a.status)
	_, _ = io.WriteString(w, a.body)
	return true
}

// A refresh that meets a server failure, a proxy or a captive portal keeps
// every credential, reports a transient error with the reason, asks again
// only after the backoff (Retry-After honoured, capped), and a later good
// answer works (issue 12 item 4).
func TestRefreshSurvivesTransientFailures(t *testing.T) {
	for _, a := range hostileAnswers {
		t.Run(a.name, func(t *testing.T) {
			as := newTestAS(t)
			rs := newTestRS(t, as)
			store := NewMemoryStore()
			clk := &clock{t: time.Unix(1_700_000_000, 0)}
			h := newHandler(t, rs, &testPrompter{}, store, func(o *Options) {
				o.Now = clk.Now
				o.HTTPClient = &http.Client{Timeout: 300 * time.Millisecond}
			})
			ctx := context.Background()
			if err := h.Login(ctx); err != nil {
				t.Fatal(err)
			}
			as.mu.Lock()
			as.tokenHook = a.serve
			as.mu.Unlock()
			clk.Add(2 * time.Hour) // expired: the refresh must happen now

			ts, _ := h.TokenSource(ctx)
			tok, err := ts.Token()
			if err == nil || tok != nil {
				t.Fatalf("expired token and failed refresh: token %v, error %v", tok, err)
			}
			if errors.Is(err, ErrLoginRequired) {
				t.Fatalf("a transient failure reads as login required: %v", err)
			}
			var te *TransientError
			if !errors.Is(err, ErrTransient) || !errors.As(err, &te) {
				t.Fatalf("error %v, want a TransientError", err)
			}
			if got := te.RetryAt.Sub(clk.Now()); got != a.wantDelay {
				t.Errorf("retry in %v, want %v", got, a.wantDelay)
			}
			st, _ := h.Status(ctx)
			if !st.LoggedIn || st.Transient == "" || !st.RetryAt.Equal(te.RetryAt) {
				t.Errorf("status %+v: want logged in, with the transient reason and retry time", st)
			}
			// An Authorize for the rejected token does not touch the token
			// endpoint before the backoff ends, nor start a login.
			before := as.count("/token")
			req, resp := unauthorized(rs, 401, "access-1", "")
			if err := h.Authorize(ctx, req, resp); !errors.Is(err, ErrTransient) {
				t.Errorf("Authorize during the backoff: %v, want the transient error", err)
			}
			if n := as.count("/token") - before; n != 0 {
				t.Errorf("%d token requests during the backoff", n)
			}
			if as.count("/authorize") != 1 {
				t.Errorf("a transient failure started a login")
			}

			rec, _ := store.Load(ctx, Key{ServerID: "srv", URL: rs.URL()})
			if rec == nil || rec.Token == nil || rec.Token.RefreshToken != "refresh-1" || rec.Client == nil {
				t.Fatalf("credentials lost: %+v", rec)
			}

			// The server recovers; after the backoff the refresh works.
			as.mu.Lock()
			as.tokenHook = nil
			as.mu.Unlock()
			clk.Add(a.wantDelay)
			if got := currentToken(t, h); got != "access-2" {
				t.Fatalf("token after recovery %q, want access-2", got)
			}
			if st, _ := h.Status(ctx); st.Transient != "" {
				t.Errorf("status still reports %q after a good refresh", st.Transient)
			}
		})
	}
}

// A definitive rejection is a 400 or 401 whose OAuth error body names the
// grant or the client; anything else leaves the credentials alone.
func TestOnlyDefinitiveAnswersAreRejections(t *testing.T) {
	for _, c := range []struct {
		status int
		body   string
		want   bool
	}{
		{400, `{"error":"invalid_grant"}`, true},
		{401, `{"error":"invalid_client"}`, true},
		{400, `{"error":"unauthorized_client"}`, true},
		{500, `{"error":"invalid_grant"}`, false},
		{503, `{"error":"invalid_client"}`, false},
		{403, `{"error":"invalid_grant"}`, false},
		{400, `<html>invalid_grant</html>`, false},
		{400, `{"error":"temporarily_unavailable"}`, false},
		{404, ``, false},
		{200, `not json`, false},
	} {
		oe := oauthErrorFrom("token", c.status, []byte(c.body))
		if got := oe.rejected(); got != c.want {
			t.Errorf("%d %s: rejected = %v, want %v", c.status, c.body, got, c.want)
		}
	}
}

// Machine grants (client_credentials here) survive a server failure the
// same way: a 5xx is a transient error, not a final "grant rejected".
func TestMachineGrantServerFailureIsTransient(t *testing.T) {
	as := newTestAS(t)
	as.noRefreshToken = true
	rs := newTestRS(t, as)
	clk := &clock{t: time.Unix(1_700_000_000, 0)}
	h := newHandler(t, rs, nil, nil, func(o *Options) {
		o.Grant, o.ClientID, o.ClientSecret, o.Now = GrantClientCredentials, "machine", "machine-secret", clk.Now
	})
	as.tokenStatus, as.tokenError = 500, "invalid_client"
	ctx := context.Background()
	req, resp := unauthorized(rs, 401, "", "")
	err := h.Authorize(ctx, req, resp)
	if errors.Is(err, ErrLoginRequired) || !errors.Is(err, ErrTransient) {
		t.Fatalf("client_credentials answered 500: %v, want a transient error", err)
	}
	if strings.Contains(err.Error(), "machine-secret") {
		t.Errorf("error leaks the client secret: %v", err)
	}
	as.mu.Lock()
	as.tokenStatus, as.tokenError = 0, ""
	as.mu.Unlock()
	clk.Add(time.Second)
	req, resp = unauthorized(rs, 401, "", "")
	if err := h.Authorize(ctx, req, resp); err != nil {
		t.Fatalf("after recovery: %v", err)
	}
	if got := currentToken(t, h); got != "access-1" {
		t.Errorf("token %q after recovery", got)
	}
}

// OnChange tells the runtime when the credentials changed, so the validity
// it shows follows background refreshes.
func TestOnChangeFollowsRefreshes(t *testing.T) {
	as := newTestAS(t)
	rs := newTestRS(t, as)
	clk := &clock{t: time.Unix(1_700_000_000, 0)}
	var changes atomic.Int32
	var h *Handler
	var seen atomic.Value
	h = newHandler(t, rs, &testPrompter{}, nil, func(o *Options) {
		o.Now = clk.Now
		o.OnChange = func() {
			changes.Add(1)
			st, _ := h.Status(context.Background())
			seen.Store(st.ExpiresAt)
		}
	})
	ctx := context.Background()
	if err := h.Login(ctx); err != nil {
		t.Fatal(err)
	}
	first := changes.Load()
	if first == 0 {
		t.Fatal("no change reported for the login")
	}
	clk.Add(2 * time.Hour)
	if got := currentToken(t, h); got != "access-2" {
		t.Fatalf("token %q", got)
	}
	if changes.Load() == first {
		t.Fatal("no change reported for the refresh")
	}
	if got, _ := seen.Load().(time.Time); !got.Equal(clk.Now().Add(time.Hour)) {
		t.Errorf("validity seen after the refresh %v, want %v", got, clk.Now().Add(time.Hour))
	}
}
