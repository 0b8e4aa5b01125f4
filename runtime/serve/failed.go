package serve

import (
	"errors"
	"fmt"
	"strings"

	"github.com/mcp-host/mcp-host/protocol"
	"github.com/mcp-host/mcp-host/runtime/hostfetch"
	"github.com/mcp-host/mcp-host/runtime/session"
	"github.com/mcp-host/mcp-host/termsafe"
)

// failed is the error answer of server's request method on target (a
// resource's URI, a prompt's name, the argument completed; "" for none)
// that the server could not carry out. Its message is [saidOnce].
func failed(server, method, target string, err error) error {
	return protocol.NewError(protocol.CodeFailed, protocol.ErrorData{Server: server}, "%s", saidOnce(server, method, target, err))
}

// saidOnce is err's message naming the server and the request once, in
// front, as the session names them: `server "S": resources/read "URI":
// what happened`. The session's errors already open with that context
// (session.requestErr), and wrapping them in it again said it twice; the
// context is taken off the front of err's message (in any of the forms
// the session writes it: see contextForms), then put back once.
//
// Two errors are recognised by their type: a [session.ExitedError] says
// `server "S" exited during resources/read "URI" (…)` and is kept whole;
// a [hostfetch.TooLargeError] (a read refused for its size, which
// resources.Read prefixes with the server and which wraps the session's
// error) says its summary, then the session's words without their context.
//
// The session has no typed error for the context it adds (a
// requestErr-made error is a plain wrapped error), so the forms are
// matched at the front of the message only: what a server wrote comes
// after the session's context, so a server cannot make its words pass for
// it.
func saidOnce(server, method, target string, err error) string {
	named := fmt.Sprintf("server %q", server)
	what := method
	if target != "" {
		what = fmt.Sprintf("%s %q", method, target)
	}
	head := named + ": " + what + ": "
	msg := err.Error()
	var exited *session.ExitedError
	var big *hostfetch.TooLargeError
	switch {
	case errors.As(err, &exited) && exited.Server == server && strings.HasPrefix(msg, named+" exited during "):
		// Names the server and the request in its own words.
	case errors.As(err, &big):
		msg = head + big.Summary()
		if big.Err != nil {
			msg += " (" + afterContext(named, method, what, big.Err.Error()) + ")"
		}
	default:
		msg = head + afterContext(named, method, what, msg)
	}
	return termsafe.Line(msg)
}

// afterContext returns msg without the context of the request it opens
// with: the first of contextForms it opens with, then the MCP SDK's
// `calling "method": ` that may follow (the session folds the SDK's other
// layers, not that one).
func afterContext(named, method, what, msg string) string {
	for _, open := range contextForms(named, method, what) {
		if rest, ok := strings.CutPrefix(msg, open); ok {
			msg = rest
			break
		}
	}
	return strings.TrimPrefix(msg, fmt.Sprintf("calling %q: ", method))
}

// contextForms are the openings the session gives a request's error,
// the longest first: the request's (`server "S": resources/read "URI": `,
// or without the target), a lost connection's (`resources/read "URI"
// failed: server "S": `), and the server's alone (`server "S": connection
// lost: …`, `server "S" does not offer …`).
func contextForms(named, method, what string) []string {
	return []string{
		named + ": " + what + ": ",
		named + ": " + method + ": ",
		what + " failed: " + named + ": ",
		named + ": ",
		named + " ",
	}
}
