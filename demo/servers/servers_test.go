package servers_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/mcp-host/mcp-host/demo/servers"
)

var noRedirect = &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}

func start(t *testing.T, auto bool) *servers.Env {
	t.Helper()
	env, err := servers.Start(context.Background(), servers.Options{AutoApprove: auto, TokenLifetime: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { env.Close() })
	return env
}

func register(t *testing.T, env *servers.Env, redirect string) string {
	t.Helper()
	body, _ := json.Marshal(map[string]any{"redirect_uris": []string{redirect}, "client_name": "test", "token_endpoint_auth_method": "none"})
	resp, err := http.Post(env.IssuerURL+"/register", "application/json", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out struct {
		ClientID string `json:"client_id"`
	}
	json.NewDecoder(resp.Body).Decode(&out)
	if resp.StatusCode != http.StatusCreated || out.ClientID == "" {
		t.Fatalf("register: %d", resp.StatusCode)
	}
	return out.ClientID
}

const redirect = "http://127.0.0.1:9/callback"

func authorizeURL(env *servers.Env, client, challenge, resource string) string {
	q := url.Values{"response_type": {"code"}, "client_id": {client}, "redirect_uri": {redirect}, "state": {"st"},
		"code_challenge": {challenge}, "code_challenge_method": {"S256"}, "resource": {resource}, "scope": {servers.Scope}}
	return env.IssuerURL + "/authorize?" + q.Encode()
}

func challengeOf(verifier string) string {
	sum := sha256.Sum256([]byte(verifier))
	return base64.RawURLEncoding.EncodeToString(sum[:])
}

// consent presses a button on the consent page and returns the redirect.
func consent(t *testing.T, env *servers.Env, authURL, decision string) *url.URL {
	t.Helper()
	resp, err := noRedirect.Get(authURL)
	if err != nil {
		t.Fatal(err)
	}
	page, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	m := regexp.MustCompile(`name="request" value="([^"]+)"`).FindSubmatch(page)
	if m == nil {
		t.Fatalf("no consent form (status %d): %s", resp.StatusCode, page)
	}
	resp, err = noRedirect.PostForm(env.IssuerURL+"/consent", url.Values{"request": {string(m[1])}, "decision": {decision}})
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	loc, err := url.Parse(resp.Header.Get("Location"))
	if err != nil || resp.StatusCode != http.StatusFound {
		t.Fatalf("consent: %d %v", resp.StatusCode, err)
	}
	return loc
}

func token(t *testing.T, env *servers.Env, form url.Values) (int, map[string]any) {
	t.Helper()
	resp, err := http.PostForm(env.IssuerURL+"/token", form)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out map[string]any
	json.NewDecoder(resp.Body).Decode(&out)
	return resp.StatusCode, out
}

func TestAuthorizationCodeFlow(t *testing.T) {
	env := start(t, false)
	client := register(t, env, redirect)
	verifier := strings.Repeat("v", 50)

	// Deny.
	loc := consent(t, env, authorizeURL(env, client, challengeOf(verifier), env.MCPURL), "deny")
	if loc.Query().Get("error") != "access_denied" || loc.Query().Get("state") != "st" {
		t.Errorf("deny redirect: %s", loc)
	}
	// Approve; the code works once, with the right verifier.
	loc = consent(t, env, authorizeURL(env, client, challengeOf(verifier), env.MCPURL), "approve")
	code := loc.Query().Get("code")
	if code == "" || loc.Query().Get("iss") != env.IssuerURL || loc.Query().Get("state") != "st" {
		t.Fatalf("approve redirect: %s", loc)
	}
	form := url.Values{"grant_type": {"authorization_code"}, "code": {code}, "client_id": {client}, "redirect_uri": {redirect}, "resource": {env.MCPURL}}
	form.Set("code_verifier", "wrong")
	if status, out := token(t, env, form); status != http.StatusBadRequest || out["error"] != "invalid_grant" {
		t.Errorf("wrong verifier: %d %v", status, out)
	}
	// The failed attempt spent the code.
	loc = consent(t, env, authorizeURL(env, client, challengeOf(verifier), env.MCPURL), "approve")
	form.Set("code", loc.Query().Get("code"))
	form.Set("code_verifier", verifier)
	status, out := token(t, env, form)
	if status != http.StatusOK || out["access_token"] == nil || out["refresh_token"] == nil {
		t.Fatalf("token: %d %v", status, out)
	}
	if status, _ := token(t, env, form); status != http.StatusBadRequest {
		t.Errorf("a code worked twice")
	}
	// Refresh rotation.
	rt := out["refresh_token"].(string)
	refresh := url.Values{"grant_type": {"refresh_token"}, "refresh_token": {rt}, "client_id": {client}, "resource": {env.MCPURL}}
	if status, out := token(t, env, refresh); status != http.StatusOK || out["refresh_token"] == rt {
		t.Fatalf("refresh: %d %v", status, out)
	}
	if status, out := token(t, env, refresh); status != http.StatusBadRequest || out["error"] != "invalid_grant" {
		t.Errorf("an old refresh token worked again: %d %v", status, out)
	}
	// The MCP server accepts the token and rejects others with a challenge.
	access := out["access_token"].(string)
	if _, _, err := env.Auth.Verify(access, env.MCPURL); err != nil {
		t.Errorf("issued token does not verify: %v", err)
	}
	if _, _, err := env.Auth.Verify(access, "http://other/mcp"); err == nil {
		t.Error("token verified for another resource")
	}
}

func TestAuthorizeRefusals(t *testing.T) {
	env := start(t, true)
	client := register(t, env, redirect)
	get := func(u string) *http.Response {
		resp, err := noRedirect.Get(u)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp
	}
	// Without PKCE, or for another resource: an error sent to the client.
	noPKCE := strings.Replace(authorizeURL(env, client, "x", env.MCPURL), "code_challenge_method=S256", "code_challenge_method=plain", 1)
	for name, u := range map[string]string{"plain PKCE": noPKCE, "other resource": authorizeURL(env, client, "x", "http://other/mcp")} {
		resp := get(u)
		loc, _ := url.Parse(resp.Header.Get("Location"))
		if resp.StatusCode != http.StatusFound || loc.Query().Get("error") == "" || loc.Query().Get("code") != "" {
			t.Errorf("%s: %d %s", name, resp.StatusCode, loc)
		}
	}
	// An unregistered redirect URI is never redirected to.
	bad := strings.Replace(authorizeURL(env, client, "x", env.MCPURL), url.QueryEscape(redirect), url.QueryEscape("http://evil.example/cb"), 1)
	if resp := get(bad); resp.StatusCode != http.StatusBadRequest {
		t.Errorf("unregistered redirect: %d %s", resp.StatusCode, resp.Header.Get("Location"))
	}
	// Only loopback redirect URIs may register.
	body := `{"redirect_uris":["https://evil.example/cb"]}`
	resp, err := http.Post(env.IssuerURL+"/register", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusBadRequest {
		t.Errorf("non-loopback registration: %d", resp.StatusCode)
	}
}

func TestMCPServerChallenge(t *testing.T) {
	env := start(t, true)
	resp, err := http.Post(env.MCPURL, "application/json", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized || !strings.Contains(resp.Header.Get("WWW-Authenticate"), "resource_metadata=") {
		t.Fatalf("no token: %d %q", resp.StatusCode, resp.Header.Get("WWW-Authenticate"))
	}
	u := strings.TrimSuffix(env.MCPURL, "/mcp") + "/.well-known/oauth-protected-resource/mcp"
	resp, err = http.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	var prm map[string]any
	json.NewDecoder(resp.Body).Decode(&prm)
	resp.Body.Close()
	if prm["resource"] != env.MCPURL || !strings.Contains(strings.Join(toStrings(prm["authorization_servers"]), " "), env.IssuerURL) {
		t.Errorf("protected resource metadata: %v", prm)
	}
}

func toStrings(v any) []string {
	var out []string
	for _, x := range v.([]any) {
		out = append(out, x.(string))
	}
	return out
}
