package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/mcp-host/mcp-host/runtime/auth"
	"github.com/mcp-host/mcp-host/runtime/session"
)

// clientMetadataURL is the Client ID Metadata Document URL the suite expects
// a client to use where the authorization server supports one.
const clientMetadataURL = "https://conformance-test.local/client-metadata.json"

// authScenarios are the suite's authorization scenarios. Each connects with
// an OAuth handler (see connect), which lists tools, and then calls the
// server's tool, as the suite's reference client does.
var authScenarios = []string{
	"auth/metadata-default",
	"auth/metadata-var1",
	"auth/metadata-var2",
	"auth/metadata-var3",
	"auth/basic-cimd",
	"auth/scope-from-www-authenticate",
	"auth/scope-from-scopes-supported",
	"auth/scope-omitted-when-undefined",
	"auth/scope-step-up",
	"auth/scope-retry-limit",
	"auth/token-endpoint-auth-basic",
	"auth/token-endpoint-auth-post",
	"auth/token-endpoint-auth-none",
	"auth/pre-registration",
	"auth/2025-03-26-oauth-metadata-backcompat",
	"auth/2025-03-26-oauth-endpoint-fallback",
	"auth/resource-mismatch",
	"auth/offline-access-scope",
	"auth/offline-access-not-supported",
	"auth/authorization-server-migration",
	"auth/iss-supported",
	"auth/iss-not-advertised",
	"auth/iss-supported-missing",
	"auth/iss-wrong-issuer",
	"auth/iss-unexpected",
	"auth/iss-normalized",
	"auth/metadata-issuer-mismatch",
	"auth/client-credentials-basic",
	"auth/client-credentials-jwt",
	"auth/wif-jwt-bearer",
	"auth/enterprise-managed-authorization",
	"auth/dpop",
	"auth/dpop-nonce",
}

func init() {
	for _, name := range authScenarios {
		scenarios[name] = callTool("test-tool", nil)
	}
}

// connect connects the session for scenario name. Authorization scenarios
// get the runtime's OAuth handler, configured from the suite's context
// (client_id and client_secret for pre-registered clients), with a prompter
// that plays the user's browser.
func connect(ctx context.Context, name string, conf map[string]any, opts session.Options) (*session.Session, error) {
	if !strings.HasPrefix(name, "auth/") {
		return session.Connect(ctx, opts)
	}
	str := func(k string) string { s, _ := conf[k].(string); return s }
	o := auth.Options{
		ServerID:          opts.ID,
		ServerURL:         opts.URL,
		ClientID:          str("client_id"),
		ClientSecret:      str("client_secret"),
		ClientMetadataURL: clientMetadataURL,
		Prompter:          &browserless{},
	}
	// What a user would put in the server's "oauth" config for these
	// scenarios: the grant, and the key or the workload token file.
	switch name {
	case "auth/client-credentials-basic":
		o.Grant = auth.GrantClientCredentials
	case "auth/client-credentials-jwt":
		o.Grant, o.PrivateKeyPEM, o.SigningAlg = auth.GrantClientCredentials, []byte(str("private_key_pem")), str("signing_algorithm")
	case "auth/wif-jwt-bearer":
		f, err := tokenFile(str("valid_jwt"))
		if err != nil {
			return nil, err
		}
		defer os.Remove(f)
		o.Grant, o.AssertionFile = auth.GrantJWTBearer, f
	case "auth/enterprise-managed-authorization":
		f, err := tokenFile(str("idp_id_token"))
		if err != nil {
			return nil, err
		}
		defer os.Remove(f)
		o.Grant, o.IDTokenFile = auth.GrantEnterprise, f
		o.IDPIssuer, o.IDPClientID = str("idp_issuer"), str("idp_client_id")
	}
	h, err := auth.New(o)
	if err != nil {
		return nil, err
	}
	opts.OAuthHandler = h
	return session.Connect(ctx, opts)
}

// tokenFile writes a token where a deployment would keep it: in a file the
// configuration names.
func tokenFile(tok string) (string, error) {
	f, err := os.CreateTemp("", "token-*.jwt")
	if err != nil {
		return "", err
	}
	defer f.Close()
	if _, err := f.WriteString(tok); err != nil {
		os.Remove(f.Name())
		return "", err
	}
	return f.Name(), nil
}

// browserless is a LoginPrompter standing in for the user's browser: it
// requests the authorization URL without following redirects and reads the
// redirect the authorization server answers with (the suite's servers
// approve at once).
type browserless struct{}

const callbackURI = "http://127.0.0.1:3000/callback"

func (*browserless) RedirectURI(context.Context, string) (string, error) { return callbackURI, nil }

func (*browserless) Login(ctx context.Context, req *auth.LoginRequest) (*auth.CallbackResult, error) {
	c := &http.Client{
		Timeout:       10 * time.Second,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
	hr, err := http.NewRequestWithContext(ctx, http.MethodGet, req.URL, nil)
	if err != nil {
		return nil, err
	}
	resp, err := c.Do(hr)
	if err != nil {
		return nil, fmt.Errorf("authorization endpoint: %w", err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	loc := resp.Header.Get("Location")
	if resp.StatusCode/100 != 3 || loc == "" {
		return nil, fmt.Errorf("authorization endpoint answered %d without a redirect", resp.StatusCode)
	}
	u, err := url.Parse(loc)
	if err != nil {
		return nil, fmt.Errorf("authorization redirect: %w", err)
	}
	if !strings.HasPrefix(u.Scheme+"://"+u.Host+u.Path, req.RedirectURI) {
		return nil, errors.New("authorization server redirected somewhere other than the redirect URI")
	}
	return auth.ParseCallback(u.Query()), nil
}
