package auth

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"runtime/debug"

	"golang.org/x/oauth2"
)

// TokenSource implements auth.OAuthHandler. The source returns no token
// (and so no Authorization header) while the handler has none; it refreshes
// a token that is about to expire.
func (h *Handler) TokenSource(ctx context.Context) (_ oauth2.TokenSource, err error) {
	defer h.recoverPanic("token source", &err)
	if err := h.load(ctx); err != nil {
		return nil, err
	}
	return &tokenSource{h: h, ctx: ctx}, nil
}

type tokenSource struct {
	h   *Handler
	ctx context.Context
}

func (ts *tokenSource) Token() (_ *oauth2.Token, err error) {
	defer ts.h.recoverPanic("token source", &err)
	return ts.h.token(ts.ctx)
}

// recoverPanic turns a panic in auth code that a session's transport called
// into an error naming the server, so that one server's fault is that
// server's error and never a crash of the process. Use it deferred, with
// the caller's named error result.
func (h *Handler) recoverPanic(where string, errp *error) {
	r := recover()
	if r == nil {
		return
	}
	msg := clean(fmt.Sprint(r), maxShownText)
	h.log.Error("panic in OAuth code", "server", h.opts.ServerID, "in", where, "panic", msg, "stack", string(debug.Stack()))
	*errp = fmt.Errorf("server %s: internal error in the OAuth %s: %s", h.opts.ServerID, where, msg)
}

// WrapTransport returns a RoundTripper that presents DPoP-bound tokens: a
// request carrying the handler's current token as a Bearer token is sent
// with "Authorization: DPoP" and a fresh proof instead, and retried once
// with the server's nonce when the server demands one. Other requests pass
// through unchanged. The session applies it to its HTTP client.
func (h *Handler) WrapTransport(base http.RoundTripper) http.RoundTripper {
	return &dpopTransport{h: h, base: base}
}

type dpopTransport struct {
	h    *Handler
	base http.RoundTripper
}

func (t *dpopTransport) RoundTrip(req *http.Request) (resp *http.Response, err error) {
	defer func() {
		if err == nil {
			return
		}
		if resp != nil {
			resp.Body.Close()
			resp = nil
		}
		if req.Body != nil {
			req.Body.Close() // a RoundTripper closes the body on errors too
		}
	}()
	defer t.h.recoverPanic("transport hook", &err)
	tok := bearerToken(req)
	if tok == "" {
		return t.base.RoundTrip(req)
	}
	rec := t.h.record()
	if rec.Token == nil || rec.Token.AccessToken != tok || !isDPoP(rec.Token) {
		return t.base.RoundTrip(req)
	}
	key, err := t.h.dpopKey(rec)
	if err != nil {
		return nil, err
	}
	target := req.URL.String()
	for attempt := 0; ; attempt++ {
		r := req.Clone(req.Context())
		if attempt > 0 {
			if req.GetBody == nil && req.Body != nil && req.Body != http.NoBody {
				return nil, fmt.Errorf("server %s: cannot resend the request with the DPoP nonce", t.h.opts.ServerID)
			}
			if req.GetBody != nil {
				if r.Body, err = req.GetBody(); err != nil {
					return nil, err
				}
			}
		}
		proof, err := t.h.dpopProof(key, req.Method, target, tok, t.h.nonce(target))
		if err != nil {
			return nil, err
		}
		r.Header.Set("Authorization", tokenTypeDPoP+" "+tok)
		r.Header.Set("DPoP", proof)
		resp, err = t.base.RoundTrip(r)
		if err != nil {
			return nil, err
		}
		fresh := t.h.noteNonce(target, resp.Header)
		if attempt == 0 && fresh && resp.StatusCode == http.StatusUnauthorized && parseChallenge(resp.Header).err == dpopNonceError {
			_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
			resp.Body.Close()
			continue
		}
		return resp, nil
	}
}
