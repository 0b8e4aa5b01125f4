package testenv

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"
)

// OIDCProvider is a running npm oidc-provider (e2e/node/oidc-provider.mjs):
// dynamic registration, PKCE, resource indicators for one resource, JWT
// access tokens with a short lifetime, refresh-token rotation with reuse
// detection, and its development login and consent pages.
type OIDCProvider struct {
	// Issuer is http://127.0.0.1:<port>.
	Issuer string
	proc   *Process
}

// OIDCStats is what the provider counted. Requests excludes the test's own
// /_test calls.
type OIDCStats struct {
	Requests      int            `json:"requests"`
	Registrations int            `json:"registrations"`
	Grants        map[string]int `json:"grants"` // successful token requests by grant_type
	Paths         []string       `json:"paths"`
}

// StartOIDCProvider starts the provider for resource (the MCP endpoint URL
// its access tokens are for), with access tokens living accessTTL. It is
// killed when the test ends.
func StartOIDCProvider(t testing.TB, resource string, accessTTL time.Duration) *OIDCProvider {
	t.Helper()
	return StartOIDCProviderEnv(t, resource, accessTTL)
}

// StartOIDCProviderEnv is StartOIDCProvider with extra environment
// variables for the provider script, such as NO_REGISTRATION_READ=1.
func StartOIDCProviderEnv(t testing.TB, resource string, accessTTL time.Duration, env ...string) *OIDCProvider {
	t.Helper()
	node := Node(t)
	script := filepath.Join(nodeDir(RepoRoot(t)), "oidc-provider.mjs")
	_, err := os.Stat(filepath.Join(nodeDir(RepoRoot(t)), "node_modules", "oidc-provider", "package.json"))
	Require(t, "npm oidc-provider in e2e/node", err)
	var last error
	for range startAttempts {
		port, err := freePort()
		if err != nil {
			t.Fatalf("testenv: %v", err)
		}
		p, err := startProcess(t, ProcessOptions{
			Argv:      []string{node, script},
			Env:       append([]string{"PORT=" + strconv.Itoa(port), "RESOURCE=" + resource, "ACCESS_TTL=" + strconv.Itoa(int(accessTTL/time.Second))}, env...),
			ReadyPort: port,
		})
		if err == nil {
			return &OIDCProvider{Issuer: fmt.Sprintf("http://127.0.0.1:%d", port), proc: p}
		}
		last = err
		if !addrInUse(err) {
			break
		}
	}
	t.Fatalf("testenv: oidc-provider: %v", last)
	return nil
}

// Output returns the tail of the provider's stdout and stderr.
func (o *OIDCProvider) Output() string { return o.proc.Output() }

// Stats returns the provider's counters.
func (o *OIDCProvider) Stats(t testing.TB) OIDCStats {
	t.Helper()
	resp, err := http.Get(o.Issuer + "/_test/stats")
	if err != nil {
		t.Fatalf("oidc-provider stats: %v", err)
	}
	defer resp.Body.Close()
	var s OIDCStats
	if err := json.NewDecoder(resp.Body).Decode(&s); err != nil {
		t.Fatalf("oidc-provider stats: %v", err)
	}
	return s
}

// RevokeAll revokes every grant, as a user would on the provider's account
// page: refresh tokens stop working; issued JWT access tokens run out.
func (o *OIDCProvider) RevokeAll(t testing.TB) int {
	t.Helper()
	resp, err := http.Post(o.Issuer+"/_test/revoke", "application/json", nil)
	if err != nil {
		t.Fatalf("oidc-provider revoke: %v", err)
	}
	defer resp.Body.Close()
	var r struct {
		Revoked int `json:"revoked"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&r); err != nil {
		t.Fatalf("oidc-provider revoke: %v", err)
	}
	return r.Revoked
}

// ForgetClients makes the provider forget every client registered
// dynamically, and their grants, as a restart of a server that keeps them
// in memory does. It returns how many clients it forgot.
func (o *OIDCProvider) ForgetClients(t testing.TB) int {
	t.Helper()
	resp, err := http.Post(o.Issuer+"/_test/forget", "application/json", nil)
	if err != nil {
		t.Fatalf("oidc-provider forget: %v", err)
	}
	defer resp.Body.Close()
	var r struct {
		Forgotten int `json:"forgotten"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&r); err != nil {
		t.Fatalf("oidc-provider forget: %v", err)
	}
	return r.Forgotten
}

// Chromium returns the path of Debian's chromium, or what Require does when
// it is missing.
func Chromium(t testing.TB) string {
	t.Helper()
	p, err := exec.LookPath("chromium")
	Require(t, "Debian chromium", err)
	return p
}

// Playwright returns Debian's chromium and the pinned Node for a test that
// drives the browser with playwright-core from e2e/node (installed by make
// deps); a missing one skips the test, or fails it under E2E_REQUIRED=1.
func Playwright(t testing.TB) (chromium, node string) {
	t.Helper()
	chromium, node = Chromium(t), Node(t)
	_, err := os.Stat(filepath.Join(nodeDir(RepoRoot(t)), "node_modules", "playwright-core", "package.json"))
	Require(t, "npm playwright-core in e2e/node", err)
	return chromium, node
}
