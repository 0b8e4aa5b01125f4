package serve

import (
	"context"
	"errors"
	"fmt"

	"github.com/mcp-host/mcp-host/displayurl"
	"github.com/mcp-host/mcp-host/protocol"
	"github.com/mcp-host/mcp-host/runtime"
	"github.com/mcp-host/mcp-host/runtime/auth"
)

// MCPLogin runs an interactive OAuth login for a server: consent through
// ui.confirm.request, then the browser (the UI's, with open_url) or the
// pasted redirect through ui.prompt.request.
func (s *service) MCPLogin(ctx context.Context, p *protocol.LoginParams) (*protocol.ServerResult, error) {
	if _, err := s.status(p.ID); err != nil {
		return nil, err
	}
	err := s.m.Login(ctx, p.ID, runtime.LoginOptions{NoBrowser: p.NoBrowser, UI: serveLoginUI{s}})
	switch {
	case errors.Is(err, runtime.ErrLoginDeclined):
		return nil, protocol.Errorf(protocol.CodeCancelled, "%v", err)
	case errors.Is(err, runtime.ErrNoOAuth), errors.Is(err, runtime.ErrLoginNotNeeded):
		return nil, protocol.Errorf(protocol.CodeInvalidParams, "%v", err)
	case err != nil:
		return nil, protocol.Errorf(protocol.CodeFailed, "%v", err)
	}
	return s.serverResult(p.ID)
}

// MCPLogout forgets a server's tokens.
func (s *service) MCPLogout(ctx context.Context, p *protocol.LogoutParams) (*protocol.ServerResult, error) {
	if _, err := s.status(p.ID); err != nil {
		return nil, err
	}
	// The server reconnects without its tokens: the answer and every
	// status from now on say connecting until the manager reports where it
	// lands (auth_required).
	s.markReconnecting(p.ID)
	err := s.m.Logout(ctx, p.ID, p.ForgetClient)
	if err != nil {
		s.unmarkReconnecting(p.ID)
	}
	if errors.Is(err, runtime.ErrNoOAuth) {
		return nil, protocol.Errorf(protocol.CodeInvalidParams, "%v", err)
	}
	if err != nil {
		return nil, protocol.Errorf(protocol.CodeFailed, "%v", err)
	}
	return s.serverResult(p.ID)
}

// serveLoginUI is the LoginUI of `host serve`: it asks the UI.
type serveLoginUI struct{ s *service }

func (u serveLoginUI) caps() protocol.UICapabilities {
	u.s.mu.Lock()
	defer u.s.mu.Unlock()
	return u.s.caps
}

func (u serveLoginUI) ConfirmLogin(ctx context.Context, p runtime.LoginPrompt) (bool, error) {
	if !u.caps().Confirm {
		return false, errors.New("the UI cannot confirm a login (it did not declare confirm)")
	}
	issuer, host := issuerForms(p.Issuer)
	res, err := u.s.ui.Confirm(ctx, &protocol.ConfirmParams{
		Kind:    protocol.ConfirmKindLogin,
		Title:   fmt.Sprintf("Log in to %s?", p.Server),
		Message: fmt.Sprintf("MCP server %q needs you to log in at %s. Open the login page in a browser?", p.Server, issuer),
		Options: []string{protocol.AnswerYes, protocol.AnswerNo},
		Login:   &protocol.ConfirmLogin{Server: p.Server, Issuer: p.Issuer, IssuerDisplay: issuer, IssuerHost: host, URL: p.URL},
		// The person may need time to read; the login wait has its own bound.
		TimeoutMS: auth.DefaultLoginTimeout.Milliseconds(),
	})
	if err != nil {
		return false, err
	}
	return res.Answer == protocol.AnswerYes, nil
}

func (u serveLoginUI) OpenURL(ctx context.Context, p runtime.LoginPrompt) error {
	if !u.caps().OpenURL {
		return runtime.OpenBrowser(p.URL)
	}
	shown, err := displayForm(p.URL)
	if err != nil {
		return fmt.Errorf("the login page: %w", err)
	}
	res, err := u.s.ui.OpenURL(ctx, &protocol.OpenURLParams{URL: p.URL, DisplayForm: shown, Server: p.Server, Purpose: "login"})
	if err != nil {
		return err
	}
	if !res.Opened {
		return errors.New("the UI could not open the URL")
	}
	return nil
}

func (u serveLoginUI) PromptRedirect(ctx context.Context, p runtime.LoginPrompt) (string, error) {
	if !u.caps().Prompt {
		return "", errors.New("no browser could open and the UI cannot prompt for the redirect URL (it did not declare prompt)")
	}
	shown, err := displayForm(p.URL)
	if err != nil {
		return "", fmt.Errorf("the login page: %w", err)
	}
	msg := "Open this URL in a browser and log in. The browser then ends on an address starting with " + p.RedirectURI + " (the page may fail to load): paste that whole address here."
	if p.Retry != "" {
		msg = "That was not the address the login ends on (" + p.Retry + "). " + msg
	}
	res, err := u.s.ui.Prompt(ctx, &protocol.PromptParams{
		Title:       fmt.Sprintf("Log in to %s", p.Server),
		Message:     msg,
		URL:         p.URL,
		DisplayForm: shown,
		TimeoutMS:   auth.DefaultLoginTimeout.Milliseconds(),
	})
	if err != nil {
		return "", err
	}
	if res.Cancelled {
		return "", runtime.ErrLoginDeclined
	}
	return res.Value, nil
}

// issuerForms are the authorization server's identity as a person is shown
// it in a login's consent: the issuer's display form and its host (see
// [protocol.DisplayForm]). An issuer that displayurl refuses is quoted,
// marked as refused, with no host.
func issuerForms(issuer string) (shown, host string) {
	if issuer == "" {
		return "", ""
	}
	u, err := displayurl.Parse(issuer)
	if err != nil {
		return displayurl.Text(issuer), ""
	}
	return u.Display, u.HostText()
}
