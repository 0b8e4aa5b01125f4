package web

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"mime"
	"net/http"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/mcp-host/mcp-host/protocol"
)

// Limits of the bridge.
const (
	// maxCallBytes bounds the body of a request the page sends.
	maxCallBytes = 8 << 20
	// heartbeat keeps idle event streams alive and finds closed ones.
	heartbeat = 15 * time.Second
)

// subscriberBuffer is how many events a slow page may lag behind before
// its event stream is closed (EventSource reconnects and gets a fresh
// hello): memory stays bounded whatever the page does. A variable for tests.
var subscriberBuffer = 4096

// refusedMethods are protocol methods the page may not send: the bridge
// owns the runtime's lifecycle.
var refusedMethods = map[string]bool{protocol.MethodInitialize: true, protocol.MethodShutdown: true}

// Bridge joins the browser pages to one runtime connection. The runtime's
// notifications go to every page as events; its requests (ui.*.request)
// too, and the first page to answer answers the runtime. The page's
// requests are relayed as they are, so methods this package does not know
// (new protocol methods) pass through unchanged.
type Bridge struct {
	mu      sync.Mutex
	conn    *protocol.Conn
	init    json.RawMessage
	subs    map[*subscriber]struct{}
	pending map[int64]*pendingRequest
	nextID  int64
	closed  bool
	// servers is the last status of every server, in the order the
	// runtime sent them (initialize's list, then each mcp.status): a page
	// gets it in its hello, under the same lock as the events after it, so
	// no answer travelling on another connection can show it a stale state.
	servers map[string]json.RawMessage
	// transcript is the conversation so far, which a page gets after its
	// hello (transcript.go); conversation is its id, which every page
	// continues.
	transcript   transcript
	conversation string
}

// pendingRequest is a runtime request waiting for a page's answer.
type pendingRequest struct {
	event  event
	answer chan pageAnswer
}

// pageAnswer is what a page answered.
type pageAnswer struct {
	Result json.RawMessage `json:"result,omitempty"`
	Error  string          `json:"error,omitempty"`
}

// event is one message of the event stream.
type event struct {
	// Kind is hello (Init holds the runtime's initialize answer),
	// notification, request (ID is the bridge's id, to answer with),
	// answered or withdrawn (the request ID is closed), closed (the
	// runtime has gone), user (the user's message: Params are its
	// run.start params, From the prompt they came from; or App the app
	// whose message the user sent), conversation (Conversation is the one
	// the pages continue) or cleared (a new conversation begins).
	Kind   string          `json:"kind"`
	ID     int64           `json:"id,omitempty"`
	Method string          `json:"method,omitempty"`
	Params json.RawMessage `json:"params,omitempty"`
	Init   json.RawMessage `json:"init,omitempty"`
	// Servers is, in a hello, the last status of every server.
	Servers []json.RawMessage `json:"servers,omitempty"`
	// Reason says why a request was withdrawn or the runtime closed.
	Reason string `json:"reason,omitempty"`
	// From names, in a user event, the prompt (server:name) whose
	// messages the user sent.
	From string `json:"from,omitempty"`
	// App is, in a user event, the app whose message the user agreed to
	// send (a ui.confirm.request's app: server, tool and text).
	App json.RawMessage `json:"app,omitempty"`
	// Conversation is, in a hello or a conversation event, the
	// conversation the pages continue.
	Conversation string `json:"conversation,omitempty"`
	// Dropped reports, in a hello, that the transcript that follows lacks
	// the conversation's oldest events (it is bounded).
	Dropped bool `json:"dropped,omitempty"`
}

type subscriber struct {
	ch      chan []byte
	dropped chan struct{}
}

// NewBridge returns a bridge with no runtime yet; give it one with
// [Bridge.Attach] once its connection has been initialized.
func NewBridge() *Bridge {
	return &Bridge{subs: map[*subscriber]struct{}{}, pending: map[int64]*pendingRequest{}, servers: map[string]json.RawMessage{}}
}

// Attach sets the runtime connection and its initialize answer, sent to
// every page in its hello.
func (b *Bridge) Attach(conn *protocol.Conn, init json.RawMessage) {
	var snap struct {
		Servers []json.RawMessage `json:"servers"`
	}
	_ = json.Unmarshal(init, &snap)
	b.mu.Lock()
	b.conn, b.init = conn, init
	for _, raw := range snap.Servers {
		var st struct {
			ID string `json:"id"`
		}
		if json.Unmarshal(raw, &st) == nil && st.ID != "" {
			b.servers[st.ID] = raw
		}
	}
	b.mu.Unlock()
}

// noteStatus keeps the server status an mcp.status notification carries;
// b.mu is held.
func (b *Bridge) noteStatus(params json.RawMessage) {
	var p struct {
		Server  json.RawMessage `json:"server"`
		Removed bool            `json:"removed"`
	}
	var st struct {
		ID string `json:"id"`
	}
	if json.Unmarshal(params, &p) != nil || json.Unmarshal(p.Server, &st) != nil || st.ID == "" {
		return
	}
	if p.Removed {
		delete(b.servers, st.ID)
	} else {
		b.servers[st.ID] = p.Server
	}
}

// Close tells every page that the runtime has gone.
func (b *Bridge) Close(reason string) {
	b.mu.Lock()
	b.closed = true
	b.mu.Unlock()
	b.broadcast(event{Kind: "closed", Reason: reason})
}

// Handler is the protocol handler of the runtime connection: what the
// runtime sends goes to the pages.
func (b *Bridge) Handler() protocol.Handler {
	return func(ctx context.Context, method string, params json.RawMessage) (any, error) {
		if !isRequest(method) {
			b.broadcast(event{Kind: "notification", Method: method, Params: params})
			return nil, nil
		}
		return b.ask(ctx, method, params)
	}
}

// isRequest reports whether a method the runtime sends is a request that
// wants an answer: by the protocol's convention their names end in
// ".request" (ui.confirm.request, ...); everything else is a notification.
func isRequest(method string) bool { return strings.HasSuffix(method, ".request") }

// ask sends a runtime request to the pages and waits for the first answer,
// or until the runtime withdraws it (ctx).
func (b *Bridge) ask(ctx context.Context, method string, params json.RawMessage) (any, error) {
	b.mu.Lock()
	b.nextID++
	p := &pendingRequest{event: event{Kind: "request", ID: b.nextID, Method: method, Params: params}, answer: make(chan pageAnswer, 1)}
	b.pending[p.event.ID] = p
	b.mu.Unlock()
	b.broadcast(p.event)
	select {
	case a := <-p.answer:
		b.broadcast(event{Kind: "answered", ID: p.event.ID})
		if a.Error != "" {
			return nil, protocol.Errorf(protocol.CodeFailed, "the web page answered %s with an error: %s", method, a.Error)
		}
		if len(a.Result) == 0 {
			return protocol.Empty{}, nil
		}
		return a.Result, nil
	case <-ctx.Done():
		b.mu.Lock()
		delete(b.pending, p.event.ID)
		b.mu.Unlock()
		b.broadcast(event{Kind: "withdrawn", ID: p.event.ID, Reason: "the runtime no longer waits for this answer"})
		return nil, ctx.Err()
	}
}

// broadcast sends e to every page; a page that lags too far behind has its
// stream closed.
func (b *Bridge) broadcast(e event) {
	data, err := json.Marshal(e)
	if err != nil {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.keep(e, data)
	for s := range b.subs {
		select {
		case s.ch <- data:
		default:
			delete(b.subs, s)
			close(s.dropped)
		}
	}
}

// subscribe adds a page's stream and returns what it must see first: the
// hello and the requests still waiting for an answer.
func (b *Bridge) subscribe() (*subscriber, [][]byte) {
	s := &subscriber{ch: make(chan []byte, subscriberBuffer), dropped: make(chan struct{})}
	b.mu.Lock()
	defer b.mu.Unlock()
	ids := make([]string, 0, len(b.servers))
	for id := range b.servers {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	servers := []json.RawMessage{}
	for _, id := range ids {
		servers = append(servers, b.servers[id])
	}
	hello, _ := json.Marshal(event{Kind: "hello", Init: b.init, Servers: servers, Conversation: b.conversation, Dropped: b.transcript.dropped})
	first := append([][]byte{hello}, b.transcript.events()...)
	for id := int64(1); id <= b.nextID; id++ {
		if p, ok := b.pending[id]; ok {
			data, _ := json.Marshal(p.event)
			first = append(first, data)
		}
	}
	if b.closed {
		data, _ := json.Marshal(event{Kind: "closed", Reason: "the runtime has stopped"})
		first = append(first, data)
	}
	b.subs[s] = struct{}{}
	return s, first
}

func (b *Bridge) unsubscribe(s *subscriber) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if _, ok := b.subs[s]; ok {
		delete(b.subs, s)
		close(s.dropped)
	}
}

// serveEvents is GET /api/events: the event stream of one page.
func (b *Bridge) serveEvents(w http.ResponseWriter, r *http.Request) {
	flusher, ok := w.(http.Flusher)
	if !ok {
		http.Error(w, "streaming unsupported", http.StatusInternalServerError)
		return
	}
	s, first := b.subscribe()
	defer b.unsubscribe(s)
	w.Header().Set("Content-Type", "text/event-stream")
	w.WriteHeader(http.StatusOK)
	for _, data := range first {
		writeEvent(w, data)
	}
	flusher.Flush()
	tick := time.NewTicker(heartbeat)
	defer tick.Stop()
	for {
		select {
		case <-r.Context().Done():
			return
		case <-s.dropped:
			return
		case data := <-s.ch:
			writeEvent(w, data)
			flusher.Flush()
		case <-tick.C:
			if _, err := w.Write([]byte(": ping\n\n")); err != nil {
				return
			}
			flusher.Flush()
		}
	}
}

// writeEvent writes one SSE event; JSON has no raw newlines, so one data
// line holds it.
func writeEvent(w http.ResponseWriter, data []byte) {
	_, _ = w.Write([]byte("data: "))
	_, _ = w.Write(data)
	_, _ = w.Write([]byte("\n\n"))
}

// callRequest is the body of POST /api/call.
type callRequest struct {
	Method string          `json:"method"`
	Params json.RawMessage `json:"params,omitempty"`
	// From names, on a run.start, the prompt (server:name) whose messages
	// the turn sends, for the transcript; it is not relayed.
	From string `json:"from,omitempty"`
}

// callAnswer is the answer to POST /api/call.
type callAnswer struct {
	Result json.RawMessage `json:"result,omitempty"`
	Error  *protocol.Error `json:"error,omitempty"`
}

// serveCall is POST /api/call: one protocol request of the page, relayed
// to the runtime; the answer is the runtime's result or error.
func (b *Bridge) serveCall(w http.ResponseWriter, r *http.Request) {
	var req callRequest
	if !decodeBody(w, r, &req) {
		return
	}
	if req.Method == "" || refusedMethods[req.Method] {
		writeJSON(w, callAnswer{Error: protocol.Errorf(protocol.CodeMethodNotFound, "the web page may not send %q", req.Method)})
		return
	}
	b.mu.Lock()
	conn := b.conn
	b.mu.Unlock()
	if conn == nil {
		writeJSON(w, callAnswer{Error: protocol.Errorf(protocol.CodeFailed, "the runtime is not connected yet")})
		return
	}
	var params any
	if len(req.Params) > 0 {
		params = req.Params
	}
	b.beforeCall(req)
	var result json.RawMessage
	err := conn.Call(r.Context(), req.Method, params, &result)
	var perr *protocol.Error
	switch {
	case err == nil:
		b.afterCall(req.Method, result)
		writeJSON(w, callAnswer{Result: result})
	case errors.As(err, &perr):
		writeJSON(w, callAnswer{Error: perr})
	default:
		writeJSON(w, callAnswer{Error: protocol.Errorf(protocol.CodeFailed, "%s: %v", req.Method, err)})
	}
}

// answerRequest is the body of POST /api/answer.
type answerRequest struct {
	ID int64 `json:"id"`
	pageAnswer
}

// serveAnswer is POST /api/answer: a page's answer to a runtime request.
func (b *Bridge) serveAnswer(w http.ResponseWriter, r *http.Request) {
	var req answerRequest
	if !decodeBody(w, r, &req) {
		return
	}
	b.mu.Lock()
	p, ok := b.pending[req.ID]
	delete(b.pending, req.ID)
	b.mu.Unlock()
	if !ok {
		http.Error(w, fmt.Sprintf("no request %d is waiting (it was answered or withdrawn)", req.ID), http.StatusNotFound)
		return
	}
	b.beforeAnswer(p.event, req.pageAnswer)
	p.answer <- req.pageAnswer
	w.WriteHeader(http.StatusNoContent)
}

// decodeBody reads a bounded JSON body; only application/json is taken
// (an HTML form cannot send it without a CORS preflight, which is never
// granted).
func decodeBody(w http.ResponseWriter, r *http.Request, v any) bool {
	mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if mt != "application/json" {
		http.Error(w, "want Content-Type application/json", http.StatusUnsupportedMediaType)
		return false
	}
	dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, maxCallBytes))
	if err := dec.Decode(v); err != nil {
		http.Error(w, "bad request body: "+err.Error(), http.StatusBadRequest)
		return false
	}
	return true
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(v)
}
