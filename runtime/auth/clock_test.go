package auth

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"
)

// A token's times carry no monotonic clock reading. With one, every
// comparison in this process would use the monotonic clock, which on
// Linux stands still while the machine sleeps: after a night's suspend a
// token that died at the authorization server would still look alive for
// the rest of its lifetime and be sent. Expiry is a wall-clock fact at
// the server, and a token read back from the store is judged by the wall
// clock already; one just received must be judged the same way.
func TestTokenTimesAreWallClock(t *testing.T) {
	as := newTestAS(t)
	rs := newTestRS(t, as)
	store := NewMemoryStore()
	h := newHandler(t, rs, &testPrompter{}, store, nil) // the real clock
	if err := h.Login(context.Background()); err != nil {
		t.Fatal(err)
	}
	rec := h.record()
	if rec.Token == nil || rec.Token.ExpiresAt.IsZero() {
		t.Fatalf("no token with an expiry: %+v", rec.Token)
	}
	for name, at := range map[string]time.Time{"issued_at": rec.Token.IssuedAt, "expires_at": rec.Token.ExpiresAt} {
		if strings.Contains(at.String(), " m=") {
			t.Errorf("%s carries a monotonic reading (%s): compared by a clock that stops in a suspend", name, at)
		}
	}
}

// The clock jumped forward (a suspend, a clock set ahead) past the expiry
// of a token that has no refresh token while the server still accepts
// it: the token is sent, and the resource server, not this clock, decides
// that it is dead. When the server then rejects it, the handler asks for
// a login with a reason that says why, and prompts nobody on its own.
func TestLiveTokenPastTheClocksExpiryIsSent(t *testing.T) {
	as := newTestAS(t)
	as.noRefreshToken = true
	rs := newTestRS(t, as)
	store := NewMemoryStore()
	clk := &clock{t: time.Unix(1_700_000_000, 0)}
	p := &testPrompter{}
	h := newHandler(t, rs, p, store, func(o *Options) { o.Now = clk.Now })
	if err := h.Login(context.Background()); err != nil {
		t.Fatal(err)
	}
	clk.Add(3 * time.Hour) // the token "expired" an hour ago, by this clock
	if got := currentToken(t, h); got != "access-1" {
		t.Fatalf("token sent after the clock jumped past its expiry: %q, want access-1", got)
	}

	// The server says it is dead: a background connection (no prompter)
	// reports a login required, with the reason.
	h2 := newHandler(t, rs, nil, store, func(o *Options) { o.Now = clk.Now })
	req, resp := unauthorized(rs, 401, "access-1", "")
	err := h2.Authorize(context.Background(), req, resp)
	var lre *LoginRequiredError
	if !errors.As(err, &lre) {
		t.Fatalf("Authorize after the server rejected the token: %v, want a LoginRequiredError", err)
	}
	if !strings.Contains(lre.Reason, "no refresh token") {
		t.Errorf("reason %q does not say why", lre.Reason)
	}
	if st, _ := h2.Status(context.Background()); st.Reason != lre.Reason {
		t.Errorf("status reason %q, want %q", st.Reason, lre.Reason)
	}
	if p.logins.Load() != 1 {
		t.Errorf("%d logins, want only the first", p.logins.Load())
	}
}
