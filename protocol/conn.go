package protocol

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"github.com/mcp-host/mcp-host/redact"
)

// DefaultMaxLineBytes bounds one incoming line. A longer line is discarded
// and answered with CodeInvalidRequest; the connection keeps going.
const DefaultMaxLineBytes = 8 << 20

// A Handler answers the requests and notifications that arrive on a
// [Conn]. For a notification the result is ignored. An error of type
// *Error goes to the peer as it is; any other error becomes CodeFailed with
// the error's text.
type Handler func(ctx context.Context, method string, params json.RawMessage) (any, error)

// ConnOptions configure a [Conn].
type ConnOptions struct {
	// MaxLineBytes bounds an incoming line; 0 means DefaultMaxLineBytes.
	MaxLineBytes int
	// Logger receives protocol problems (malformed lines, unknown response
	// ids) and, at debug level, every message. Nil discards them.
	Logger *slog.Logger
	// AfterReply, when set, is called after the answer to a request has
	// been written, with the request's method. A server uses it to stop
	// after answering shutdown.
	AfterReply func(method string)
	// Admit, when set, is asked on the reading goroutine, in arrival order,
	// whether a request may be handled; its error is the answer otherwise.
	// A server uses it to refuse requests that arrive before initialize.
	Admit func(method string) error
	// Inline lists methods whose requests are handled on the reading
	// goroutine: nothing after them is read until they are answered. A
	// server lists initialize, so that a UI may send requests right behind
	// it without waiting.
	Inline []string
	// DrainTimeout bounds how long Run waits, once the input has ended, for
	// requests still being handled to be answered before it cancels them;
	// zero means DefaultDrainTimeout.
	DrainTimeout time.Duration
	// AnnounceAbandoned makes a [Conn.Call] whose context ends before the
	// answer tell the peer with a ui.request.cancelled notification (the
	// request's id and method, and the reason: [CancelReason] from the
	// context's cause, else "timeout" for a deadline and "cancelled"). The
	// runtime sets it; a late answer is then ignored.
	AnnounceAbandoned bool
}

// DefaultDrainTimeout is the default of ConnOptions.DrainTimeout.
const DefaultDrainTimeout = 5 * time.Second

// A Conn is one end of a line-delimited JSON-RPC 2.0 connection. Incoming
// requests run concurrently, each on its own goroutine; incoming
// notifications are handled one at a time, in the order they arrived, so a
// UI sees mcp.status changes in order. Writes are serialized: each message
// is one line.
type Conn struct {
	r       io.Reader
	w       io.Writer
	handler Handler
	opts    ConnOptions

	wmu sync.Mutex

	nextID  atomic.Int64
	mu      sync.Mutex
	pending map[int64]chan *jsonrpc.Response
	closed  bool
	done    chan struct{}
	err     error

	notes chan *jsonrpc.Request
	// notesIn counts the notifications read (the reading goroutine's
	// alone); notesDone those handled: a request waits for the ones read
	// before it (see noteOrder).
	notesIn   int64
	notesDone noteOrder
	inflight  sync.WaitGroup
	// running cancels the handlers of requests in progress, by id, for
	// ui.request.cancelled.
	running map[string]context.CancelFunc
}

// NewConn returns a connection reading from r and writing to w. Call
// [Conn.Run] to start reading.
func NewConn(r io.Reader, w io.Writer, h Handler, opts ConnOptions) *Conn {
	if opts.MaxLineBytes <= 0 {
		opts.MaxLineBytes = DefaultMaxLineBytes
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if h == nil {
		h = func(context.Context, string, json.RawMessage) (any, error) {
			return nil, Errorf(CodeMethodNotFound, "no methods")
		}
	}
	return &Conn{
		r: r, w: w, handler: h, opts: opts,
		pending:   make(map[int64]chan *jsonrpc.Response),
		done:      make(chan struct{}),
		notes:     make(chan *jsonrpc.Request, 256),
		running:   make(map[string]context.CancelFunc),
		notesDone: noteOrder{changed: make(chan struct{})},
	}
}

// Done is closed when the connection has stopped reading (end of input or
// a read error).
func (c *Conn) Done() <-chan struct{} { return c.done }

// Run reads and dispatches messages until the input ends, a read fails or
// ctx is done. Handlers get a context that is cancelled when Run returns.
// Calls still waiting for an answer then fail.
func (c *Conn) Run(ctx context.Context) error {
	ctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for req := range c.notes {
			if _, err := c.handle(ctx, req.Method, req.Params); err != nil {
				c.opts.Logger.Debug("notification handler failed", "method", req.Method, "error", err)
			}
			c.notesDone.add()
		}
	}()
	err := c.read(ctx)
	close(c.notes)
	// Requests already read are still answered, for a while.
	drained := make(chan struct{})
	go func() { c.inflight.Wait(); close(drained) }()
	d := c.opts.DrainTimeout
	if d <= 0 {
		d = DefaultDrainTimeout
	}
	select {
	case <-drained:
	case <-time.After(d):
	}
	c.mu.Lock()
	c.closed = true
	c.err = err
	for id, ch := range c.pending {
		close(ch)
		delete(c.pending, id)
	}
	c.mu.Unlock()
	close(c.done)
	cancel()
	wg.Wait()
	return err
}

func (c *Conn) read(ctx context.Context) error {
	br := bufio.NewReaderSize(c.r, 64<<10)
	for {
		line, tooLong, err := readLine(br, c.opts.MaxLineBytes)
		if tooLong {
			c.opts.Logger.Warn("discarded an incoming line over the size limit", "limit", c.opts.MaxLineBytes)
			c.reply(jsonrpc.ID{}, nil, Errorf(CodeInvalidRequest, "line longer than %d bytes discarded", c.opts.MaxLineBytes))
		} else if len(bytes.TrimSpace(line)) > 0 {
			c.dispatch(ctx, line)
		}
		if err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return fmt.Errorf("protocol: read: %w", err)
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
	}
}

// readLine returns the next line without its newline. A line over max
// bytes is consumed and reported as tooLong, with no data.
func readLine(br *bufio.Reader, max int) (line []byte, tooLong bool, err error) {
	var buf []byte
	for {
		chunk, err := br.ReadSlice('\n')
		if !tooLong {
			if len(buf)+len(chunk) > max+1 { // +1: the newline
				tooLong, buf = true, nil
			} else {
				buf = append(buf, chunk...)
			}
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if tooLong {
			return nil, true, err
		}
		return bytes.TrimSuffix(buf, []byte("\n")), false, err
	}
}

func (c *Conn) dispatch(ctx context.Context, line []byte) {
	if c.opts.Logger.Enabled(ctx, slog.LevelDebug) {
		c.opts.Logger.Debug("recv", "msg", string(redact.JSON(line)))
	}
	msg, err := jsonrpc.DecodeMessage(line)
	if err != nil {
		if looksLikeResponse(line) {
			// Never answer an answer: two peers would echo errors about
			// each other's errors forever. An error about something we
			// sent that the peer could not read arrives here (id null).
			c.opts.Logger.Warn("peer sent an unreadable or unmatched response", "msg", truncate(redact.JSON(line), 500))
			return
		}
		code := int64(CodeInvalidRequest)
		if !json.Valid(line) {
			code = CodeParseError
		}
		id := salvageID(line)
		c.opts.Logger.Warn("malformed message", "error", err)
		c.reply(id, nil, Errorf(code, "malformed message: %s", describeMalformed(line)))
		return
	}
	switch m := msg.(type) {
	case *jsonrpc.Response:
		c.deliver(m)
	case *jsonrpc.Request:
		if !m.IsCall() {
			if m.Method == MethodUIRequestCancelled {
				c.cancelRunning(m.Params)
			}
			select {
			case c.notes <- m:
				c.notesIn++
			case <-ctx.Done():
			}
			return
		}
		upTo := c.notesIn
		if c.opts.Admit != nil {
			if err := c.opts.Admit(m.Method); err != nil {
				c.reply(m.ID, nil, err)
				return
			}
		}
		c.inflight.Add(1)
		handle := func() {
			defer c.inflight.Done()
			// The notifications read before this request are handled
			// first: a UI prints the answer's text and tool calls the
			// runtime sent before it asks a question, then the question.
			c.notesDone.wait(ctx, upTo, noteOrderWait)
			after := &replyHooks{}
			hctx, cancel := context.WithCancel(ctx)
			key := fmt.Sprint(m.ID.Raw())
			c.mu.Lock()
			c.running[key] = cancel
			c.mu.Unlock()
			defer func() {
				c.mu.Lock()
				delete(c.running, key)
				c.mu.Unlock()
				cancel()
			}()
			res, err := c.handle(withRequestID(context.WithValue(hctx, replyHooksKey{}, after), m.ID), m.Method, m.Params)
			c.reply(m.ID, res, err)
			for _, fn := range after.take() {
				fn()
			}
			if c.opts.AfterReply != nil {
				c.opts.AfterReply(m.Method)
			}
		}
		for _, in := range c.opts.Inline {
			if in == m.Method {
				handle()
				return
			}
		}
		go handle()
	}
}

// handle runs the handler; a panic in it is answered as an internal error
// (and logged with its stack) instead of ending the process.
func (c *Conn) handle(ctx context.Context, method string, params json.RawMessage) (res any, err error) {
	defer func() {
		if r := recover(); r != nil {
			c.opts.Logger.Error("panic in a handler", "method", method, "panic", r, "stack", string(debug.Stack()))
			res, err = nil, Errorf(CodeInternalError, "internal error while handling %s: %v (a bug in the runtime)", method, r)
		}
	}()
	return c.handler(ctx, method, params)
}

type replyHooksKey struct{}

// replyHooks collects the functions a handler registered with OnReplied.
type replyHooks struct {
	mu  sync.Mutex
	fns []func()
}

func (r *replyHooks) take() []func() {
	r.mu.Lock()
	defer r.mu.Unlock()
	fns := r.fns
	r.fns = nil
	return fns
}

// OnReplied arranges for fn to run once the answer to the request that ctx
// belongs to has been written, so that what fn sends (notifications about
// something the request started, say) reaches the peer after the answer.
// Outside a request handler of a [Conn], fn runs at once.
func OnReplied(ctx context.Context, fn func()) {
	r, ok := ctx.Value(replyHooksKey{}).(*replyHooks)
	if !ok {
		fn()
		return
	}
	r.mu.Lock()
	r.fns = append(r.fns, fn)
	r.mu.Unlock()
}

func (c *Conn) deliver(r *jsonrpc.Response) {
	n, ok := r.ID.Raw().(int64)
	c.mu.Lock()
	ch, found := c.pending[n]
	if found {
		delete(c.pending, n)
	}
	c.mu.Unlock()
	if !ok || !found {
		c.opts.Logger.Warn("response to no pending call", "id", r.ID.Raw())
		return
	}
	ch <- r
}

// wireResponse is a response as written: unlike the SDK's encoder it keeps
// "id": null on errors about messages whose id could not be read, as
// JSON-RPC 2.0 requires.
type wireResponse struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      any             `json:"id"`
	Result  json.RawMessage `json:"result,omitempty"`
	Error   *Error          `json:"error,omitempty"`
}

func (c *Conn) reply(id jsonrpc.ID, result any, err error) {
	resp := wireResponse{JSONRPC: "2.0", ID: id.Raw()}
	if err != nil {
		var werr *Error
		if !errors.As(err, &werr) {
			werr = &Error{Code: CodeFailed, Message: err.Error()}
		}
		// Errors quote other code's words (a URL in a dial error, a
		// server's answer): mask every secret the process knows.
		masked := *withKind(werr)
		masked.Message = redact.String(werr.Message)
		resp.Error = &masked
	} else {
		if result == nil {
			result = Empty{}
		}
		raw, merr := json.Marshal(result)
		if merr != nil {
			resp.Error = Errorf(CodeInternalError, "encode result: %v", merr)
		} else {
			resp.Result = raw
		}
	}
	data, merr := json.Marshal(resp)
	if merr != nil {
		c.opts.Logger.Error("encode response", "error", merr)
		return
	}
	if werr := c.writeLine(data); werr != nil {
		c.opts.Logger.Warn("write failed", "error", werr)
	}
}

func (c *Conn) write(msg jsonrpc.Message) error {
	data, err := jsonrpc.EncodeMessage(msg)
	if err != nil {
		return fmt.Errorf("protocol: encode: %w", err)
	}
	return c.writeLine(data)
}

func (c *Conn) writeLine(data []byte) error {
	if c.opts.Logger.Enabled(context.Background(), slog.LevelDebug) {
		c.opts.Logger.Debug("send", "msg", string(redact.JSON(data)))
	}
	data = append(data, '\n')
	c.wmu.Lock()
	defer c.wmu.Unlock()
	if _, err := c.w.Write(data); err != nil {
		return fmt.Errorf("protocol: write: %w", err)
	}
	return nil
}

// ErrClosed is returned by calls on a connection whose input has ended.
var ErrClosed = errors.New("protocol: connection closed")

// Call sends a request and decodes the answer into result (which may be
// nil). It returns the peer's *Error as it is, ErrClosed when the
// connection ends first, or ctx's error.
func (c *Conn) Call(ctx context.Context, method string, params, result any) error {
	raw, err := json.Marshal(params)
	if err != nil {
		return fmt.Errorf("protocol: %s: encode params: %w", method, err)
	}
	n := c.nextID.Add(1)
	ch := make(chan *jsonrpc.Response, 1)
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return fmt.Errorf("%s: %w", method, ErrClosed)
	}
	c.pending[n] = ch
	c.mu.Unlock()
	forget := func() {
		c.mu.Lock()
		delete(c.pending, n)
		c.mu.Unlock()
	}
	id, _ := jsonrpc.MakeID(float64(n))
	if err := c.write(&jsonrpc.Request{ID: id, Method: method, Params: raw}); err != nil {
		forget()
		return err
	}
	select {
	case <-ctx.Done():
		forget()
		if c.opts.AnnounceAbandoned {
			if err := c.Notify(MethodUIRequestCancelled, &RequestCancelledParams{ID: n, Method: method, Reason: abandonReason(ctx)}); err != nil {
				c.opts.Logger.Warn("could not announce an abandoned request", "method", method, "error", err)
			}
		}
		return ctx.Err()
	case resp, ok := <-ch:
		if !ok {
			return fmt.Errorf("%s: %w", method, ErrClosed)
		}
		if resp.Error != nil {
			var werr *Error
			if errors.As(resp.Error, &werr) {
				return werr
			}
			return fmt.Errorf("%s: %w", method, resp.Error)
		}
		if result == nil {
			return nil
		}
		if err := json.Unmarshal(resp.Result, result); err != nil {
			return fmt.Errorf("protocol: %s: decode result: %w", method, err)
		}
		return nil
	}
}

// Notify sends a notification.
func (c *Conn) Notify(method string, params any) error {
	raw, err := json.Marshal(params)
	if err != nil {
		return fmt.Errorf("protocol: %s: encode params: %w", method, err)
	}
	return c.write(&jsonrpc.Request{Method: method, Params: raw})
}
