package session

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/mcp-host/mcp-host/redact"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// extIDPrefix marks the ids of requests sent by [Session.Call], so that
// their answers are taken off the connection before the SDK sees them.
const extIDPrefix = "mcp-host-ext-"

// extTransport wraps an SDK transport so that the session can send
// requests the SDK does not know (extension methods such as skills/list)
// over the same connection, with the same headers, session and auth.
type extTransport struct {
	inner mcp.Transport
	conn  *extConn // set by Connect
}

func (t *extTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	c, err := t.inner.Connect(ctx)
	if err != nil {
		return nil, err
	}
	t.conn = &extConn{Connection: c, pending: map[string]chan *jsonrpc.Response{}}
	return t.conn, nil
}

// extConn passes everything through, except the answers to its own
// requests.
type extConn struct {
	mcp.Connection
	next    atomic.Int64
	mu      sync.Mutex
	pending map[string]chan *jsonrpc.Response
	lean    map[jsonrpc.ID]*listCapture // tools/list calls whose pages to read
	calls   map[jsonrpc.ID]*callCapture // tools/calls whose large texts to read (leancall.go)
}

// Write notes the SDK's tools/list calls whose context asks for their page
// to be read on the way back (see leanlist.go).
func (c *extConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	if req, ok := msg.(*jsonrpc.Request); ok && req.Method == "tools/call" && req.IsCall() {
		if cc := callCaptureFrom(ctx); cc != nil {
			cc.reset()
			c.mu.Lock()
			if c.calls == nil {
				c.calls = make(map[jsonrpc.ID]*callCapture)
			}
			c.calls[req.ID] = cc
			c.mu.Unlock()
			err := c.Connection.Write(ctx, msg)
			if err != nil {
				c.mu.Lock()
				delete(c.calls, req.ID)
				c.mu.Unlock()
			}
			return err
		}
	}
	if req, ok := msg.(*jsonrpc.Request); ok && req.Method == "tools/list" && req.IsCall() {
		if lc := listCaptureFrom(ctx); lc != nil {
			c.mu.Lock()
			if c.lean == nil {
				c.lean = make(map[jsonrpc.ID]*listCapture)
			}
			c.lean[req.ID] = lc
			c.mu.Unlock()
			if err := c.Connection.Write(ctx, msg); err != nil {
				c.mu.Lock()
				delete(c.lean, req.ID)
				c.mu.Unlock()
				return err
			}
			return nil
		}
	}
	return c.Connection.Write(ctx, msg)
}

// leanAnswer trims the answer to a tools/list call or tools/call Write
// noted.
func (c *extConn) leanAnswer(resp *jsonrpc.Response) {
	c.mu.Lock()
	if cc := c.calls[resp.ID]; cc != nil {
		delete(c.calls, resp.ID)
		c.mu.Unlock()
		if resp.Error == nil {
			if trimmed, texts, ok := leanCallResult(resp.Result); ok {
				cc.put(texts)
				resp.Result = trimmed
			}
		}
		return
	}
	if len(c.lean) == 0 {
		c.mu.Unlock()
		return
	}
	lc := c.lean[resp.ID]
	delete(c.lean, resp.ID)
	c.mu.Unlock()
	if lc == nil || resp.Error != nil {
		return
	}
	if trimmed, page, ok := leanResult(resp.Result, lc); ok {
		lc.put(page)
		resp.Result = trimmed
	}
}

func (c *extConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	for {
		msg, err := c.Connection.Read(ctx)
		if err != nil {
			c.failAll()
			return msg, err
		}
		resp, ok := msg.(*jsonrpc.Response)
		if !ok {
			return msg, nil
		}
		id, isString := resp.ID.Raw().(string)
		if !isString || !strings.HasPrefix(id, extIDPrefix) {
			c.leanAnswer(resp)
			return msg, nil
		}
		c.mu.Lock()
		ch := c.pending[id]
		delete(c.pending, id)
		c.mu.Unlock()
		if ch != nil {
			ch <- resp
		}
	}
}

func (c *extConn) failAll() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for id, ch := range c.pending {
		close(ch)
		delete(c.pending, id)
	}
	clear(c.lean)
	clear(c.calls)
}

func (c *extConn) call(ctx context.Context, method string, params, result any) error {
	raw, err := json.Marshal(params)
	if err != nil {
		return fmt.Errorf("%s: encode params: %w", method, err)
	}
	idStr := fmt.Sprintf("%s%d", extIDPrefix, c.next.Add(1))
	id, _ := jsonrpc.MakeID(idStr)
	ch := make(chan *jsonrpc.Response, 1)
	c.mu.Lock()
	c.pending[idStr] = ch
	c.mu.Unlock()
	forget := func() {
		c.mu.Lock()
		delete(c.pending, idStr)
		c.mu.Unlock()
	}
	if err := c.Connection.Write(ctx, &jsonrpc.Request{ID: id, Method: method, Params: raw}); err != nil {
		forget()
		return fmt.Errorf("%s: %w", method, err)
	}
	select {
	case <-ctx.Done():
		forget()
		// Tell the server, as for every other request.
		note, _ := json.Marshal(map[string]any{"requestId": idStr, "reason": ctx.Err().Error()})
		_ = c.Connection.Write(context.WithoutCancel(ctx), &jsonrpc.Request{Method: "notifications/cancelled", Params: note})
		return fmt.Errorf("%s: %w", method, ctx.Err())
	case resp, ok := <-ch:
		if !ok {
			return fmt.Errorf("%s: connection closed", method)
		}
		if resp.Error != nil {
			return resp.Error
		}
		if result != nil {
			if err := json.Unmarshal(resp.Result, result); err != nil {
				return fmt.Errorf("%s: decode result: %w", method, err)
			}
		}
		return nil
	}
}

// Call sends a request the SDK has no method for (an extension's, such as
// skills/list) and decodes its result into result. Over stdio it shares the
// SDK's connection; over Streamable HTTP it is a POST of its own with the
// session's headers, session id, protocol version and token. It has the
// session's timeout, cancellation and re-initialization.
func (s *Session) Call(ctx context.Context, method string, params, result any) error {
	return s.do(ctx, method, "", func(ctx context.Context, cs *mcp.ClientSession) error {
		if v, ok := s.exts.Load(cs); ok {
			return v.(*extConn).call(ctx, method, params, result)
		}
		info := s.Info()
		if info.Transport != TransportHTTP {
			return fmt.Errorf("server %q: %s: extension requests are not supported over the %s transport", s.opts.ID, method, info.Transport)
		}
		return s.postCall(ctx, cs.ID(), info.ProtocolVersion, method, params, result)
	})
}

// postCall sends one JSON-RPC request as its own Streamable HTTP POST and
// reads the answer from a JSON body or an event stream.
func (s *Session) postCall(ctx context.Context, sessionID, version, method string, params, result any) error {
	rawParams, err := json.Marshal(params)
	if err != nil {
		return fmt.Errorf("%s: encode params: %w", method, err)
	}
	id := fmt.Sprintf("%s%d", extIDPrefix, s.extSeq.Add(1))
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": json.RawMessage(rawParams)})
	hc, _ := httpClientFor(&s.opts)
	send := func() (*http.Request, *http.Response, error) {
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, s.opts.URL, bytes.NewReader(body))
		if err != nil {
			return nil, nil, err
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if sessionID != "" {
			req.Header.Set("Mcp-Session-Id", sessionID)
		}
		if version != "" {
			req.Header.Set("MCP-Protocol-Version", version)
		}
		if h := s.opts.OAuthHandler; h != nil {
			ts, err := h.TokenSource(ctx)
			if err != nil {
				return nil, nil, fmt.Errorf("%s: %w", method, err)
			}
			if ts != nil {
				if tok, err := ts.Token(); err == nil && tok != nil && tok.AccessToken != "" {
					req.Header.Set("Authorization", "Bearer "+tok.AccessToken)
				}
			}
		}
		resp, err := hc.Do(req)
		return req, resp, err
	}
	req, resp, err := send()
	if err != nil {
		return err
	}
	if h := s.opts.OAuthHandler; h != nil && (resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden) {
		// As the SDK's transport does: let the handler refresh (or step up)
		// and send once more.
		err := h.Authorize(ctx, req, resp)
		resp.Body.Close()
		if err != nil {
			return fmt.Errorf("%s: %w", method, err)
		}
		if _, resp, err = send(); err != nil {
			return err
		}
	}
	defer drainAndClose(resp.Body)
	if resp.StatusCode == http.StatusNotFound && sessionID != "" {
		return mcp.ErrSessionMissing
	}
	if resp.StatusCode/100 != 2 {
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 4<<10))
		var r struct {
			Error *jsonrpc.Error `json:"error"`
		}
		if json.Unmarshal(b, &r) == nil && r.Error != nil {
			return r.Error
		}
		// The page is the server's: quote a short, redacted excerpt.
		return fmt.Errorf("HTTP %d %s: %s", resp.StatusCode, http.StatusText(resp.StatusCode), redact.Excerpt(b, maxQuotedBody))
	}
	// The session's guard has bounded the body already (see wrapBody): a
	// JSON answer over the cap or for another id arrives as an error for id.
	var msg []byte
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		msg, err = eventWithID(resp.Body, id, s.opts.MaxResponseBytes, s.extNotification)
	} else {
		msg, err = io.ReadAll(resp.Body)
	}
	if err != nil {
		return fmt.Errorf("%s: reading the answer: %w", method, err)
	}
	var r struct {
		Result json.RawMessage `json:"result"`
		Error  *jsonrpc.Error  `json:"error"`
	}
	if err := json.Unmarshal(msg, &r); err != nil {
		return fmt.Errorf("%s: answer is not JSON-RPC: %w", method, err)
	}
	if r.Error != nil {
		return r.Error
	}
	if result != nil {
		if err := json.Unmarshal(r.Result, result); err != nil {
			return fmt.Errorf("%s: decode result: %w", method, err)
		}
	}
	return nil
}

// drainAndClose reads the rest of an answer's body in the background, then
// closes it: an event stream that goes on after the answer (its end, at
// least) is read to its end so that its connection is reused. The session's
// guard bounds what is read and how long (see exchange).
func drainAndClose(body io.ReadCloser) {
	go func() {
		_, _ = io.Copy(io.Discard, body)
		body.Close()
	}()
}

// maxQuotedBody bounds the excerpt of a server's error page in an error.
const maxQuotedBody = 256

// eventWithID reads server-sent events until the message answering id,
// handing every notification before it to onNote. No line is longer than
// maxEvent: the session's guard holds events to it.
func eventWithID(r io.Reader, id string, maxEvent int, onNote func([]byte)) ([]byte, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 4<<10), maxEvent+64<<10)
	var data []byte
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "data:"):
			data = append(data, strings.TrimPrefix(strings.TrimPrefix(line, "data:"), " ")...)
		case line == "":
			var probe struct {
				ID     any    `json:"id"`
				Method string `json:"method"`
			}
			if len(data) > 0 && json.Unmarshal(data, &probe) == nil {
				if probe.ID == id {
					return data, nil
				}
				if probe.ID == nil && probe.Method != "" && onNote != nil {
					onNote(data)
				}
			}
			data = nil
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	return nil, io.ErrUnexpectedEOF
}

// extNotification handles a notification the server sent on the event
// stream of an extension call (Session.Call over Streamable HTTP), where
// the SDK never sees it: progress reaches the call it names, as on the
// SDK's own streams; anything else is dropped.
func (s *Session) extNotification(data []byte) {
	var n struct {
		Method string                          `json:"method"`
		Params *mcp.ProgressNotificationParams `json:"params"`
	}
	if json.Unmarshal(data, &n) != nil || n.Method != "notifications/progress" || n.Params == nil {
		return
	}
	s.prog.dispatch(n.Params)
	if s.opts.OnProgress != nil {
		s.opts.OnProgress(n.Params)
	}
}
