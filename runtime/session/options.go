// Package session owns one MCP connection: a go-sdk client session over
// Streamable HTTP, legacy HTTP+SSE or stdio, with the parts the SDK leaves to
// its callers: static headers, a tuned HTTP transport, automatic fallback to
// SSE, a remembered protocol version, a default timeout on every request,
// full tools/list pagination with caps and a cycle guard, catalog refresh on
// notifications/tools/list_changed, transparent re-initialization when the
// server forgets the session, memory bounded while reading whatever a server
// sends, and MCP over the pipes of a stdio server that runtime/process
// starts and ends (with its requests in flight cancelled first).
//
// It must not import the runtime or runtime/serve.
//
// A Session never reconnects after its transport is lost: it reports the loss
// through [Session.Done] and [Session.Err], and the caller (the runtime's
// server manager) decides when to connect again.
package session

import (
	"context"
	"log/slog"
	"net/http"
	"net/url"
	"os/exec"
	"time"

	"github.com/mcp-host/mcp-host/runtime/process"
	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Transport names accepted in [Options.Transport].
const (
	TransportHTTP  = "http"
	TransportSSE   = "sse"
	TransportStdio = "stdio"
)

// Defaults applied when an [Options] field is zero.
const (
	DefaultRequestTimeout = 30 * time.Second
	DefaultConnectTimeout = 30 * time.Second
	DefaultMaxToolPages   = 100
	DefaultMaxTools       = 50000
	DefaultStderrBytes    = process.DefaultStderrBytes
	DefaultShutdownGrace  = process.DefaultShutdownGrace
)

// An ElicitationHandler answers elicitation requests from a server. serverID
// names the server that asked. Return an error only when the request could not
// be handled at all; a user who declines is a result with Action "decline".
type ElicitationHandler func(ctx context.Context, serverID string, params *mcp.ElicitParams) (*mcp.ElicitResult, error)

// Options configures a [Session]. Only ID, Transport and either URL or Command
// are required.
type Options struct {
	// ID is the server id; it names the server in every error.
	ID string
	// RedirectCheck, when set, judges each redirect hop of an HTTP or
	// SSE server as its first URL was judged (the managed policy's URL
	// rules): an error refuses the hop and fails the request with it.
	RedirectCheck func(*url.URL) error
	// Transport is TransportHTTP, TransportSSE or TransportStdio.
	Transport string

	// URL is the MCP endpoint for HTTP transports.
	URL string
	// Headers are static HTTP headers sent with every request. They never
	// replace a header the SDK or the OAuth handler already set.
	Headers map[string]string
	// HTTPClient is used for HTTP transports. Nil means a client on a shared
	// transport tuned for many concurrent calls to one host.
	HTTPClient *http.Client
	// OAuthHandler, if set, authorizes HTTP requests.
	OAuthHandler auth.OAuthHandler
	// NoSSEFallback disables the retry over the legacy SSE transport when an
	// http server answers the first POST with 404 or 405.
	NoSSEFallback bool

	// Command, Args, Env, EnvVars and Dir describe a stdio server. It does
	// not get the host's whole environment: only a base set (see
	// [process.Environ]), Env on top, and the host's variables EnvVars
	// names.
	Command string
	Args    []string
	Env     map[string]string
	EnvVars []string
	Dir     string
	// WrapCommand, when set, is called with a stdio server's command just
	// before it starts (see [process.Options.Wrap]).
	WrapCommand func(*exec.Cmd) (start func() error, err error)
	// StderrBytes bounds the kept tail of a stdio server's stderr.
	StderrBytes int
	// ShutdownGrace is how long a stdio server may take to exit after its
	// stdin closes, and again after SIGTERM, before its process group is
	// killed.
	ShutdownGrace time.Duration

	// ProtocolVersion pins the protocol version offered in the handshake.
	// Empty means the SDK's latest, falling back as the server requires.
	ProtocolVersion string
	// ConnectTimeout bounds the handshake and the first tools/list.
	ConnectTimeout time.Duration
	// RequestTimeout bounds every request unless the caller's context ends
	// sooner. On expiry the request is cancelled with notifications/cancelled.
	RequestTimeout time.Duration
	// TaskTimeout bounds a tool call the server turned into a task (the
	// tasks extension), from the call to the task's end, instead of
	// RequestTimeout, which bounds each of its requests; zero means
	// [DefaultTaskTimeout]. Expiry cancels the task (tasks/cancel).
	TaskTimeout time.Duration

	// MaxResponseBytes bounds what the session reads of any one HTTP
	// answer, counted after decompression while it is read: a JSON answer,
	// each event of an event stream, an extension call's answer; and, for
	// stdio, any one line the server writes. A request
	// whose answer is larger fails with an error matching
	// [ErrResponseTooLarge]; the session stays usable. Zero or less means
	// [DefaultMaxResponseBytes]. (Config: max_response_bytes.)
	MaxResponseBytes int

	// MaxToolPages and MaxTools cap a tools/list walk.
	MaxToolPages int
	MaxTools     int

	// OneShot is for a session that answers one command and closes: it
	// does not follow the server's catalog changes, so on a 2026-07-28
	// server it opens no subscriptions/listen stream (a round trip and a
	// held connection the command would never use).
	OneShot bool

	// ToolsCache, with CacheKey, keeps tools/list results across sessions
	// for as long as the server's ttlMs says (SEP-2549); nil lists the
	// tools on every connect. CacheKey is the caller's identity of the
	// server: it must change whenever anything that could change the
	// catalog does (URL, command, arguments, environment, header values).
	ToolsCache ToolsCache
	CacheKey   string

	// Elicit answers elicitation requests; nil declines them.
	Elicit ElicitationHandler
	// ElicitationComplete receives a server's
	// notifications/elicitation/complete (the end of a URL-mode
	// elicitation), with the session's ID; nil ignores them.
	ElicitationComplete func(serverID, elicitationID string)
	// OnToolsChanged is called, on its own goroutine, with the new catalog
	// after a list_changed notification was followed by a successful refresh,
	// or with the error of a failed refresh (the old catalog is kept).
	OnToolsChanged func(tools []*mcp.Tool, err error)
	// OnToolsPage, when set, is called with the tools of each tools/list
	// page as the session reads them (duplicates dropped), first being
	// true for the first page of a listing, so that a large catalog can be
	// prepared while its next page is on its way. It runs on the listing's
	// goroutine and must not keep or modify the slice. The pages of a
	// listing that fails, or is replaced, are not the catalog: what counts
	// is [Session.Tools]. A catalog served from the list cache has no pages.
	OnToolsPage func(first bool, tools []*mcp.Tool)
	// OnProgress receives progress notifications from the server.
	OnProgress func(params *mcp.ProgressNotificationParams)
	// OnResourceUpdated receives the URI of each
	// notifications/resources/updated the server sends about a resource
	// subscribed with [Session.Subscribe]; nil ignores them.
	OnResourceUpdated func(uri string)

	// ClientInfo is sent in the handshake; nil means "mcp-host".
	ClientInfo *mcp.Implementation
	// Logger receives debug logs; nil discards them.
	Logger *slog.Logger
}

// reservedHeaders are set by the transport or the OAuth handler; a static
// header must not name them.
var reservedHeaders = map[string]bool{
	"Mcp-Protocol-Version": true,
	"Mcp-Session-Id":       true,
	"Last-Event-Id":        true,
	"Content-Type":         true,
	"Content-Length":       true,
	"Accept":               true,
	"Host":                 true,
}

func (o *Options) withDefaults() Options {
	c := *o
	if c.RequestTimeout <= 0 {
		c.RequestTimeout = DefaultRequestTimeout
	}
	if c.ConnectTimeout <= 0 {
		c.ConnectTimeout = DefaultConnectTimeout
	}
	c.MaxResponseBytes = o.maxResponseBytes()
	if f := c.OnToolsChanged; f != nil {
		c.OnToolsChanged = func(tools []*mcp.Tool, err error) { f(tools, clean(err)) }
	}
	if c.MaxToolPages <= 0 {
		c.MaxToolPages = DefaultMaxToolPages
	}
	if c.MaxTools <= 0 {
		c.MaxTools = DefaultMaxTools
	}
	if c.StderrBytes <= 0 {
		c.StderrBytes = DefaultStderrBytes
	}
	if c.ShutdownGrace <= 0 {
		c.ShutdownGrace = DefaultShutdownGrace
	}
	if c.ClientInfo == nil {
		c.ClientInfo = &mcp.Implementation{Name: "mcp-host", Version: Version}
	}
	if c.Logger == nil {
		c.Logger = slog.New(slog.DiscardHandler)
	}
	if c.Transport == "" {
		if c.Command != "" {
			c.Transport = TransportStdio
		} else {
			c.Transport = TransportHTTP
		}
	}
	return c
}

// Version is the mcp-host version reported to servers.
var Version = "0.1.0"

func (o *Options) maxResponseBytes() int {
	if o.MaxResponseBytes <= 0 {
		return DefaultMaxResponseBytes
	}
	return o.MaxResponseBytes
}

func (o *Options) logger() *slog.Logger {
	if o.Logger == nil {
		return slog.New(slog.DiscardHandler)
	}
	return o.Logger
}
