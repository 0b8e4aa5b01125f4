package web

import (
	"context"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mcp-host/mcp-host/protocol"
)

// take returns the next event of the stream, whatever its kind.
func take(t *testing.T, ch <-chan event) event {
	t.Helper()
	select {
	case e, ok := <-ch:
		if !ok {
			t.Fatal("the event stream ended")
		}
		return e
	case <-time.After(10 * time.Second):
		t.Fatal("no event")
	}
	return event{}
}

// conversationRuntime answers run.start and app.message in conversation
// c1, and conversation.end.
func conversationRuntime(_ context.Context, method string, _ json.RawMessage) (any, error) {
	switch method {
	case protocol.MethodRunStart, protocol.MethodAppMessage:
		return json.RawMessage(`{"run_id":"r1","conversation":"c1"}`), nil
	case protocol.MethodConversationEnd:
		return json.RawMessage(`{}`), nil
	}
	return nil, protocol.Errorf(protocol.CodeMethodNotFound, "no %s", method)
}

// A page that opens in the middle of a conversation gets it after its
// hello, in order: the user's message (with the prompt it came from), the
// run's events (a block's text deltas as one, progress left out), an app's
// message the user agreed to send, then the question still waiting; the
// hello names the conversation to continue. conversation.end empties it
// in every page.
func TestTranscriptReachesANewPage(t *testing.T) {
	s, rt := start(t, conversationRuntime)
	c := login(t, s)
	first := readEvents(t, s, c)
	next(t, first, "hello")
	call := do(t, "POST", base(s)+"/api/call", c, `{"method":"run.start","params":{"prompt":"","messages":[{"role":"user","content":{"type":"text","text":"<b>hi</b>"}}]},"from":"srv:greet"}`, nil)
	if call.StatusCode != http.StatusOK {
		t.Fatalf("run.start: %d", call.StatusCode)
	}
	for _, p := range []string{
		`{"run_id":"r1","type":"text_delta","step":1,"text":"Hello "}`,
		`{"run_id":"r1","type":"progress","step":1,"progress":{"progress":1}}`,
		`{"run_id":"r1","type":"text_delta","step":1,"text":"world"}`,
		`{"run_id":"r1","type":"tool_call","step":1,"call":{"id":"k1","public_name":"srv_x"}}`,
	} {
		if err := rt.conn.Notify(protocol.MethodAgentEvent, json.RawMessage(p)); err != nil {
			t.Fatal(err)
		}
	}
	if err := rt.conn.Notify(protocol.MethodRunStatus, json.RawMessage(`{"run_id":"r1","status":"completed"}`)); err != nil {
		t.Fatal(err)
	}
	// An app's message, agreed to: the user's, before its run.
	go func() {
		_ = rt.conn.Call(context.Background(), protocol.MethodUIConfirm, json.RawMessage(`{"kind":"app_message","title":"t","message":"m","options":["yes","no"],"timeout_ms":0,"app":{"id":"a1","server":"srv","tool":"x","text":"from the app"}}`), nil)
	}()
	req := next(t, first, "request")
	do(t, "POST", base(s)+"/api/answer", c, `{"id":`+strconv.FormatInt(req.ID, 10)+`,"result":{"answer":"yes"}}`, nil)
	next(t, first, "answered")
	// A question still waiting.
	go func() {
		_ = rt.conn.Call(context.Background(), protocol.MethodUIConfirm, &protocol.ConfirmParams{Kind: "tool_call", Title: "Allow srv/x?"}, nil)
	}()
	next(t, first, "request")

	second := readEvents(t, s, c)
	if h := take(t, second); h.Kind != "hello" || h.Conversation != "c1" || h.Dropped {
		t.Fatalf("the new page's first event: %+v; want a hello naming conversation c1", h)
	}
	want := []struct{ kind, has string }{
		{"user", `"messages"`},
		{"notification", `"text":"Hello world"`},
		{"notification", `"type":"tool_call"`},
		{"notification", `"status":"completed"`},
		{"user", ""},
		{"request", `Allow srv/x?`},
	}
	for i, w := range want {
		e := take(t, second)
		got := string(e.Params) + string(e.App)
		if e.Kind != w.kind || !strings.Contains(got, w.has) {
			t.Fatalf("the new page's event %d: %s %s; want %s with %s", i+1, e.Kind, got, w.kind, w.has)
		}
		if i == 0 {
			var p protocol.RunStartParams
			if err := json.Unmarshal(e.Params, &p); err != nil || len(p.Messages) != 1 || p.Messages[0].Content.Text != "<b>hi</b>" || e.From != "srv:greet" {
				t.Errorf("the user's message: %s from %q (%v); want the prompt's message from srv:greet", e.Params, e.From, err)
			}
		}
		if i == 4 && !strings.Contains(string(e.App), `"text":"from the app"`) {
			t.Errorf("the app's message: %s", e.App)
		}
	}

	// A new conversation: every page empties; a page opened after gets none.
	do(t, "POST", base(s)+"/api/call", c, `{"method":"conversation.end","params":{"conversation":"c1"}}`, nil)
	next(t, second, "cleared")
	third := readEvents(t, s, c)
	if h := take(t, third); h.Kind != "hello" || h.Conversation != "" {
		t.Fatalf("after conversation.end, a new page's hello: %+v", h)
	}
	if e := take(t, third); e.Kind != "request" {
		t.Errorf("after conversation.end, a new page got %s %s before the waiting question", e.Kind, e.Params)
	}
}

// The transcript keeps its bounds: the oldest turns go first, whole; a
// turn over the bound alone keeps its user's message and its newest
// events; the hello then says the beginning is missing.
func TestTranscriptIsBounded(t *testing.T) {
	defer func(b, n int) { maxTranscriptBytes, maxTranscriptTurns = b, n }(maxTranscriptBytes, maxTranscriptTurns)
	maxTranscriptBytes, maxTranscriptTurns = 2000, 2
	var tr transcript
	add := func(e event) {
		data, err := json.Marshal(e)
		if err != nil {
			t.Fatal(err)
		}
		tr.add(e, data)
	}
	status := func(run string) event {
		return event{Kind: "notification", Method: protocol.MethodRunStatus, Params: json.RawMessage(`{"run_id":"` + run + `","status":"completed"}`)}
	}
	for _, p := range []string{"one", "two", "three"} {
		add(event{Kind: "user", Params: json.RawMessage(`{"prompt":"` + p + `"}`)})
		add(status(p))
	}
	got := strings.Join(func() []string {
		var s []string
		for _, d := range tr.events() {
			s = append(s, string(d))
		}
		return s
	}(), "\n")
	if strings.Contains(got, `"one"`) || !strings.Contains(got, `"two"`) || !strings.Contains(got, `"three"`) || len(tr.events()) != 4 || !tr.dropped {
		t.Errorf("three turns kept to two:\n%s", got)
	}

	tr.reset()
	add(event{Kind: "user", Params: json.RawMessage(`{"prompt":"big"}`)})
	for i := range 10 {
		add(event{Kind: "notification", Method: protocol.MethodAgentEvent, Params: json.RawMessage(`{"run_id":"r","type":"tool_result","step":` + strconv.Itoa(i) + `,"result":{"content":[{"type":"text","text":"` + strings.Repeat("x", 300) + `"}]}}`)})
	}
	evs := tr.events()
	if tr.bytes > maxTranscriptBytes || !strings.Contains(string(evs[0]), `"big"`) || !strings.Contains(string(evs[len(evs)-1]), `"step":9`) || len(evs) >= 11 {
		t.Errorf("a turn over the bound: %d bytes in %d events, first %s", tr.bytes, len(evs), evs[0])
	}

	// Text deltas of one block count their text, not an event each.
	tr.reset()
	for range 1500 {
		add(event{Kind: "notification", Method: protocol.MethodAgentEvent, Params: json.RawMessage(`{"run_id":"r","type":"text_delta","step":1,"text":"a"}`)})
	}
	if evs := tr.events(); len(evs) != 1 || !strings.Contains(string(evs[0]), strings.Repeat("a", 1500)) || tr.dropped {
		t.Errorf("1500 one-letter deltas: %d events, dropped %v", len(evs), tr.dropped)
	}
}
