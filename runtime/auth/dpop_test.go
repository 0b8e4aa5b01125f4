package auth

import (
	"context"
	"crypto"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/lestrrat-go/jwx/v2/jwa"
	"github.com/lestrrat-go/jwx/v2/jws"
	"github.com/lestrrat-go/jwx/v2/jwt"
)

// proofClaim returns a string claim of a DPoP proof without verifying it.
func proofClaim(proof, name string) string {
	tok, err := jwt.ParseInsecure([]byte(proof))
	if err != nil {
		return ""
	}
	v, _ := tok.Get(name)
	s, _ := v.(string)
	return s
}

// checkedProof is a verified DPoP proof.
type checkedProof struct {
	htm, htu, ath, nonce, jti string
	thumbprint                string
}

// verifyProof checks a proof as RFC 9449 section 4.3 says a server must:
// typ, an asymmetric alg, a public jwk with no private part, a signature by
// that key, jti and iat.
func verifyProof(t *testing.T, proof string) checkedProof {
	t.Helper()
	msg, err := jws.Parse([]byte(proof))
	if err != nil || len(msg.Signatures()) != 1 {
		t.Fatalf("proof is not a JWS: %v", err)
	}
	hdr := msg.Signatures()[0].ProtectedHeaders()
	if hdr.Type() != "dpop+jwt" || hdr.Algorithm() != jwa.ES256 {
		t.Fatalf("proof header typ %q alg %q", hdr.Type(), hdr.Algorithm())
	}
	key := hdr.JWK()
	if key == nil {
		t.Fatal("proof has no jwk header")
	}
	if _, ok := key.Get("d"); ok {
		t.Fatal("proof jwk carries the private key")
	}
	tok, err := jwt.Parse([]byte(proof), jwt.WithKey(jwa.ES256, key), jwt.WithAcceptableSkew(5*time.Minute))
	if err != nil {
		t.Fatalf("proof does not verify with its own key: %v", err)
	}
	if d := time.Since(tok.IssuedAt()); tok.JwtID() == "" || d > 5*time.Minute || d < -5*time.Minute {
		t.Fatalf("proof jti %q iat %v", tok.JwtID(), tok.IssuedAt())
	}
	tp, _ := key.Thumbprint(crypto.SHA256)
	return checkedProof{
		htm: proofClaim(proof, "htm"), htu: proofClaim(proof, "htu"), ath: proofClaim(proof, "ath"),
		nonce: proofClaim(proof, "nonce"), jti: tok.JwtID(), thumbprint: base64.RawURLEncoding.EncodeToString(tp),
	}
}

func dpopAS(t *testing.T) *testAS {
	as := newTestAS(t)
	as.meta = map[string]any{"dpop_signing_alg_values_supported": []string{"ES256"}}
	as.dpopNonce = "as-nonce-1"
	return as
}

func TestDPoPTokenRequestsCarryProofsAndRetryWithTheNonce(t *testing.T) {
	as := dpopAS(t)
	rs := newTestRS(t, as)
	p := &testPrompter{}
	h := newHandler(t, rs, p, nil, nil)
	req, resp := unauthorized(rs, 401, "", `DPoP resource_metadata="`+rs.srv.URL+`/.well-known/oauth-protected-resource/mcp"`)
	if err := h.Authorize(context.Background(), req, resp); err != nil {
		t.Fatal(err)
	}
	if len(as.dpopProofs) != 2 {
		t.Fatalf("%d token requests, want 2 (the first answered use_dpop_nonce)", len(as.dpopProofs))
	}
	first, second := verifyProof(t, as.dpopProofs[0]), verifyProof(t, as.dpopProofs[1])
	for _, pr := range []checkedProof{first, second} {
		if pr.htm != "POST" || pr.htu != as.URL()+"/token" || pr.ath != "" {
			t.Errorf("token request proof: %+v", pr)
		}
	}
	if first.nonce != "" || second.nonce != "as-nonce-1" || first.jti == second.jti || first.thumbprint != second.thumbprint {
		t.Errorf("nonce retry: first %+v second %+v", first, second)
	}
	rec := h.record()
	if !isDPoP(rec.Token) || rec.DPoPKey == "" {
		t.Fatalf("token type %q, key stored %v", rec.Token.TokenType, rec.DPoPKey != "")
	}
	if st, err := h.Status(context.Background()); err != nil || !st.DPoP {
		t.Errorf("status does not say the token is DPoP-bound: %+v %v", st, err)
	}
}

// dpopResource is an MCP endpoint that demands DPoP-bound tokens and a
// nonce, and records what it was sent.
type dpopResource struct {
	mu      sync.Mutex
	srv     *httptest.Server
	nonce   string
	proofs  []string
	auth    []string
	bodies  []string
	answers []int
}

func newDPoPResource(t *testing.T) *dpopResource {
	d := &dpopResource{nonce: "rs-nonce-1"}
	d.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		d.mu.Lock()
		defer d.mu.Unlock()
		b, _ := io.ReadAll(r.Body)
		proof := r.Header.Get("DPoP")
		d.proofs, d.auth, d.bodies = append(d.proofs, proof), append(d.auth, r.Header.Get("Authorization")), append(d.bodies, string(b))
		if proofClaim(proof, "nonce") != d.nonce {
			w.Header().Set("WWW-Authenticate", `DPoP error="use_dpop_nonce", error_description="nonce required"`)
			w.Header().Set("DPoP-Nonce", d.nonce)
			w.WriteHeader(http.StatusUnauthorized)
			d.answers = append(d.answers, 401)
			return
		}
		d.answers = append(d.answers, 200)
		fmt.Fprint(w, "ok")
	}))
	t.Cleanup(d.srv.Close)
	return d
}

func TestDPoPResourceRequestsAreBoundAndRetriedWithTheNonce(t *testing.T) {
	as := dpopAS(t)
	rs := newTestRS(t, as)
	rs.prm["dpop_signing_alg_values_supported"] = []string{"ES256"}
	h := newHandler(t, rs, &testPrompter{}, nil, nil)
	if err := h.Login(context.Background()); err != nil {
		t.Fatal(err)
	}
	tok := currentToken(t, h)
	res := newDPoPResource(t)
	client := &http.Client{Transport: h.WrapTransport(http.DefaultTransport)}
	post := func() string {
		req, _ := http.NewRequest(http.MethodPost, res.srv.URL+"/mcp?x=1", strings.NewReader(`{"jsonrpc":"2.0"}`))
		req.Header.Set("Authorization", "Bearer "+tok) // what the SDK transport sets
		resp, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return string(b)
	}
	if got := post(); got != "ok" {
		t.Fatalf("first request answered %q after the nonce retry", got)
	}
	if got := post(); got != "ok" {
		t.Fatalf("second request answered %q", got)
	}
	res.mu.Lock()
	defer res.mu.Unlock()
	if fmt.Sprint(res.answers) != "[401 200 200]" {
		t.Errorf("answers %v: want one nonce challenge, then the nonce remembered", res.answers)
	}
	sum := sha256.Sum256([]byte(tok))
	ath := base64.RawURLEncoding.EncodeToString(sum[:])
	jtis := map[string]bool{}
	for i, proof := range res.proofs {
		pr := verifyProof(t, proof)
		if pr.htm != "POST" || pr.htu != res.srv.URL+"/mcp" || pr.ath != ath {
			t.Errorf("request %d proof %+v (want htu without the query, ath of the token)", i, pr)
		}
		if jtis[pr.jti] {
			t.Errorf("request %d reuses jti %s", i, pr.jti)
		}
		jtis[pr.jti] = true
		if res.auth[i] != "DPoP "+tok {
			t.Errorf("request %d Authorization %q, want the DPoP scheme", i, res.auth[i])
		}
		if res.bodies[i] != `{"jsonrpc":"2.0"}` {
			t.Errorf("request %d body %q: the retry lost the body", i, res.bodies[i])
		}
	}
}

func TestDPoPKeyPersistsAndRefreshUsesIt(t *testing.T) {
	as := dpopAS(t)
	as.expiresIn = 120
	rs := newTestRS(t, as)
	rs.prm["dpop_signing_alg_values_supported"] = []string{"ES256"}
	store := NewMemoryStore()
	clk := &clock{t: time.Now()}
	h := newHandler(t, rs, &testPrompter{}, store, func(o *Options) { o.Now = clk.Now })
	if err := h.Login(context.Background()); err != nil {
		t.Fatal(err)
	}
	bound := verifyProof(t, as.dpopProofs[len(as.dpopProofs)-1]).thumbprint

	// A new process: same store, no login, and a refresh past expiry.
	clk.Add(2 * time.Minute)
	h2 := newHandler(t, rs, nil, store, func(o *Options) { o.Now = clk.Now })
	before := len(as.dpopProofs)
	if tok := currentToken(t, h2); tok == "" {
		t.Fatal("no token after the refresh")
	}
	if as.lastTokenForm().Get("grant_type") != "refresh_token" || len(as.dpopProofs) == before {
		t.Fatalf("no refresh with a proof: %v", as.lastTokenForm())
	}
	if got := verifyProof(t, as.dpopProofs[len(as.dpopProofs)-1]).thumbprint; got != bound {
		t.Errorf("refresh proved a different key %s, want the stored %s", got, bound)
	}
	if !isDPoP(h2.record().Token) {
		t.Error("refreshed token is not DPoP-bound")
	}
}

func TestDPoPRequiredButNotOfferedFailsBeforeTheLogin(t *testing.T) {
	as := newTestAS(t)
	rs := newTestRS(t, as)
	rs.prm["dpop_bound_access_tokens_required"] = true
	p := &testPrompter{}
	h := newHandler(t, rs, p, nil, nil)
	req, resp := unauthorized(rs, 401, "", "")
	err := h.Authorize(context.Background(), req, resp)
	if err == nil || !strings.Contains(err.Error(), "dpop_signing_alg_values_supported") {
		t.Fatalf("err = %v", err)
	}
	if p.logins.Load() != 0 || as.count("/token") != 0 {
		t.Error("the user was asked to log in for a token that could not be used")
	}
}

// A resource that only knows Bearer (a Bearer challenge, no DPoP in its
// metadata) keeps Bearer tokens even where the authorization server offers
// DPoP, as most do: a bound token would be refused there.
func TestDPoPOnlyWhereTheResourceTakesIt(t *testing.T) {
	as := dpopAS(t)
	rs := newTestRS(t, as)
	h := newHandler(t, rs, &testPrompter{}, nil, nil)
	req, resp := unauthorized(rs, 401, "", "")
	if err := h.Authorize(context.Background(), req, resp); err != nil {
		t.Fatal(err)
	}
	if as.dpopProofs[0] != "" || isDPoP(h.record().Token) {
		t.Fatal("a DPoP-bound token for a Bearer-only resource")
	}
}

func TestDPoPOffAndBearerTokensPassThrough(t *testing.T) {
	as := dpopAS(t)
	rs := newTestRS(t, as)
	rs.prm["dpop_signing_alg_values_supported"] = []string{"ES256"}
	h := newHandler(t, rs, &testPrompter{}, nil, func(o *Options) { o.DPoP = DPoPOff })
	if err := h.Login(context.Background()); err != nil {
		t.Fatal(err)
	}
	if as.dpopProofs[0] != "" || isDPoP(h.record().Token) {
		t.Fatal("DPoP used although it is off")
	}
	var seen http.Header
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { seen = r.Header.Clone() }))
	defer srv.Close()
	req, _ := http.NewRequest(http.MethodGet, srv.URL, nil)
	req.Header.Set("Authorization", "Bearer "+currentToken(t, h))
	resp, err := (&http.Client{Transport: h.WrapTransport(http.DefaultTransport)}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if seen.Get("DPoP") != "" || !strings.HasPrefix(seen.Get("Authorization"), "Bearer ") {
		t.Errorf("a Bearer token was rewritten: %v", seen)
	}
}

func TestEnterpriseExchangesTheIDTokenForAnIDJAG(t *testing.T) {
	var mu sync.Mutex
	var idpForms []map[string]string
	idpStatus := http.StatusOK
	idp := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		if r.URL.Path == "/.well-known/openid-configuration" {
			fmt.Fprintf(w, `{"issuer":%q,"token_endpoint":%q}`, "http://"+r.Host, "http://"+r.Host+"/token")
			return
		}
		_ = r.ParseForm()
		f := map[string]string{"auth": basicUser(r.Header.Get("Authorization"))}
		for k := range r.PostForm {
			f[k] = r.PostForm.Get(k)
		}
		idpForms = append(idpForms, f)
		w.Header().Set("Content-Type", "application/json")
		if idpStatus != http.StatusOK {
			w.WriteHeader(idpStatus)
			fmt.Fprint(w, `{"error":"invalid_grant","error_description":"id token expired"}`)
			return
		}
		fmt.Fprintf(w, `{"access_token":"the-id-jag","issued_token_type":%q,"token_type":"N_A"}`, idJAGTokenType)
	}))
	defer idp.Close()
	idTokenFile := t.TempDir() + "/id.jwt"
	if err := writeFile(idTokenFile, "user.id.token\n"); err != nil {
		t.Fatal(err)
	}
	as := newTestAS(t)
	as.meta = map[string]any{"grant_types_supported": []string{jwtBearerGrantType}, "token_endpoint_auth_methods_supported": []string{"client_secret_basic"}}
	as.noRefreshToken = true
	rs := newTestRS(t, as)
	h := newHandler(t, rs, nil, nil, func(o *Options) {
		o.Grant, o.ClientID, o.ClientSecret = GrantEnterprise, "mcp-client", "mcp-secret"
		o.IDTokenFile, o.IDPIssuer, o.IDPClientID, o.IDPClientSecret = idTokenFile, idp.URL, "idp-client", "idp-secret"
	})
	req, resp := unauthorized(rs, 401, "", "")
	if err := h.Authorize(context.Background(), req, resp); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	ex := idpForms[0]
	mu.Unlock()
	want := map[string]string{
		"grant_type": tokenExchangeGrant, "requested_token_type": idJAGTokenType,
		"subject_token": "user.id.token", "subject_token_type": idTokenType,
		"audience": as.issuer(), "resource": rs.URL(), "auth": "idp-client",
	}
	for k, v := range want {
		if ex[k] != v {
			t.Errorf("token exchange %s = %q, want %q", k, ex[k], v)
		}
	}
	f := as.lastTokenForm()
	if f.Get("grant_type") != jwtBearerGrantType || f.Get("assertion") != "the-id-jag" || f.Get("resource") != rs.URL() {
		t.Errorf("jwt-bearer form: %v", f)
	}
	if basicUser(as.tokenAuth[len(as.tokenAuth)-1]) != "mcp-client" || currentToken(t, h) == "" {
		t.Error("no client_secret_basic at the authorization server, or no token")
	}

	// The identity provider refuses the ID token: a login is needed, and
	// nothing reaches the authorization server.
	mu.Lock()
	idpStatus = http.StatusBadRequest
	mu.Unlock()
	before := as.count("/token")
	req, resp = unauthorized(rs, 401, currentToken(t, h), "")
	err := h.Authorize(context.Background(), req, resp)
	if !errors.Is(err, ErrLoginRequired) || !strings.Contains(err.Error(), "identity provider rejected") {
		t.Fatalf("rejected exchange: %v", err)
	}
	if as.count("/token") != before {
		t.Error("a jwt-bearer request was sent without an ID-JAG")
	}
}

func writeFile(name, content string) error { return os.WriteFile(name, []byte(content), 0o600) }
