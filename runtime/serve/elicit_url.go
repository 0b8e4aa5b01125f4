package serve

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/mcp-host/mcp-host/displayurl"
	"github.com/mcp-host/mcp-host/protocol"
	"github.com/mcp-host/mcp-host/runtime"
	"github.com/mcp-host/mcp-host/runtime/auth"
	"github.com/mcp-host/mcp-host/termsafe"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// urlElicitTimeout bounds the wait for the user's consent to open an
// elicitation's page.
const urlElicitTimeout = 5 * time.Minute

// maxOpenedPerServer bounds the URL-mode elicitations a server may have
// waiting for their completion notice; the oldest is forgotten first.
const maxOpenedPerServer = 16

// elicitURL handles a URL-mode elicitation (MCP elicitation/create with
// mode "url"): the server asks the user to continue on one of its pages.
// The page is never opened without the user's consent: the UI is asked
// with a confirm of kind elicitation, and only a yes opens it (through the
// UI's open_url, or the system browser for a UI without it). Only https
// URLs and http URLs on loopback are ever shown or opened; anything else
// is declined without asking. The answer is accept once the page was
// opened, decline otherwise.
func (s *service) elicitURL(ctx context.Context, server string, p *mcp.ElicitParams) (*mcp.ElicitResult, error) {
	decline := &mcp.ElicitResult{Action: "decline"}
	if termsafe.Line(p.URL) != p.URL {
		// A control or invisible character would make the URL shown
		// differ from the URL opened.
		s.logUI("warn", server, "declined a request to open a page: its URL has control or invisible characters")
		return decline, nil
	}
	if err := auth.CheckBrowserURL(p.URL); err != nil {
		s.log.Warn("elicitation: declined a URL-mode request", "server", server, "error", err)
		s.logUI("warn", server, fmt.Sprintf("declined a request to open a page: %v", err))
		return decline, nil
	}
	shown, err := displayForm(p.URL)
	if err != nil { // CheckBrowserURL has checked it: never here
		return decline, nil
	}
	s.mu.Lock()
	caps := s.caps
	ready := s.initialized
	s.mu.Unlock()
	if !ready || !caps.Confirm {
		// No consent can be asked for, so nothing is opened.
		return decline, nil
	}
	msg := termsafe.Sanitize(p.Message, termsafe.Options{MultiLine: true, Max: 1000})
	id := termsafe.LineMax(p.ElicitationID, 128)
	ctx, cancel := context.WithTimeout(ctx, urlElicitTimeout)
	defer cancel()
	res, err := s.ui.Confirm(ctx, &protocol.ConfirmParams{
		Kind:    protocol.ConfirmKindElicitation,
		Title:   fmt.Sprintf("Open a page for %s?", server),
		Message: fmt.Sprintf("MCP server %q asks you to continue on %s (%s). Open it in a browser?", server, shown.DisplayHost, shown.DisplayURL),
		Options: []string{protocol.AnswerYes, protocol.AnswerNo},
		Elicitation: &protocol.ConfirmElicitation{
			Server: server, URL: p.URL, DisplayForm: shown, Message: msg, ElicitationID: id,
		},
		TimeoutMS: urlElicitTimeout.Milliseconds(),
	})
	if err != nil {
		s.log.Warn("elicitation: the UI did not answer; declining", "server", server, "error", err)
		return decline, nil
	}
	if res.Answer != protocol.AnswerYes {
		return decline, nil
	}
	if id != "" {
		// Registered before the page opens: the server may finish as soon
		// as the user has.
		s.opened.add(server, id)
	}
	if err := s.openElicitationPage(ctx, caps.OpenURL, server, p.URL, shown, msg, id); err != nil {
		s.opened.take(server, id)
		s.logUI("warn", server, fmt.Sprintf("could not open the page the server asked for: %v", err))
		return decline, nil
	}
	return &mcp.ElicitResult{Action: "accept"}, nil
}

// openElicitationPage opens an elicitation's page the user agreed to:
// through the UI when it declared open_url, else in the system browser.
func (s *service) openElicitationPage(ctx context.Context, uiOpens bool, server, url string, shown protocol.DisplayForm, msg, id string) error {
	if !uiOpens {
		return runtime.OpenBrowser(url)
	}
	res, err := s.ui.OpenURL(ctx, &protocol.OpenURLParams{
		URL: url, DisplayForm: shown, Server: server, Purpose: protocol.OpenURLElicitation, Message: msg, ElicitationID: id,
	})
	if err != nil {
		return fmt.Errorf("ask the UI to open it: %w", err)
	}
	if !res.Opened {
		return fmt.Errorf("the UI could not open it")
	}
	return nil
}

// displayForm is the form of raw the UI shows ([protocol.DisplayForm]),
// or the reason raw must not be shown (displayurl.Parse's).
func displayForm(raw string) (protocol.DisplayForm, error) {
	u, err := displayurl.Parse(raw)
	if err != nil {
		return protocol.DisplayForm{}, fmt.Errorf("a URL a person cannot judge: %w", err)
	}
	return protocol.DisplayForm{DisplayURL: u.Display, DisplayHost: u.HostText()}, nil
}

// elicitationComplete tells the UI that a server finished an elicitation
// whose page the user opened. A completion for any other id (one the user
// declined, another server's, or one never asked) is dropped: a server
// cannot make the UI show notices of its own choosing.
func (s *service) elicitationComplete(server, id string) {
	if !s.opened.take(server, id) {
		s.log.Debug("elicitation: ignored a completion for an unknown elicitation", "server", server)
		return
	}
	s.enqueue(func() {
		_ = s.conn.Notify(protocol.MethodElicitationComplete, &protocol.ElicitationCompleteParams{Server: server, ElicitationID: id})
	})
}

// openedElicitations holds, per server, the ids of the URL-mode
// elicitations whose page the user opened and whose completion has not
// been seen yet; at most [maxOpenedPerServer] per server.
type openedElicitations struct {
	mu  sync.Mutex
	ids map[string][]string
}

func (o *openedElicitations) add(server, id string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.ids == nil {
		o.ids = map[string][]string{}
	}
	list := append(o.ids[server], id)
	if len(list) > maxOpenedPerServer {
		list = list[len(list)-maxOpenedPerServer:]
	}
	o.ids[server] = list
}

// take removes id from server's list and reports whether it was there.
func (o *openedElicitations) take(server, id string) bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	list := o.ids[server]
	for i, v := range list {
		if v == id {
			o.ids[server] = append(list[:i:i], list[i+1:]...)
			return true
		}
	}
	return false
}
