package servers

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
)

// DefaultTokenLifetime is the access-token lifetime of the demo.
const DefaultTokenLifetime = 10 * time.Minute

// Options configure [Start].
type Options struct {
	// AutoApprove makes the consent page approve at once, for unattended
	// runs: the authorization endpoint redirects with a code immediately.
	AutoApprove bool
	// TokenLifetime is the access-token lifetime; zero means
	// DefaultTokenLifetime.
	TokenLifetime time.Duration
	// Logger receives the servers' logs (never a token); nil discards them.
	Logger *slog.Logger
}

// Env is the running demo: an authorization server and a protected MCP
// server, each on its own loopback port.
type Env struct {
	// MCPURL is the protected MCP endpoint.
	MCPURL string
	// IssuerURL is the authorization server.
	IssuerURL string
	// Auth is the authorization server, for counters and revocation.
	Auth *AuthServer

	servers []*http.Server
}

// Registrations counts dynamic client registrations so far.
func (e *Env) Registrations() int { return e.Auth.Registrations() }

// TokensIssued counts access tokens issued so far.
func (e *Env) TokensIssued() int { return e.Auth.TokensIssued() }

// Close stops both servers.
func (e *Env) Close() error {
	var errs []error
	for _, s := range e.servers {
		errs = append(errs, s.Close())
	}
	return errors.Join(errs...)
}

// Start runs the demo's authorization server and protected MCP server on
// 127.0.0.1. Close the Env when done.
func Start(ctx context.Context, o Options) (*Env, error) {
	if o.TokenLifetime <= 0 {
		o.TokenLifetime = DefaultTokenLifetime
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	asLn, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("demo authorization server: %w", err)
	}
	rsLn, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		asLn.Close()
		return nil, fmt.Errorf("demo MCP server: %w", err)
	}
	env := &Env{
		IssuerURL: "http://" + asLn.Addr().String(),
		MCPURL:    "http://" + rsLn.Addr().String() + "/mcp",
	}
	env.Auth = newAuthServer(env.IssuerURL, env.MCPURL, o.AutoApprove, o.TokenLifetime, o.Logger)
	rs := newResourceServer(env.MCPURL, env.IssuerURL, env.Auth, o.Logger)
	for _, p := range []struct {
		ln net.Listener
		h  http.Handler
	}{{asLn, env.Auth.Handler()}, {rsLn, rs}} {
		srv := &http.Server{Handler: p.h, ReadHeaderTimeout: 10 * time.Second}
		env.servers = append(env.servers, srv)
		go func() { _ = srv.Serve(p.ln) }()
	}
	return env, nil
}

// newResourceServer is the protected MCP server: Streamable HTTP behind a
// bearer-token check, with RFC 9728 metadata naming the authorization
// server.
func newResourceServer(mcpURL, issuer string, as *AuthServer, log *slog.Logger) http.Handler {
	server := mcp.NewServer(&mcp.Implementation{Name: "mcp-host-demo-notes", Version: "1.0.0"}, nil)
	addNotesTools(server)
	prmURL := strings.TrimSuffix(mcpURL, "/mcp") + "/.well-known/oauth-protected-resource/mcp"
	verify := func(_ context.Context, token string, _ *http.Request) (*auth.TokenInfo, error) {
		scopes, exp, err := as.Verify(token, mcpURL)
		if err != nil {
			log.Info("demo MCP server: rejected a token", "reason", err.Error(), "token", fingerprint(token))
			return nil, fmt.Errorf("%w: %v", auth.ErrInvalidToken, err)
		}
		return &auth.TokenInfo{Scopes: scopes, Expiration: exp}, nil
	}
	protected := auth.RequireBearerToken(verify, &auth.RequireBearerTokenOptions{ResourceMetadataURL: prmURL, Scopes: []string{Scope}})(
		mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server }, nil))
	prm := auth.ProtectedResourceMetadataHandler(&oauthex.ProtectedResourceMetadata{
		Resource:               mcpURL,
		AuthorizationServers:   []string{issuer},
		ScopesSupported:        []string{Scope},
		BearerMethodsSupported: []string{"header"},
		ResourceName:           "mcp-host demo notes",
	})
	mux := http.NewServeMux()
	mux.Handle("/mcp", protected)
	mux.Handle("/.well-known/oauth-protected-resource/mcp", prm)
	mux.Handle("/.well-known/oauth-protected-resource", prm)
	return mux
}

// weather is canned: the demo never reaches the network.
var weather = map[string]string{
	"paris":    "12°C, light rain, wind 15 km/h from the west",
	"london":   "9°C, overcast",
	"new york": "4°C, clear and cold",
	"tokyo":    "16°C, sunny",
}

type weatherArgs struct {
	City string `json:"city" jsonschema:"the city, e.g. Paris"`
}

type noteArgs struct {
	Text string `json:"text" jsonschema:"the note to keep"`
}

type noArgs struct{}

type countArgs struct {
	To int `json:"to" jsonschema:"count from 1 to this number (at most 10), one per 200 ms"`
}

func addNotesTools(s *mcp.Server) {
	var mu sync.Mutex
	var notes []string
	yes, no := true, false
	mcp.AddTool(s, &mcp.Tool{Name: "get_weather", Title: "Weather", Description: "Current weather for a city (canned demo data: Paris, London, New York, Tokyo).",
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: &no}},
		func(_ context.Context, _ *mcp.CallToolRequest, a weatherArgs) (*mcp.CallToolResult, any, error) {
			w, ok := weather[strings.ToLower(strings.TrimSpace(a.City))]
			if !ok {
				return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: "no demo weather for " + a.City + "; try Paris, London, New York or Tokyo"}}}, nil, nil
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: a.City + ": " + w}}}, nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "add_note", Title: "Add a note", Description: "Keeps a short note in the demo server's memory.",
		Annotations: &mcp.ToolAnnotations{DestructiveHint: &no, OpenWorldHint: &no}},
		func(_ context.Context, _ *mcp.CallToolRequest, a noteArgs) (*mcp.CallToolResult, any, error) {
			mu.Lock()
			notes = append(notes, a.Text)
			n := len(notes)
			mu.Unlock()
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: fmt.Sprintf("saved note #%d", n)}}}, nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "list_notes", Title: "List notes", Description: "Lists the notes kept so far.",
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true, IdempotentHint: true}},
		func(_ context.Context, _ *mcp.CallToolRequest, _ noArgs) (*mcp.CallToolResult, any, error) {
			mu.Lock()
			list := append([]string(nil), notes...)
			mu.Unlock()
			sort.Strings(list)
			text := "no notes yet"
			if len(list) > 0 {
				text = "- " + strings.Join(list, "\n- ")
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}, nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "count_slowly", Title: "Count slowly", Description: "Counts up, reporting progress; takes a moment. Good for trying cancellation.",
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true, DestructiveHint: &no, OpenWorldHint: &yes}},
		func(ctx context.Context, req *mcp.CallToolRequest, a countArgs) (*mcp.CallToolResult, any, error) {
			n := min(max(a.To, 1), 10)
			for i := 1; i <= n; i++ {
				select {
				case <-ctx.Done():
					return nil, nil, ctx.Err()
				case <-time.After(200 * time.Millisecond):
				}
				if tok := req.Params.GetProgressToken(); tok != nil {
					_ = req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: tok, Progress: float64(i), Total: float64(n)})
				}
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: fmt.Sprintf("counted to %d", n)}}}, nil, nil
		})
}

// ServeStdio runs the demo's local MCP server on stdin and stdout until
// the client closes stdin.
func ServeStdio(ctx context.Context) error {
	s := mcp.NewServer(&mcp.Implementation{Name: "mcp-host-demo-local", Version: "1.0.0"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "time_now", Title: "Time", Description: "The local date and time of this machine.",
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true, IdempotentHint: false}},
		func(context.Context, *mcp.CallToolRequest, noArgs) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: time.Now().Format("Monday 2 January 2006, 15:04 MST")}}}, nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "word_count", Title: "Word count", Description: "Counts the words of a text.",
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true, IdempotentHint: true}},
		func(_ context.Context, _ *mcp.CallToolRequest, a noteArgs) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: fmt.Sprintf("%d words", len(strings.Fields(a.Text)))}}}, nil, nil
		})
	return s.Run(ctx, &mcp.StdioTransport{})
}
