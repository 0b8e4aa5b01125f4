package session

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcp-host/mcp-host/runtime/process"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Info describes an established connection.
type Info struct {
	// Transport is the transport in use; it is TransportSSE after a fallback.
	Transport string
	// FellBackToSSE reports that an http server was reached over the legacy
	// SSE transport because it refused the Streamable HTTP POST.
	FellBackToSSE bool
	// ProtocolVersion is the negotiated protocol version.
	ProtocolVersion string
	// ServerName and ServerVersion come from the server's handshake answer.
	ServerName    string
	ServerVersion string
	// Instructions are the server's usage instructions, if any.
	Instructions string
	// Capabilities are the server's declared capabilities.
	Capabilities *mcp.ServerCapabilities
	// SessionID is the Streamable HTTP session id, if the server keeps one.
	SessionID string
	// PID is a stdio server's process id.
	PID int
	// ConnectedAt is when the handshake completed.
	ConnectedAt time.Time
	// Reinitialized counts transparent re-initializations after the server
	// forgot the session.
	Reinitialized int
}

// ErrClosed is returned by calls on a session that was closed or lost.
var ErrClosed = errors.New("session closed")

// A Session is a live connection to one MCP server. Its methods are safe for
// concurrent use.
type Session struct {
	opts   Options
	client *mcp.Client

	mu      sync.Mutex
	cs      *mcp.ClientSession
	proc    *stdioProcess
	gen     int
	info    Info
	tools   []*mcp.Tool
	closing bool
	lostErr error
	done    chan struct{}

	reinitMu sync.Mutex

	refreshPending bool // a list_changed arrived during Connect

	refreshMu    sync.Mutex
	refreshing   bool
	refreshAgain bool
	lastRefresh  time.Time // when the last list_changed refresh began

	exts   sync.Map // *mcp.ClientSession -> *extConn, for Call
	extSeq atomic.Int64

	serverLog *process.RingBuffer // the server's log messages (serverlog.go)
	ttls      ttlWalks            // ttlMs of tools/list answers (listcache.go)

	prog progressTable // progress tokens of calls in flight (progress.go)
}

// Connect connects to the server described by opts, completes the handshake
// and lists its tools, all within opts.ConnectTimeout.
func Connect(ctx context.Context, opts Options) (*Session, error) {
	o := opts.withDefaults()
	if err := validate(&o); err != nil {
		return nil, err
	}
	s := &Session{opts: o, done: make(chan struct{}), serverLog: process.NewRingBuffer(serverLogBytes)}
	s.client = mcp.NewClient(o.ClientInfo, &mcp.ClientOptions{
		ElicitationHandler:         s.elicit,
		ElicitationCompleteHandler: s.elicitationComplete,
		ResourceUpdatedHandler:     s.resourceUpdated,
		//lint:ignore SA1019 kept for 2025-11-25 servers, which send log messages unasked; nothing is forwarded (serverlog.go)
		LoggingMessageHandler:  s.keepLog,
		Capabilities:           withTasks(withApps(clientCapabilities())), // tasks.go
		ToolListChangedHandler: listChangedHandler(s),
		ProgressNotificationHandler: func(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
			s.prog.dispatch(req.Params)
			if o.OnProgress != nil {
				o.OnProgress(req.Params)
			}
		},
	})
	s.client.AddSendingMiddleware(traceRequests(o.ID))
	s.client.AddSendingMiddleware(s.listenInBackground) // listen.go
	s.client.AddSendingMiddleware(s.observeListTTL)     // listcache.go
	ctx, cancel := context.WithTimeout(ctx, o.ConnectTimeout)
	defer cancel()
	cs, proc, info, err := s.dial(ctx, o.ProtocolVersion)
	if err != nil {
		return nil, s.connectErr(ctx, err)
	}
	tools, err := s.listToolsCached(ctx, cs, info)
	if err != nil {
		_ = cs.Close()
		return nil, s.connectErr(ctx, err)
	}
	s.mu.Lock()
	s.cs, s.proc, s.info, s.tools = cs, proc, info, tools
	pending := s.refreshPending
	s.mu.Unlock()
	go s.watch(cs, s.gen)
	if pending {
		s.scheduleRefresh()
	}
	return s, nil
}

func validate(o *Options) error {
	for k := range o.Headers {
		if reservedHeaders[http.CanonicalHeaderKey(k)] {
			return fmt.Errorf("server %q: header %q is set by the protocol and cannot be configured", o.ID, k)
		}
	}
	switch o.Transport {
	case TransportHTTP, TransportSSE:
		if o.URL == "" {
			return fmt.Errorf("server %q: %s transport needs a url", o.ID, o.Transport)
		}
	case TransportStdio:
		if o.Command == "" {
			return fmt.Errorf("server %q: stdio transport needs a command", o.ID)
		}
	default:
		return fmt.Errorf("server %q: unknown transport %q (want http, sse or stdio)", o.ID, o.Transport)
	}
	return nil
}

// connectErr names the server and, for stdio, adds what the process said.
func (s *Session) connectErr(ctx context.Context, err error) error {
	if errors.Is(ctx.Err(), context.DeadlineExceeded) && !errors.Is(err, context.DeadlineExceeded) {
		err = fmt.Errorf("%w (connect timed out after %s)", err, s.opts.ConnectTimeout)
	} else if errors.Is(err, context.DeadlineExceeded) {
		err = fmt.Errorf("connect timed out after %s: %w", s.opts.ConnectTimeout, err)
	}
	return clean(fmt.Errorf("server %q: connect: %w", s.opts.ID, err))
}

// dial establishes one SDK session: process start or HTTP handshake,
// including the SSE fallback.
func (s *Session) dial(ctx context.Context, version string) (*mcp.ClientSession, *stdioProcess, Info, error) {
	o := &s.opts
	info := Info{Transport: o.Transport}
	var cs *mcp.ClientSession
	var proc *stdioProcess
	var err error
	copts := &mcp.ClientSessionOptions{ProtocolVersion: version}
	switch o.Transport {
	case TransportStdio:
		proc, err = startStdio(o)
		if err != nil {
			return nil, nil, info, err
		}
		cs, err = s.connectExt(ctx, proc.transport(), copts)
		if err != nil {
			if errors.Is(err, mcp.ErrConnectionClosed) {
				// The server closed its end, most often by exiting at
				// start: how it ended (its exit status) says why.
				proc.awaitExit()
				if perr := proc.ExitErr(); perr != nil {
					err = fmt.Errorf("%w: %w", perr, err)
				}
			}
			_ = proc.shutdown()
			return nil, nil, info, proc.withTail(err)
		}
		info.PID = proc.PID()
	case TransportHTTP:
		cs, err = s.dialHTTP(ctx, copts, &info)
		if err != nil {
			return nil, nil, info, err
		}
	case TransportSSE:
		cs, err = s.connectSSE(ctx, copts)
		if err != nil {
			return nil, nil, info, err
		}
	}
	if res := cs.InitializeResult(); res != nil {
		info.ProtocolVersion = res.ProtocolVersion
		info.Capabilities = res.Capabilities
		info.Instructions = res.Instructions
		if res.ServerInfo != nil {
			info.ServerName, info.ServerVersion = res.ServerInfo.Name, res.ServerInfo.Version
		}
	}
	info.ConnectedAt = time.Now()
	return cs, proc, info, nil
}

// connectExt connects through t wrapped so that [Session.Call] can use the
// connection. Only for transports whose connection the SDK does not inspect
// (stdio): an HTTP connection must stay the SDK's own, so Call reaches HTTP
// servers with a POST of its own instead.
func (s *Session) connectExt(ctx context.Context, t mcp.Transport, copts *mcp.ClientSessionOptions) (*mcp.ClientSession, error) {
	et := &extTransport{inner: t}
	cs, err := s.client.Connect(ctx, et, copts)
	if err != nil {
		return nil, err
	}
	if et.conn != nil {
		s.exts.Store(cs, et.conn)
		go func() {
			_ = cs.Wait()
			s.exts.Delete(cs)
		}()
	}
	return cs, nil
}

// watch waits for the SDK session to end and records why, unless it was
// replaced or closed on purpose.
func (s *Session) watch(cs *mcp.ClientSession, gen int) {
	err := cs.Wait()
	if errors.Is(err, mcp.ErrSessionMissing) {
		// The server forgot the session while idle: re-initialize now rather
		// than fail the next call.
		ctx, cancel := context.WithTimeout(context.Background(), s.opts.ConnectTimeout)
		rerr := s.reinit(ctx, gen)
		cancel()
		if rerr == nil {
			return
		}
		err = rerr
	}
	s.mu.Lock()
	p := s.proc
	s.mu.Unlock()
	if p != nil {
		p.awaitExit()
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closing || gen != s.gen || s.lostErr != nil {
		return
	}
	if err == nil {
		err = errors.New("server closed the connection")
	}
	if s.proc != nil {
		if perr := s.proc.ExitErr(); perr != nil {
			err = perr
		}
		err = s.proc.withTail(err)
	}
	s.lostErr = clean(fmt.Errorf("server %q: connection lost: %w", s.opts.ID, err))
	close(s.done)
	if s.proc != nil {
		go s.proc.shutdown()
	}
}

// reinit replaces the SDK session of generation gen with a fresh handshake,
// remembering the negotiated version so no discovery round trip is repeated.
func (s *Session) reinit(ctx context.Context, gen int) error {
	s.reinitMu.Lock()
	defer s.reinitMu.Unlock()
	s.mu.Lock()
	if s.gen != gen {
		s.mu.Unlock()
		return nil // another caller already did it
	}
	if s.closing || s.lostErr != nil {
		s.mu.Unlock()
		return ErrClosed
	}
	version, old := s.info.ProtocolVersion, s.cs
	count := s.info.Reinitialized
	s.mu.Unlock()

	// The old session is closed only once the new one has replaced it (or
	// failed): closed first, its watcher would find its generation still
	// current and report the connection lost.
	cs, proc, info, err := s.dial(ctx, version)
	if err == nil {
		// Re-list so the SDK knows the tool definitions again (x-mcp-header
		// bindings) and the catalog reflects the server's restart.
		var tools []*mcp.Tool
		if tools, err = s.listTools(ctx, cs, info.Capabilities); err != nil {
			_ = cs.Close()
		} else {
			info.Reinitialized = count + 1
			s.mu.Lock()
			if s.closing {
				s.mu.Unlock()
				_ = cs.Close()
				return ErrClosed // Close, waiting for us, closes old
			}
			s.cs, s.proc, s.info, s.tools = cs, proc, info, tools
			s.gen++
			g := s.gen
			s.mu.Unlock()
			go s.watch(cs, g)
			go old.Close() // its watcher sees a newer generation and stays quiet
			return nil
		}
	}
	err = fmt.Errorf("re-initialize after the server lost the session: %w", err)
	s.mu.Lock()
	if gen == s.gen && !s.closing && s.lostErr == nil {
		s.lostErr = clean(fmt.Errorf("server %q: connection lost: %w", s.opts.ID, err))
		close(s.done)
	}
	s.mu.Unlock()
	_ = old.Close()
	return err
}

// current returns the live SDK session and its generation.
func (s *Session) current() (*mcp.ClientSession, int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.lostErr != nil {
		return nil, 0, s.lostErr
	}
	if s.closing {
		return nil, 0, fmt.Errorf("server %q: %w", s.opts.ID, ErrClosed)
	}
	return s.cs, s.gen, nil
}

// do runs one request with the default timeout, re-initializing once if the
// server lost the session.
func (s *Session) do(ctx context.Context, method, target string, fn func(context.Context, *mcp.ClientSession) error) error {
	ctx, cancel := context.WithTimeout(ctx, s.opts.RequestTimeout)
	defer cancel()
	for attempt := 0; ; attempt++ {
		cs, gen, err := s.current()
		if err != nil {
			return err
		}
		err = fn(ctx, cs)
		if err == nil {
			return nil
		}
		if attempt == 0 && errors.Is(err, mcp.ErrSessionMissing) {
			if rerr := s.reinit(ctx, gen); rerr == nil {
				continue
			} else {
				err = rerr
			}
		}
		return clean(s.requestErr(ctx, method, target, err))
	}
}

// CallTool calls a tool. args must marshal to a JSON object (a
// json.RawMessage is passed through as is); nil sends {}.
func (s *Session) CallTool(ctx context.Context, name string, args any) (*mcp.CallToolResult, error) {
	switch v := args.(type) {
	case map[string]any:
		if v == nil {
			args = nil
		}
	case json.RawMessage:
		if len(v) == 0 || string(v) == "null" {
			args = nil
		}
	}
	var res *mcp.CallToolResult
	params := &mcp.CallToolParams{Name: name, Arguments: args}
	endProgress := s.prog.attach(ctx, params) // see WithProgress
	defer endProgress()
	if s.offersTasks() {
		return s.callToolTask(ctx, params) // tasks.go
	}
	cc := &callCapture{} // large texts read past the SDK (leancall.go)
	err := s.do(withCallCapture(ctx, cc), "tools/call", name, func(ctx context.Context, cs *mcp.ClientSession) error {
		var err error
		if res, err = cs.CallTool(ctx, params); err == nil {
			err = cc.restore(res)
		}
		return err
	})
	return res, err
}

// Ping checks that the server answers.
func (s *Session) Ping(ctx context.Context) error {
	return s.do(ctx, "ping", "", func(ctx context.Context, cs *mcp.ClientSession) error {
		return cs.Ping(ctx, nil)
	})
}

// ClientSession returns the current SDK session for requests this package
// does not wrap (resources, prompts, custom methods). It may be replaced by a
// re-initialization; do not keep it.
func (s *Session) ClientSession() (*mcp.ClientSession, error) {
	cs, _, err := s.current()
	return cs, err
}

// Tools returns the current tool catalog. The slice and the tools are shared:
// callers must not modify them.
func (s *Session) Tools() []*mcp.Tool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.tools
}

// Info returns what is known about the connection.
func (s *Session) Info() Info {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.info
}

// Stderr returns the kept tail of a stdio server's stderr ("" for HTTP).
func (s *Session) Stderr() string {
	s.mu.Lock()
	p := s.proc
	s.mu.Unlock()
	if p == nil {
		return ""
	}
	return p.Stderr().String()
}

// Done is closed when the connection is lost (not when it is closed).
func (s *Session) Done() <-chan struct{} { return s.done }

// Err returns why the connection was lost, or nil.
func (s *Session) Err() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.lostErr
}

// Close ends the session: DELETE for an HTTP session; for stdio, calls in
// flight cancelled, stdin closed, then SIGTERM and SIGKILL to the whole
// process tree, in bounded time (under 3 s when calls were in flight).
func (s *Session) Close() error {
	s.mu.Lock()
	if s.closing {
		s.mu.Unlock()
		return nil
	}
	s.closing = true
	s.mu.Unlock()
	// Wait for a re-initialization in progress, then close what it made.
	s.reinitMu.Lock()
	s.mu.Lock()
	cs, proc := s.cs, s.proc
	s.mu.Unlock()
	s.reinitMu.Unlock()
	// A stdio server is stopped first: the SDK's Close waits for the calls
	// in flight, which a hung server never answers. Once it is gone they
	// fail, and Close returns at once.
	var err error
	if proc != nil {
		err = proc.shutdown()
	}
	if cerr := cs.Close(); err == nil {
		err = cerr
	}
	if err != nil && !errors.Is(err, mcp.ErrConnectionClosed) {
		return clean(fmt.Errorf("server %q: close: %w", s.opts.ID, err))
	}
	return nil
}

func (s *Session) elicit(ctx context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
	if s.opts.Elicit == nil {
		return &mcp.ElicitResult{Action: "decline"}, nil
	}
	return s.opts.Elicit(ctx, s.opts.ID, req.Params)
}

func isSessionMissing(err error) bool { return errors.Is(err, mcp.ErrSessionMissing) }
