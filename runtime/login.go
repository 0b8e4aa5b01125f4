package runtime

import (
	"context"
	"crypto/subtle"
	"errors"
	"fmt"
	"net/url"
	"os"
	goruntime "runtime"
	"strconv"
	"strings"
	"time"

	"github.com/mcp-host/mcp-host/runtime/auth"
	"github.com/pkg/browser"
)

// LoginPrompt describes one login to a person.
type LoginPrompt struct {
	// Server is the server id.
	Server string
	// Issuer is the authorization server.
	Issuer string
	// URL is the authorization URL to open.
	URL string
	// RedirectURI is where the browser will land at the end; for a
	// paste-back, the address to copy starts with it.
	RedirectURI string
	// Retry, in a paste-back asked again, says why the last pasted text
	// was not taken; empty the first time.
	Retry string
}

// LoginUI is how the runtime involves a person in an OAuth login. `host
// serve` implements it over the UI protocol, the CLI on the terminal. The
// runtime calls ConfirmLogin first and opens nothing unless it returns true.
type LoginUI interface {
	// ConfirmLogin asks whether to log in to p.Server at p.Issuer.
	ConfirmLogin(ctx context.Context, p LoginPrompt) (bool, error)
	// OpenURL shows p.URL in a browser (the system browser, or the UI's
	// own). An error makes the runtime fall back to PromptRedirect.
	OpenURL(ctx context.Context, p LoginPrompt) error
	// PromptRedirect shows p.URL for the person to open anywhere and
	// returns the address the browser ended on, pasted back. It is asked
	// again (p.Retry set) after a paste that is not the redirect, and its
	// ctx ends when the browser reaches the loopback callback instead: it
	// must return then.
	PromptRedirect(ctx context.Context, p LoginPrompt) (string, error)
}

// OpenBrowser opens url in the system browser. It is what a LoginUI's
// OpenURL uses when the UI cannot open URLs itself; it refuses on machines
// where no browser can be shown (SSH sessions, no display).
func OpenBrowser(u string) error {
	// Whoever asks, the system browser only ever gets an https URL or an
	// http one on this machine: never file:, javascript: or a custom
	// scheme a server chose.
	if err := auth.CheckBrowserURL(u); err != nil {
		return err
	}
	if reason := Headless(); reason != "" {
		return fmt.Errorf("cannot open a browser: %s", reason)
	}
	browser.Stdout, browser.Stderr = nil, nil // never onto the protocol's stdout
	if err := browser.OpenURL(u); err != nil {
		return fmt.Errorf("open the system browser: %w", err)
	}
	return nil
}

// Headless says why no browser can be opened here, or "" when one can.
func Headless() string {
	if os.Getenv("SSH_CONNECTION") != "" || os.Getenv("SSH_TTY") != "" {
		return "this is an SSH session"
	}
	if os.Getenv("MCP_HOST_NO_BROWSER") != "" {
		return "MCP_HOST_NO_BROWSER is set"
	}
	if goos == "linux" && os.Getenv("DISPLAY") == "" && os.Getenv("WAYLAND_DISPLAY") == "" {
		return "there is no display (DISPLAY and WAYLAND_DISPLAY are unset)"
	}
	return ""
}

var goos = goruntime.GOOS

// LoginOptions configure one [Manager.Login].
type LoginOptions struct {
	// NoBrowser shows the URL and takes the pasted redirect instead of
	// opening a browser.
	NoBrowser bool
	// UI overrides ManagerOptions.LoginUI for this login.
	UI LoginUI
	// Timeout bounds the wait for the browser; zero means
	// auth.DefaultLoginTimeout.
	Timeout time.Duration
}

// ErrLoginDeclined is returned (wrapped) when the person said no.
var ErrLoginDeclined = auth.ErrLoginDeclined

// ErrNoOAuth is returned (wrapped) for a login to a server that is not
// reached over HTTP.
var ErrNoOAuth = errors.New("server does not use OAuth")

// ErrLoginNotNeeded is returned (wrapped) for a login to a server that is
// ready and never asked for authorization: a login is offered only where
// a server asked for one.
var ErrLoginNotNeeded = errors.New("needs no login: it is ready and asked for no authorization")

// login is [Manager.Login] without its span (traced.go).
func (m *Manager) login(ctx context.Context, id string, opts LoginOptions) error {
	sv, err := m.server(id)
	if err != nil {
		return err
	}
	if st := sv.snapshot(); st.State == StateReady && st.Auth == "" {
		return fmt.Errorf("server %q %w", id, ErrLoginNotNeeded)
	}
	h, err := sv.authHandler()
	if err != nil {
		return err
	}
	ui := opts.UI
	if ui == nil {
		ui = m.opts.LoginUI
	}
	if ui == nil {
		return fmt.Errorf("server %q: no way to ask for a login here", id)
	}
	p := &loginPrompter{ui: ui, noBrowser: opts.NoBrowser}
	if oc := sv.entry.Config.OAuth; oc != nil {
		p.loop.Port = oc.CallbackPort
		if oc.RedirectURI != "" {
			if u, err := url.Parse(oc.RedirectURI); err == nil {
				p.loop.Path = u.Path
				if port, err := strconv.Atoi(u.Port()); err == nil {
					p.loop.Port = port
				}
			}
		}
	}
	p.loop.Timeout = opts.Timeout
	err = h.LoginWith(ctx, p)
	sv.refreshAuth()
	if err != nil {
		return loginError(id, err)
	}
	// Connecting from now on: a caller that waits for the server to
	// settle sees the reconnect, not the auth_required of before.
	sv.update(func(st *Status) { st.State, st.LastError = StateConnecting, "" })
	sv.poke()
	return nil
}

// Logout forgets a server's tokens (and its client registration with
// forgetClient), revoking them first where the authorization server
// advertises revocation; the server then waits for a login.
func (m *Manager) Logout(ctx context.Context, id string, forgetClient bool) error {
	_, err := m.LogoutWith(ctx, id, auth.LogoutOptions{ForgetClient: forgetClient, Revoke: true})
	return err
}

// LogoutWith forgets a server's tokens as o says, revoking them at the
// authorization server first when o.Revoke is set and the server
// advertises revocation (revoked reports it did). The local credentials
// are gone even when the revocation fails; the error then says why.
func (m *Manager) LogoutWith(ctx context.Context, id string, o auth.LogoutOptions) (revoked bool, err error) {
	sv, err := m.server(id)
	if err != nil {
		return false, err
	}
	h, err := sv.authHandler()
	if err != nil {
		return false, err
	}
	revoked, err = h.LogoutWith(ctx, o)
	sv.refreshAuth()
	sv.poke()
	if err != nil {
		return revoked, fmt.Errorf("server %q: %w", id, err)
	}
	return revoked, nil
}

// loginPrompter is the auth.LoginPrompter of one interactive login: it asks
// first, then opens the browser and waits on the loopback, or takes a
// pasted redirect.
type loginPrompter struct {
	ui        LoginUI
	noBrowser bool
	loop      auth.Loopback
}

func (p *loginPrompter) RedirectURI(ctx context.Context, preferred string) (string, error) {
	return p.loop.RedirectURI(ctx, preferred)
}

// Consent asks the user before anything else happens: no client
// registration, no authorization request, no browser.
func (p *loginPrompter) Consent(ctx context.Context, req *auth.LoginRequest) (bool, error) {
	ok, err := p.ui.ConfirmLogin(ctx, LoginPrompt{Server: req.ServerID, Issuer: req.Issuer})
	if err != nil {
		return false, fmt.Errorf("asking for consent: %w", err)
	}
	return ok, nil
}

// Close releases the loopback callback listener, however the login ended.
func (p *loginPrompter) Close() error { return p.loop.Close() }

func (p *loginPrompter) Login(ctx context.Context, req *auth.LoginRequest) (*auth.CallbackResult, error) {
	lp := LoginPrompt{Server: req.ServerID, Issuer: req.Issuer, URL: req.URL, RedirectURI: req.RedirectURI}
	if !p.noBrowser {
		var openErr error
		p.loop.Open = func(ctx context.Context, _ *auth.LoginRequest) error {
			openErr = p.ui.OpenURL(ctx, lp)
			return openErr
		}
		res, err := p.loop.Login(ctx, req)
		if openErr == nil {
			return res, err
		}
		// No browser: fall back to the pasted redirect.
	}
	// The paste-back: the prompt shows the URL, and the listener stays
	// bound, so a browser that does reach it (on this machine, through an
	// SSH port forward) completes the login as well as a paste does.
	p.loop.Open = func(context.Context, *auth.LoginRequest) error { return nil }
	p.loop.Paste = func(ctx context.Context, req *auth.LoginRequest) (*auth.CallbackResult, error) {
		return p.paste(ctx, lp, req)
	}
	return p.loop.Login(ctx, req)
}

// maxPastes is how many times a paste-back login asks for the address.
const maxPastes = 3

// paste asks for the redirect until a pasted text is one for this login,
// saying each time why the last one was not taken.
func (p *loginPrompter) paste(ctx context.Context, lp LoginPrompt, req *auth.LoginRequest) (*auth.CallbackResult, error) {
	var last error
	for range maxPastes {
		if last != nil {
			lp.Retry = last.Error()
		}
		pasted, err := p.ui.PromptRedirect(ctx, lp)
		if err != nil {
			return nil, fmt.Errorf("waiting for the pasted redirect: %w", err)
		}
		res, err := auth.ParsePastedRedirect(pasted, req.RedirectURI)
		if err == nil && subtle.ConstantTimeCompare([]byte(res.State), []byte(req.State)) != 1 {
			err = errors.New("the pasted address is from another login (its state differs)")
		}
		if err == nil {
			return res, nil
		}
		last = err
	}
	return nil, fmt.Errorf("no usable address in %d pastes: %w", maxPastes, last)
}

// loginError names the server once: the handler's errors already start
// with "server <id>:".
func loginError(id string, err error) error {
	if strings.HasPrefix(err.Error(), "server "+id+":") {
		return err
	}
	return fmt.Errorf("server %q: %w", id, err)
}

// authHandler returns the server's OAuth handler, creating it the first
// time. Only http and sse servers have one.
func (sv *server) authHandler() (*auth.Handler, error) {
	sv.mu.Lock()
	defer sv.mu.Unlock()
	if sv.authH != nil {
		return sv.authH, nil
	}
	e := sv.entry
	if e.Err != nil {
		return nil, e.Err
	}
	if t := e.Config.TransportName(); t == "stdio" {
		return nil, fmt.Errorf("server %q: %w (transport %s)", e.ID, ErrNoOAuth, t)
	}
	cfg, err := sv.expand()
	if err != nil {
		return nil, e.Wrap(err)
	}
	o := auth.Options{
		ServerID: e.ID, ServerURL: cfg.URL,
		Store: sv.m.opts.AuthStore, HTTPClient: sv.m.opts.AuthHTTPClient, Logger: sv.m.opts.Logger,
	}
	if oc := cfg.OAuth; oc != nil {
		o.ClientID, o.ClientSecret, o.Scope = oc.ClientID, oc.ClientSecret, oc.Scope
		o.AuthorizationURL, o.TokenURL, o.RegistrationURL = oc.AuthorizationURL, oc.TokenURL, oc.RegistrationURL
		o.ClientMetadataURL = oc.ClientMetadataURL
		if oc.Resource != nil {
			o.Resource, o.OmitResource = *oc.Resource, *oc.Resource == ""
		}
		o.Grant = oc.Grant
		o.AllowPrivateAddresses = oc.AllowPrivateAddresses
		if oc.DPoP != nil {
			o.DPoP = auth.DPoPOff
			if *oc.DPoP {
				o.DPoP = auth.DPoPRequire
			}
		}
		if oc.PrivateKeyFile != "" {
			pemKey, err := os.ReadFile(oc.PrivateKeyFile)
			if err != nil {
				return nil, e.Wrap(fmt.Errorf("field \"oauth.private_key_file\": %w", err))
			}
			o.PrivateKeyPEM = pemKey
		}
		o.AssertionFile, o.AssertionEnv = oc.AssertionFile, oc.AssertionEnv
		o.IDTokenFile, o.IDPIssuer, o.IDPTokenURL = oc.IDTokenFile, oc.IDPIssuer, oc.IDPTokenURL
		o.IDPClientID, o.IDPClientSecret = oc.IDPClientID, oc.IDPClientSecret
	}
	if o.ClientMetadataURL == "" && o.ClientID == "" {
		o.ClientMetadataURL = sv.m.opts.ClientMetadataURL
	}
	// The status follows the credentials: a background refresh moves
	// "token valid until", a rejection shows at once.
	o.OnChange = func() { go sv.refreshAuth() }
	h, err := auth.New(o)
	if err != nil {
		return nil, e.Wrap(err)
	}
	sv.authH = h
	return h, nil
}

// authStatus reads a handler's view of the credentials; tests replace it
// to hold a refresh between its read and its write.
var authStatus = (*auth.Handler).Status

// refreshAuth records the handler's view of the credentials in the status.
// It reads the token store, so it runs on the server's goroutine or in
// Login, never in a status read. Refreshes run one at a time, each from
// its read to its write: every change of the credentials starts a refresh
// after it (Login, Logout, the handler's OnChange on its own goroutine),
// so the last write is of a read made after the last change. Run side by
// side, a refresh that OnChange started before a logout wrote "logged in"
// after the logout's refresh had written "not logged in", and the status
// said so until the next change.
func (sv *server) refreshAuth() {
	sv.mu.Lock()
	h := sv.authH
	sv.mu.Unlock()
	if h == nil {
		return
	}
	sv.authRefresh.Lock()
	defer sv.authRefresh.Unlock()
	ctx, cancel := context.WithTimeout(sv.ctx, 10*time.Second)
	defer cancel()
	st, err := authStatus(h, ctx)
	if sv.ctx.Err() != nil {
		return // stopped meanwhile: nobody reads this server's status now
	}
	sv.update(func(s *Status) {
		s.AuthStorage = sv.m.opts.AuthStorage
		if err != nil {
			s.Auth, s.AuthLoggedIn, s.AuthValidUntil = "token store: "+err.Error(), false, time.Time{}
			return
		}
		s.AuthLoggedIn, s.AuthValidUntil = st.LoggedIn, st.ExpiresAt
		bound := ""
		if st.DPoP {
			bound = " (DPoP-bound)"
		}
		switch {
		case !st.LoggedIn && st.Reason == "" && st.Issuer == "":
			s.Auth, s.AuthStorage = "", "" // the server never asked for authorization
		case st.LoggedIn && !st.ExpiresAt.IsZero():
			s.Auth = "token valid until " + st.ExpiresAt.Local().Format("2006-01-02 15:04:05 MST") + bound
		case st.LoggedIn:
			s.Auth = "logged in" + bound
		case st.Reason != "":
			s.Auth = st.Reason
		default:
			s.Auth = "not logged in"
		}
	})
}
