package e2e_test

import (
	"context"
	"fmt"
	"net"
	"net/url"
	"os"
	"path/filepath"
	goruntime "runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcp-host/mcp-host/e2e/internal/testenv"
	"github.com/mcp-host/mcp-host/protocol"
)

// oidcServe is `host serve` with one server, "oidc", behind npm
// oidc-provider, and a UI that says yes to logins and signs in on the
// provider's pages.
type oidcServe struct {
	rs       *oidcResource
	provider *testenv.OIDCProvider
	h        *servedHost
	store    string
}

// startOIDCServe starts it all; prmDelay delays the resource's metadata
// answers; providerEnv goes to the provider script.
func startOIDCServe(t *testing.T, prmDelay time.Duration, providerEnv ...string) *oidcServe {
	t.Helper()
	rs, provider := startOIDC(t, providerEnv...)
	rs.prmDelay.Store(int64(prmDelay))
	dir := t.TempDir()
	config := filepath.Join(dir, "global", "config.json")
	writeJSONFile(t, config, map[string]any{"version": 1, "mcp": map[string]any{"servers": map[string]any{
		"oidc": map[string]any{"transport": "http", "url": rs.URL()},
	}}})
	env := []string{"MCP_HOST_CONFIG=" + config, "MCP_HOST_SERVERS=", "MCP_HOST_TOKEN_STORE=file"}
	h := startServe(t, env)
	if _, err := h.rt.Initialize(ctxT(t, time.Minute), &protocol.InitializeParams{ProtocolVersion: protocol.Version,
		ClientInfo: protocol.Implementation{Name: "e2e"}, Capabilities: protocol.UICapabilities{Confirm: true, OpenURL: true}}); err != nil {
		t.Fatal(err)
	}
	h.ui.setAnswer(answerWith(protocol.AnswerYes))
	h.ui.mu.Lock()
	h.ui.openURL = func(u string) bool {
		if _, err := signInWithForms(u); err != nil {
			t.Errorf("signing in: %v", err)
			return false
		}
		return true
	}
	h.ui.mu.Unlock()
	return &oidcServe{rs: rs, provider: provider, h: h, store: filepath.Join(dir, "global", "mcp-auth.json")}
}

func (o *oidcServe) status(t *testing.T) protocol.ServerStatus {
	t.Helper()
	g, err := o.h.rt.MCPGet(ctxT(t, 10*time.Second), &protocol.ServerParams{ID: "oidc"})
	if err != nil {
		t.Fatalf("mcp.get oidc: %v", err)
	}
	return g.Server.ServerStatus
}

// TestOIDCLoginRightAfterStart: a UI that calls mcp.login at once, before
// the server's first connection attempt has met its 401, gets the login,
// not "login required: not logged in" (issue 12 item 9).
func TestOIDCLoginRightAfterStart(t *testing.T) {
	t.Parallel() // waits on processes most of its time (package doc: Parallel tests)
	for i := range 2 {
		// The first connection's discovery is still running when the
		// login comes.
		o := startOIDCServe(t, time.Duration(i)*time.Second)
		res, err := o.h.rt.MCPLogin(ctxT(t, time.Minute), &protocol.LoginParams{ID: "oidc"})
		if err != nil {
			t.Fatalf("round %d: mcp.login right after start: %v", i, err)
		}
		if res.Server.Auth == nil || !res.Server.Auth.LoggedIn {
			t.Fatalf("round %d: after login: %+v", i, res.Server)
		}
		waitFor(t, 20*time.Second, "oidc ready", func() bool { return o.status(t).State == protocol.StateReady })
		if st := o.provider.Stats(t); st.Registrations != 1 || st.Grants["authorization_code"] != 1 {
			t.Errorf("round %d: provider %+v", i, st)
		}
		if s := o.status(t); s.Auth == nil || !strings.Contains(s.Auth.Detail, "token valid until") {
			t.Errorf("round %d: auth %+v", i, s.Auth)
		}
	}
}

// browserSignIn makes the UI's browser sign in in the background, as a
// real one does: mcp.login does not wait for the page, and a page that
// never reaches the callback (the provider's error page for a client it
// does not know) leaves the runtime waiting for its redirect. The
// returned function reports the pages that did not lead to the callback.
func (o *oidcServe) browserSignIn() (failures func() []string) {
	var mu sync.Mutex
	var failed []string
	o.h.ui.mu.Lock()
	o.h.ui.openURL = func(u string) bool {
		go func() {
			if _, err := signInWithForms(u); err != nil {
				mu.Lock()
				failed = append(failed, err.Error())
				mu.Unlock()
			}
		}()
		return true
	}
	o.h.ui.mu.Unlock()
	return func() []string {
		mu.Lock()
		defer mu.Unlock()
		return slices.Clone(failed)
	}
}

// TestOIDCForgottenClientAfterLogout: after a logout that keeps the
// client registration, the provider forgets every client (a restart). The
// next login notices before the browser opens, registers once more and
// completes, without --forget-client and without waiting out the login
// timeout (issue 12 item 9). At a provider with RFC 7592 the host reads
// its registration; without, it asks the authorization endpoint whether
// the login would end on an error page.
func TestOIDCForgottenClientAfterLogout(t *testing.T) {
	for _, tc := range []struct {
		name string
		env  []string
		// reads and authChecks: registration reads and authorization
		// requests (the browser's included) the login makes.
		reads, authChecks int
	}{
		{"registration read (RFC 7592)", nil, 1, 1},
		{"no registration read", []string{"NO_REGISTRATION_READ=1"}, 0, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := startOIDCServe(t, 0, tc.env...)
			failures := o.browserSignIn()
			if _, err := o.h.rt.MCPLogin(ctxT(t, time.Minute), &protocol.LoginParams{ID: "oidc"}); err != nil {
				t.Fatalf("first login: %v", err)
			}
			if _, err := o.h.rt.MCPLogout(ctxT(t, 20*time.Second), &protocol.LogoutParams{ID: "oidc"}); err != nil {
				t.Fatalf("logout: %v", err)
			}
			if n := o.provider.ForgetClients(t); n != 1 {
				t.Fatalf("the provider forgot %d clients, want 1", n)
			}
			before := o.provider.Stats(t)
			start := time.Now()
			res, err := o.h.rt.MCPLogin(ctxT(t, 30*time.Second), &protocol.LoginParams{ID: "oidc"})
			took := time.Since(start)
			if err != nil {
				t.Fatalf("login after the provider forgot the client (after %v): %v; pages: %v", took, err, failures())
			}
			t.Logf("login with a forgotten client took %v", took)
			if took > 30*time.Second {
				t.Errorf("login took %v", took)
			}
			if res.Server.Auth == nil || !res.Server.Auth.LoggedIn {
				t.Errorf("after login: %+v", res.Server.Auth)
			}
			after := o.provider.Stats(t)
			if n := after.Registrations - before.Registrations; n != 1 {
				t.Errorf("%d new registrations, want exactly 1", n)
			}
			if n := after.Grants["authorization_code"] - before.Grants["authorization_code"]; n != 1 {
				t.Errorf("%d code grants, want 1", n)
			}
			paths := after.Paths[len(before.Paths):]
			reads, auths := 0, 0
			for _, p := range paths {
				if strings.HasPrefix(p, "GET /reg/") {
					reads++
				}
				if p == "GET /auth" {
					auths++
				}
			}
			if reads != tc.reads || auths != tc.authChecks {
				t.Errorf("%d registration reads and %d authorization requests, want %d and %d; requests: %v", reads, auths, tc.reads, tc.authChecks, paths)
			}
			if f := failures(); len(f) != 0 {
				t.Errorf("the browser met pages that led nowhere: %v", f)
			}
			waitFor(t, 20*time.Second, "oidc ready", func() bool { return o.status(t).State == protocol.StateReady })
		})
	}
}

// listeningSockets returns the local addresses of the TCP sockets process
// pid listens on (Linux: its descriptors matched with /proc/net/tcp{,6}).
func listeningSockets(t *testing.T, pid int) []string {
	t.Helper()
	fds, err := os.ReadDir(fmt.Sprintf("/proc/%d/fd", pid))
	if err != nil {
		t.Fatalf("descriptors of %d: %v", pid, err)
	}
	inodes := map[string]bool{}
	for _, fd := range fds {
		l, err := os.Readlink(fmt.Sprintf("/proc/%d/fd/%s", pid, fd.Name()))
		if inode, ok := strings.CutPrefix(l, "socket:["); err == nil && ok {
			inodes[strings.TrimSuffix(inode, "]")] = true
		}
	}
	var out []string
	for _, table := range []string{"/proc/net/tcp", "/proc/net/tcp6"} {
		data, err := os.ReadFile(table)
		if err != nil {
			continue
		}
		for _, line := range strings.Split(string(data), "\n")[1:] {
			f := strings.Fields(line)
			if len(f) > 9 && f[3] == "0A" && inodes[f[9]] { // 0A: LISTEN
				out = append(out, f[1])
			}
		}
	}
	return out
}

// TestOIDCNoBrowserLoginsReuseOneRegistration: three mcp.login calls with
// no_browser in one `host serve`, each finished by pasting the redirect
// back, register one client in all and leave no callback listener behind
// (issue 12 item 9).
func TestOIDCNoBrowserLoginsReuseOneRegistration(t *testing.T) {
	rs, provider := startOIDC(t)
	dir := t.TempDir()
	config := filepath.Join(dir, "global", "config.json")
	writeJSONFile(t, config, map[string]any{"version": 1, "mcp": map[string]any{"servers": map[string]any{
		"oidc": map[string]any{"transport": "http", "url": rs.URL()},
	}}})
	env := []string{"MCP_HOST_CONFIG=" + config, "MCP_HOST_SERVERS=", "MCP_HOST_TOKEN_STORE=file"}
	// A machine without a browser: the login's ui.prompt.request is
	// answered with the address the browser ended on, after a user signed
	// in elsewhere (on the provider's pages, stopping at the redirect).
	h := startServe(t, env)
	ui := h.ui
	var pmu sync.Mutex
	var pasted []string
	ui.mu.Lock()
	ui.prompt = func(_ context.Context, p *protocol.PromptParams) (*protocol.PromptResult, error) {
		redirect, err := signInUntilRedirect(p.URL)
		if err != nil {
			return nil, err
		}
		pmu.Lock()
		pasted = append(pasted, redirect)
		pmu.Unlock()
		return &protocol.PromptResult{Value: redirect}, nil
	}
	ui.mu.Unlock()
	if _, err := h.rt.Initialize(ctxT(t, time.Minute), &protocol.InitializeParams{ProtocolVersion: protocol.Version,
		ClientInfo: protocol.Implementation{Name: "e2e"}, Capabilities: protocol.UICapabilities{Confirm: true, Prompt: true}}); err != nil {
		t.Fatal(err)
	}
	ui.setAnswer(answerWith(protocol.AnswerYes))
	checkProc := goruntime.GOOS == "linux"
	var before []string
	if checkProc {
		before = listeningSockets(t, h.cmd.Process.Pid)
	}
	for i := range 3 {
		res, err := h.rt.MCPLogin(ctxT(t, time.Minute), &protocol.LoginParams{ID: "oidc", NoBrowser: true})
		if err != nil {
			t.Fatalf("login %d: %v", i+1, err)
		}
		if res.Server.Auth == nil || !res.Server.Auth.LoggedIn {
			t.Fatalf("login %d: %+v", i+1, res.Server.Auth)
		}
		pmu.Lock()
		if len(pasted) != i+1 {
			t.Fatalf("login %d: %d redirects pasted", i+1, len(pasted))
		}
		u, err := url.Parse(pasted[i])
		pmu.Unlock()
		if err != nil {
			t.Fatal(err)
		}
		if c, err := net.DialTimeout("tcp", u.Host, time.Second); err == nil {
			c.Close()
			t.Errorf("login %d: the callback address %s still accepts connections", i+1, u.Host)
		}
		if checkProc {
			if now := listeningSockets(t, h.cmd.Process.Pid); len(now) != len(before) {
				t.Errorf("login %d: host serve listens on %v, before the logins on %v", i+1, now, before)
			}
		}
	}
	st := provider.Stats(t)
	if st.Registrations != 1 || st.Grants["authorization_code"] != 3 {
		t.Errorf("three logins: %d registrations and %d code grants, want 1 and 3", st.Registrations, st.Grants["authorization_code"])
	}
	waitFor(t, 20*time.Second, "oidc ready", func() bool {
		g, err := h.rt.MCPGet(ctxT(t, 10*time.Second), &protocol.ServerParams{ID: "oidc"})
		return err == nil && g.Server.State == protocol.StateReady
	})
}
