package main

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/mcp-host/mcp-host/displayurl"
	"github.com/mcp-host/mcp-host/runtime"
	"github.com/mcp-host/mcp-host/runtime/approval"
	"github.com/mcp-host/mcp-host/runtime/auth"
	"github.com/mcp-host/mcp-host/runtime/config"
	"github.com/mcp-host/mcp-host/termsafe"
)

// oneShotGrace is how long a stdio server of a CLI command may take to
// exit after its stdin closes, and again after SIGTERM, before its process
// group is killed. The command's answer is printed by then: a server that
// ignores stdin closing must not hold it for the runtime's 2 s grace.
const oneShotGrace = 50 * time.Millisecond

// managerOptions are the options every CLI manager uses: the persistent
// token store and the terminal for logins. The store is opened (and the
// keyring probed) once per process, quietly: a keyring that is not there
// is reported by host mcp get's storage line, and by one warning when a
// token is first stored in the file instead.
func (c *cli) managerOptions() runtime.ManagerOptions {
	o := runtime.ManagerOptions{MaxBackoff: time.Hour, LoginUI: terminalLoginUI{c}, ShutdownGrace: oneShotGrace, OneShot: true}
	if c.store == nil && c.storeErr == nil {
		c.store, c.storeErr = openTokenStore(c.global, func(w string) { c.warnf("%s", w) })
		if c.storeErr != nil {
			c.warnf("token store: %v (tokens are kept for this command only)", c.storeErr)
		}
	}
	if c.store != nil {
		o.AuthStore, o.AuthStorage = c.store, c.store.Describe()
	}
	o.Approvals = c.approvals()
	o.Sandbox = sandboxOptions(c.global, c.project)
	return o
}

// approvals opens the user's approvals of project-defined servers once.
// An unreadable file is a warning: nothing is approved then, and project
// servers do not start.
func (c *cli) approvals() *approval.Store {
	if c.approvalStore == nil {
		s, err := openApprovals(c.global)
		if err != nil {
			c.warnf("%v (project servers stay unapproved)", err)
		}
		c.approvalStore = s
	}
	return c.approvalStore
}

// openApprovals opens approvals.json next to the global config; on error
// it returns the error and an empty in-memory store.
func openApprovals(globalConfig string) (*approval.Store, error) {
	s, err := approval.OpenStore(approval.DefaultPath(globalConfig))
	if err != nil {
		mem, _ := approval.OpenStore("")
		return mem, err
	}
	return s, nil
}

// terminalLoginUI asks on the terminal and opens the system browser. The
// issuer and the URLs come from the MCP server's and the authorization
// server's metadata: both are shown in their display form (displayurl:
// the host in ASCII form, so a look-alike host shows as the punycode it
// is), never cut (the person copies them; the display form opens the same
// page).
type terminalLoginUI struct{ c *cli }

func (u terminalLoginUI) ConfirmLogin(_ context.Context, p runtime.LoginPrompt) (bool, error) {
	fmt.Fprintf(u.c.stderr, "Server %q needs you to log in at %s.\nOpen the login page? [Y/n] ", termsafe.Strip(p.Server), displayurl.Text(p.Issuer))
	a, err := u.c.readLine()
	if err != nil {
		return false, fmt.Errorf("no answer on stdin: %w", err)
	}
	a = strings.ToLower(a)
	return a == "" || a == "y" || a == "yes", nil
}

func (u terminalLoginUI) OpenURL(_ context.Context, p runtime.LoginPrompt) error {
	if err := runtime.OpenBrowser(p.URL); err != nil {
		return err
	}
	fmt.Fprintf(u.c.stderr, "Opened your browser. If it did not open, visit:\n  %s\nWaiting for the login to finish (at most 5 minutes)...\n", displayurl.Text(p.URL))
	return nil
}

func (u terminalLoginUI) PromptRedirect(ctx context.Context, p runtime.LoginPrompt) (string, error) {
	if p.Retry != "" {
		fmt.Fprintf(u.c.stderr, "That was not it: %s.\nPaste the whole address the browser ended on (it starts with %s): ", termsafe.Line(p.Retry), termsafe.Strip(p.RedirectURI))
	} else {
		fmt.Fprintf(u.c.stderr, "Open this URL in a browser and log in:\n  %s\nThe browser then ends on an address starting with %s (the page may not load).\nPaste that whole address here: ", displayurl.Text(p.URL), termsafe.Strip(p.RedirectURI))
	}
	// A browser that reaches the callback ends the wait for the paste.
	type line struct {
		s   string
		err error
	}
	got := make(chan line, 1)
	go func() {
		s, err := u.c.readLine()
		got <- line{s, err}
	}()
	select {
	case l := <-got:
		return l.s, l.err
	case <-ctx.Done():
		if errors.Is(ctx.Err(), context.Canceled) {
			fmt.Fprint(u.c.stderr, "\nThe browser reached the callback: nothing to paste.")
		}
		fmt.Fprintln(u.c.stderr)
		return "", ctx.Err()
	}
}

func (c *cli) login(args []string) int {
	fs := newFlagSet("login", c.stderr)
	noBrowser := fs.Bool("no-browser", false, "print the URL and paste the redirect back instead of opening a browser")
	pos, code := c.parseFlags(fs, args)
	if code >= 0 {
		return code
	}
	if len(pos) != 1 {
		return c.failf(exitUsage, "login: want one server id")
	}
	e, _, err := c.entry(pos[0])
	if err != nil {
		return c.failf(exitUsage, "login: %v", err)
	}
	m, st := c.connectOne(e, connectHow{force: true})
	defer m.Close()
	if st.State == runtime.StateReady && st.AuthLoggedIn {
		fmt.Fprintf(c.stdout, "%s: already logged in (%s)\n", termsafe.Line(e.ID), termsafe.LineMax(st.Auth, maxErrorLine))
		return exitOK
	}
	err = m.Login(context.Background(), e.ID, runtime.LoginOptions{NoBrowser: *noBrowser})
	switch {
	case errors.Is(err, runtime.ErrLoginDeclined):
		return c.failf(exitAuthRequired, "login: %v", err)
	case errors.Is(err, runtime.ErrLoginNotNeeded):
		fmt.Fprintf(c.stdout, "%s: %v\n", termsafe.Line(e.ID), runtime.ErrLoginNotNeeded)
		return exitOK
	case errors.Is(err, runtime.ErrNoOAuth):
		return c.failf(exitUsage, "login: %v", err)
	case err != nil:
		return c.failf(exitFailure, "login: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), e.Config.StartupTimeout()+5*time.Second)
	defer cancel()
	m.WaitSettled(ctx, e.ID)
	st, _ = m.Get(e.ID)
	fmt.Fprintf(c.stdout, "%s: logged in; %s; %s with %d tools\n", termsafe.Line(e.ID), termsafe.LineMax(st.Auth, maxErrorLine), st.State, st.Tools)
	if st.AuthStorage != "" {
		fmt.Fprintf(c.stdout, "tokens kept in: %s\n", termsafe.Line(st.AuthStorage))
	}
	return exitFor(st)
}

func (c *cli) logout(args []string) int {
	fs := newFlagSet("logout", c.stderr)
	forget := fs.Bool("forget-client", false, "also forget the client registration")
	pos, code := c.parseFlags(fs, args)
	if code >= 0 {
		return code
	}
	if len(pos) != 1 {
		return c.failf(exitUsage, "logout: want one server id")
	}
	e, _, err := c.entry(pos[0])
	if err != nil {
		return c.failf(exitUsage, "logout: %v", err)
	}
	m := runtime.NewManager(c.managerOptions())
	defer m.Close()
	m.Apply([]config.ServerEntry{e})
	if err := m.Logout(context.Background(), e.ID, *forget); err != nil {
		if errors.Is(err, runtime.ErrNoOAuth) {
			return c.failf(exitUsage, "logout: %v", err)
		}
		return c.failf(exitFailure, "logout: %v", err)
	}
	what := "tokens"
	if *forget {
		what = "tokens and client registration"
	}
	fmt.Fprintf(c.stdout, "%s: logged out (%s forgotten)\n", termsafe.Line(e.ID), what)
	return exitOK
}

// forgetCredentials deletes (and revokes, where the authorization server
// offers it) the tokens and client registration of a removed server, unless
// another layer still defines the same server at the same URL: a 14-day
// refresh token must not outlive the server it was for.
func (c *cli) forgetCredentials(removed config.ServerEntry) {
	if removed.ID == "" || removed.Config.TransportName() == "stdio" {
		return
	}
	if e, _, err := c.entry(removed.ID); err == nil && e.Config.URL == removed.Config.URL {
		return // still defined elsewhere, with the same tokens
	}
	off := false
	removed.Config.Enabled = &off // no connection: only its credentials
	m := runtime.NewManager(c.managerOptions())
	defer m.Close()
	m.Apply([]config.ServerEntry{removed})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	revoked, err := m.LogoutWith(ctx, removed.ID, auth.LogoutOptions{ForgetClient: true, Revoke: true})
	switch {
	case err != nil && !errors.Is(err, auth.ErrRevocationFailed):
		c.warnf("%s: its stored credentials could not be deleted: %v", removed.ID, err)
	case err != nil:
		c.warnf("%v (the stored credentials were deleted)", err)
	case revoked:
		fmt.Fprintf(c.stdout, "deleted its stored credentials and revoked its refresh token at the authorization server\n")
	default:
		fmt.Fprintf(c.stdout, "deleted its stored credentials (if any)\n")
	}
}
