package serve

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/mcp-host/mcp-host/protocol"
	"github.com/mcp-host/mcp-host/runtime/hostfetch"
	"github.com/mcp-host/mcp-host/runtime/session"
)

// failed names the server and the request once, in front, whatever form
// of the session's context the error already opens with (issue 36: a
// missing resource read `server "everything": resources/read URI: server
// "everything": resources/read "URI": …`).
func TestFailedSaysContextOnce(t *testing.T) {
	const uri = "demo://resource/static/document/x.md"
	rpc := fmt.Errorf(`server "everything": resources/read %q: calling "resources/read": %w`, uri,
		errors.New("MCP error -32602: Resource "+uri+" not found"))
	exited := fmt.Errorf("%w; stderr: boom", &session.ExitedError{Server: "everything", Method: "resources/read", Target: uri, Status: "exit status 1", Err: io.EOF})
	for _, c := range []struct {
		name           string
		method, target string
		err            error
		want           string
	}{
		{"server's error", "resources/read", uri, rpc,
			`server "everything": resources/read "` + uri + `": MCP error -32602: Resource ` + uri + ` not found`},
		{"prompt", "prompts/get", "nope", errors.New(`server "everything": prompts/get "nope": calling "prompts/get": MCP error -32602: Prompt nope not found`),
			`server "everything": prompts/get "nope": MCP error -32602: Prompt nope not found`},
		{"list", "prompts/list", "", errors.New(`server "everything": prompts/list: timed out (request timeout 30s): context deadline exceeded`),
			`server "everything": prompts/list: timed out (request timeout 30s): context deadline exceeded`},
		{"list cycle", "resources/list", "", errors.New(`server "everything": resources/list: cursor "c" repeated (cycle); stopped`),
			`server "everything": resources/list: cursor "c" repeated (cycle); stopped`},
		{"lost during the request", "resources/read", uri, errors.New(`resources/read "` + uri + `" failed: server "everything": connection lost: EOF`),
			`server "everything": resources/read "` + uri + `": connection lost: EOF`},
		{"lost before", "resources/subscribe", uri, errors.New(`server "everything": connection lost: EOF`),
			`server "everything": resources/subscribe "` + uri + `": connection lost: EOF`},
		{"no capability", "resources/subscribe", uri, errors.New(`server "everything" does not offer resource subscriptions`),
			`server "everything": resources/subscribe "` + uri + `": does not offer resource subscriptions`},
		{"exited", "resources/read", uri, exited, exited.Error()},
		{"too large", "resources/read", uri,
			fmt.Errorf("server %q: %w", "everything", &hostfetch.TooLargeError{URI: uri, Limit: 10,
				Err: errors.New(`server "everything": resources/read "` + uri + `": calling "resources/read": the answer exceeds 84 bytes`)}),
			`server "everything": resources/read "` + uri + `": over the bound of 10 bytes; refused, the answer cut where it passed it (the answer exceeds 84 bytes)`},
		{"host's own error", "resources/read", uri, errors.New(`resource "x": the server sent no result`),
			`server "everything": resources/read "` + uri + `": resource "x": the server sent no result`},
		// Another server's context is not this server's: kept, after it.
		{"other server", "prompts/get", "p", errors.New(`server "other": prompts/get "p": no`),
			`server "everything": prompts/get "p": server "other": prompts/get "p": no`},
		// What a server wrote cannot pass for the context: it comes after.
		{"server's words", "prompts/get", "p", errors.New(`server "everything": prompts/get "p": calling "prompts/get": server "everything": prompts/get "p": x`),
			`server "everything": prompts/get "p": server "everything": prompts/get "p": x`},
		{"control characters", "prompts/get", "a\x1b[2Jb", errors.New("boom\x1b]0;t\x07"),
			`server "everything": prompts/get "a\x1b[2Jb": boom`},
	} {
		err := failed("everything", c.method, c.target, c.err)
		var perr *protocol.Error
		if !errors.As(err, &perr) || perr.Code != protocol.CodeFailed || protocol.DataOf(err).Server != "everything" {
			t.Errorf("%s: failed = %#v, want a failed error about everything", c.name, err)
			continue
		}
		if perr.Message != c.want {
			t.Errorf("%s:\n got %q\nwant %q", c.name, perr.Message, c.want)
		}
		if c.name != "other server" && c.name != "server's words" && strings.Count(perr.Message, `server "everything"`) != 1 {
			t.Errorf("%s: %q names the server more than once", c.name, perr.Message)
		}
	}
}
