package auth

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"encoding/base64"
	"encoding/pem"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/lestrrat-go/jwx/v2/jwa"
	"github.com/lestrrat-go/jwx/v2/jwt"
)

func TestClientCredentialsWithSecret(t *testing.T) {
	as := newTestAS(t)
	as.meta = map[string]any{"grant_types_supported": []string{"client_credentials"}}
	rs := newTestRS(t, as)
	h := newHandler(t, rs, nil, nil, func(o *Options) {
		o.Grant, o.ClientID, o.ClientSecret = GrantClientCredentials, "machine", "s3cret"
	})
	req, resp := unauthorized(rs, 401, "", "")
	if err := h.Authorize(context.Background(), req, resp); err != nil {
		t.Fatal(err)
	}
	f := as.lastTokenForm()
	if f.Get("grant_type") != "client_credentials" || f.Get("resource") != rs.URL() || f.Get("client_secret") != "" {
		t.Errorf("token form: %v", f)
	}
	if basicUser(as.tokenAuth[len(as.tokenAuth)-1]) != "machine" {
		t.Errorf("no client_secret_basic authentication: %q", as.tokenAuth)
	}
	if currentToken(t, h) == "" || as.count("/authorize") != 0 {
		t.Error("no token, or a browser login was attempted")
	}
}

func TestClientCredentialsWithPrivateKeyJWT(t *testing.T) {
	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	der, _ := x509.MarshalPKCS8PrivateKey(key)
	pemKey := pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der})
	as := newTestAS(t)
	as.meta = map[string]any{"token_endpoint_auth_methods_supported": []string{"private_key_jwt"}}
	rs := newTestRS(t, as)
	h := newHandler(t, rs, nil, nil, func(o *Options) {
		o.Grant, o.ClientID, o.PrivateKeyPEM = GrantClientCredentials, "machine", pemKey
	})
	req, resp := unauthorized(rs, 401, "", "")
	if err := h.Authorize(context.Background(), req, resp); err != nil {
		t.Fatal(err)
	}
	f := as.lastTokenForm()
	if f.Get("client_assertion_type") != clientAssertionType {
		t.Fatalf("token form: %v", f)
	}
	tok, err := jwt.Parse([]byte(f.Get("client_assertion")), jwt.WithKey(jwa.ES256, key.Public()), jwt.WithAudience(as.issuer()), jwt.WithIssuer("machine"), jwt.WithSubject("machine"))
	if err != nil {
		t.Fatalf("assertion does not verify: %v", err)
	}
	if tok.JwtID() == "" || time.Until(tok.Expiration()) > 2*time.Minute {
		t.Errorf("assertion jti %q exp %v", tok.JwtID(), tok.Expiration())
	}
}

func TestJWTBearerReadsTheFileAndNeverRetries(t *testing.T) {
	file := filepath.Join(t.TempDir(), "workload.jwt")
	os.WriteFile(file, []byte("first.jwt.value\n"), 0o600)
	as := newTestAS(t)
	as.noRefreshToken = true // so that the second 401 runs the grant again
	rs := newTestRS(t, as)
	h := newHandler(t, rs, nil, nil, func(o *Options) {
		o.Grant, o.ClientID, o.AssertionFile = GrantJWTBearer, "workload", file
	})
	ctx := context.Background()
	req, resp := unauthorized(rs, 401, "", "")
	if err := h.Authorize(ctx, req, resp); err != nil {
		t.Fatal(err)
	}
	f := as.lastTokenForm()
	if f.Get("grant_type") != jwtBearerGrantType || f.Get("assertion") != "first.jwt.value" || f.Get("client_id") != "workload" {
		t.Fatalf("token form: %v", f)
	}
	// A rotated file is used; a rejection is final.
	os.WriteFile(file, []byte("second.jwt.value"), 0o600)
	as.mu.Lock()
	as.tokenStatus, as.tokenError = 400, "invalid_grant"
	as.mu.Unlock()
	before := len(as.tokenForms)
	req, resp = unauthorized(rs, 401, currentToken(t, h), "")
	err := h.Authorize(ctx, req, resp)
	if !errors.Is(err, ErrLoginRequired) || !strings.Contains(err.Error(), "jwt_bearer grant rejected") {
		t.Fatalf("rejected grant: %v", err)
	}
	if n := len(as.tokenForms) - before; n != 1 || as.lastTokenForm().Get("assertion") != "second.jwt.value" {
		t.Errorf("%d token requests after the rejection (want exactly 1, with the rotated assertion)", n)
	}
	if as.count("/authorize") != 0 {
		t.Error("fell back to a browser login")
	}
}

func TestJWTBearerFromTheEnvironment(t *testing.T) {
	t.Setenv("WORKLOAD_JWT", "env.jwt.value")
	as := newTestAS(t)
	rs := newTestRS(t, as)
	h := newHandler(t, rs, nil, nil, func(o *Options) {
		o.Grant, o.ClientID, o.AssertionEnv = GrantJWTBearer, "workload", "WORKLOAD_JWT"
	})
	req, resp := unauthorized(rs, 401, "", "")
	if err := h.Authorize(context.Background(), req, resp); err != nil {
		t.Fatal(err)
	}
	if a := as.lastTokenForm().Get("assertion"); a != "env.jwt.value" {
		t.Errorf("assertion %q", a)
	}
	t.Setenv("WORKLOAD_JWT", "")
	h2 := newHandler(t, rs, nil, nil, func(o *Options) {
		o.Grant, o.ClientID, o.AssertionEnv = GrantJWTBearer, "workload", "WORKLOAD_JWT"
	})
	req, resp = unauthorized(rs, 401, "", "")
	if err := h2.Authorize(context.Background(), req, resp); err == nil || !strings.Contains(err.Error(), "$WORKLOAD_JWT is unset or empty") {
		t.Errorf("empty variable: %v", err)
	}
}

// TestConfiguredClientSecretNotStored: the secret of a configured client
// stays in the config (or its ${VAR}); the token store gets the tokens and
// the client id only, and a handler started from that store still
// authenticates with the configured secret.
func TestConfiguredClientSecretNotStored(t *testing.T) {
	as := newTestAS(t)
	as.meta = map[string]any{"grant_types_supported": []string{"client_credentials"}}
	rs := newTestRS(t, as)
	store := NewMemoryStore()
	mod := func(o *Options) {
		o.Grant, o.ClientID, o.ClientSecret = GrantClientCredentials, "machine", "s3cret-never-stored"
	}
	h := newHandler(t, rs, nil, store, mod)
	req, resp := unauthorized(rs, 401, "", "")
	if err := h.Authorize(context.Background(), req, resp); err != nil {
		t.Fatal(err)
	}
	for k, rec := range store.recs {
		if rec.Client == nil || rec.Client.ClientID != "machine" {
			t.Fatalf("stored record %v: %+v", k, rec.Client)
		}
		if rec.Client.ClientSecret != "" {
			t.Errorf("the configured client secret was copied into the token store")
		}
	}
	// A second process: loads the record, and its next grant still
	// authenticates with the configured secret.
	h2 := newHandler(t, rs, nil, store, mod)
	req, resp = unauthorized(rs, 401, "", "")
	if err := h2.Authorize(context.Background(), req, resp); err != nil {
		t.Fatal(err)
	}
	if got := as.tokenAuth[len(as.tokenAuth)-1]; !strings.Contains(basicDecoded(got), "s3cret-never-stored") {
		t.Errorf("second grant authenticated without the configured secret: %q", got)
	}
}

// basicDecoded is the user:password of a Basic Authorization value.
func basicDecoded(h string) string {
	b, _ := base64.StdEncoding.DecodeString(strings.TrimPrefix(h, "Basic "))
	return string(b)
}
