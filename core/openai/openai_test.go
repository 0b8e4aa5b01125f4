package openai_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/mcp-host/mcp-host/core"
	"github.com/mcp-host/mcp-host/core/openai"
)

func TestStreamText(t *testing.T) {
	s := newServer(t, sse(
		": keep-alive comment\n\n",
		chunk(`{"role":"assistant","content":""}`, ""),
		chunk(`{"content":"Hel"}`, ""),
		chunk(`{"content":"lo, wörld"}`, ""),
		chunk(`{}`, "stop"),
		"data: [DONE]\n\n",
	))
	p := s.provider(t, nil)
	resp, deltas, err := collect(t, p, userReq("hi"))
	if err != nil {
		t.Fatal(err)
	}
	if resp.Text != "Hello, wörld" || resp.FinishReason != core.FinishStop || len(resp.ToolCalls) != 0 {
		t.Errorf("resp = %+v", resp)
	}
	if strings.Join(deltas, "|") != "Hel|lo, wörld" {
		t.Errorf("deltas = %q", deltas)
	}
	body, h := s.body(0), s.header(0)
	if body["model"] != "test-model" || body["stream"] != true {
		t.Errorf("request body = %v", body)
	}
	if _, ok := body["tools"]; ok {
		t.Errorf("request without tools sent a tools field: %v", body["tools"])
	}
	msgs := body["messages"].([]any)
	if len(msgs) != 2 || msgs[0].(map[string]any)["role"] != "system" || msgs[1].(map[string]any)["content"] != "hi" {
		t.Errorf("messages = %v", msgs)
	}
	if got := h.Get("Authorization"); got != "Bearer "+testKey {
		t.Errorf("Authorization = %q", got)
	}
	if got := h.Get("Accept"); got != "text/event-stream" {
		t.Errorf("Accept = %q", got)
	}
}

// TestStreamToolCalls streams two tool calls the way OpenAI does: the first
// delta of each call carries its index, id and name with empty arguments, the
// arguments follow in pieces, the calls interleave, and the stream bytes are
// cut mid-line and mid-JSON.
func TestStreamToolCalls(t *testing.T) {
	stream := chunk(`{"role":"assistant","content":null,"tool_calls":[{"index":0,"id":"call_A","type":"function","function":{"name":"get_weather","arguments":""}}]}`, "") +
		chunk(`{"tool_calls":[{"index":0,"function":{"arguments":"{\"ci"}}]}`, "") +
		chunk(`{"tool_calls":[{"index":1,"id":"call_B","type":"function","function":{"name":"get_time","arguments":""}}]}`, "") +
		chunk(`{"tool_calls":[{"index":0,"function":{"arguments":"ty\": \"Par"}}]}`, "") +
		chunk(`{"tool_calls":[{"index":1,"function":{"arguments":"{\"tz\":\"CET\"}"}}]}`, "") +
		chunk(`{"tool_calls":[{"index":0,"function":{"arguments":"is\"}"}}]}`, "") +
		chunk(`{}`, "tool_calls") +
		"data: [DONE]\n\n"
	var frags []string
	for len(stream) > 0 { // 37-byte fragments cut lines and JSON anywhere
		n := min(37, len(stream))
		frags = append(frags, stream[:n])
		stream = stream[n:]
	}
	s := newServer(t, sse(frags...))
	resp, deltas, err := collect(t, s.provider(t, nil), userReq("weather and time?"))
	if err != nil {
		t.Fatal(err)
	}
	if len(deltas) != 0 || resp.Text != "" || resp.FinishReason != core.FinishToolCalls {
		t.Errorf("resp = %+v, deltas %q", resp, deltas)
	}
	want := []core.ToolCall{
		{ID: "call_A", Name: "get_weather", Args: json.RawMessage(`{"city": "Paris"}`)},
		{ID: "call_B", Name: "get_time", Args: json.RawMessage(`{"tz":"CET"}`)},
	}
	if fmt.Sprint(callsString(resp.ToolCalls)) != fmt.Sprint(callsString(want)) {
		t.Errorf("tool calls = %v, want %v", callsString(resp.ToolCalls), callsString(want))
	}
}

func callsString(cs []core.ToolCall) []string {
	var out []string
	for _, c := range cs {
		out = append(out, c.ID+" "+c.Name+" "+string(c.Args))
	}
	return out
}

// TestStreamToolCallsWithoutIndex covers servers that send each call whole
// in one delta, without an index, with arguments as an object.
func TestStreamToolCallsWithoutIndex(t *testing.T) {
	s := newServer(t, sse(
		chunk(`{"role":"assistant","content":"","tool_calls":[{"id":"call_1","function":{"name":"a","arguments":{"x":1}}},{"id":"call_2","function":{"name":"b","arguments":"{}"}}]}`, ""),
		chunk(`{"content":""}`, "tool_calls"),
		"data: [DONE]\n\n",
	))
	resp, _, err := collect(t, s.provider(t, nil), userReq("go"))
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(callsString(resp.ToolCalls), "; "); got != `call_1 a {"x":1}; call_2 b {}` {
		t.Errorf("tool calls = %s", got)
	}
}

func TestRequestEncoding(t *testing.T) {
	s := newServer(t, sse(chunk(`{"content":"ok"}`, "stop"), "data: [DONE]\n\n"))
	p := s.provider(t, func(o *openai.Options) {
		temp := 0.0
		o.Temperature = &temp
		o.Headers = map[string]string{"OpenAI-Organization": "org-1"}
	})
	req := core.Request{
		Messages: []core.Message{
			{Role: core.RoleUser, Content: "read it"},
			{Role: core.RoleAssistant, ToolCalls: []core.ToolCall{{ID: "c1", Name: "read", Args: json.RawMessage(`{"path":"a.txt"}`)}, {ID: "c2", Name: "list"}}},
			{Role: core.RoleTool, ToolCallID: "c1", ToolName: "read", Content: "contents"},
			{Role: core.RoleTool, ToolCallID: "c2", ToolName: "list", Result: core.ErrorResult("denied")},
		},
		Tools: []core.ToolDef{
			{Name: "read", Description: "reads a file", Parameters: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}`)},
			{Name: "list", Description: "lists"},
		},
	}
	if _, _, err := collect(t, p, req); err != nil {
		t.Fatal(err)
	}
	got, _ := json.Marshal(map[string]any{"messages": s.body(0)["messages"], "tools": s.body(0)["tools"], "temperature": s.body(0)["temperature"]})
	want := `{"messages":[` +
		`{"content":"read it","role":"user"},` +
		`{"content":null,"role":"assistant","tool_calls":[{"function":{"arguments":"{\"path\":\"a.txt\"}","name":"read"},"id":"c1","type":"function"},{"function":{"arguments":"{}","name":"list"},"id":"c2","type":"function"}]},` +
		`{"content":"contents","role":"tool","tool_call_id":"c1"},` +
		`{"content":"Error: denied","role":"tool","tool_call_id":"c2"}],` +
		`"temperature":0,` +
		`"tools":[{"function":{"description":"reads a file","name":"read","parameters":{"properties":{"path":{"type":"string"}},"required":["path"],"type":"object"}},"type":"function"},` +
		`{"function":{"description":"lists","name":"list","parameters":{"properties":{},"type":"object"}},"type":"function"}]}`
	if string(got) != want {
		t.Errorf("wire request:\n got %s\nwant %s", got, want)
	}
	if h := s.header(0).Get("OpenAI-Organization"); h != "org-1" {
		t.Errorf("extra header = %q", h)
	}
}

func TestHTTPErrors(t *testing.T) {
	for _, tc := range []struct {
		name    string
		handler http.HandlerFunc
		status  int
		want    []string
	}{
		{"openai 401 echoing the key", jsonAnswer(401, `{"error":{"message":"Incorrect API key provided: `+testKey+`. You can find your API key at https://platform.openai.com.","type":"invalid_request_error","param":null,"code":"invalid_api_key"}}`),
			401, []string{"401 Unauthorized", "Incorrect API key provided: [redacted]", "invalid_request_error", "invalid_api_key"}},
		{"ollama 404", jsonAnswer(404, `{"error":"model \"llama9\" not found, try pulling it first"}`),
			404, []string{"404 Not Found", `model "llama9" not found`}},
		{"vllm 400", jsonAnswer(400, `{"object":"error","message":"This model's maximum context length is 4096 tokens.","type":"BadRequestError","param":null,"code":400}`),
			400, []string{"400 Bad Request", "maximum context length is 4096"}},
		{"rate limit with numeric code", jsonAnswer(429, `{"error":{"message":"Rate limit reached","type":"requests","code":429}}`),
			429, []string{"429 Too Many Requests", "Rate limit reached", "code 429"}},
		{"plain text 502", func(w http.ResponseWriter, r *http.Request) {
			http.Error(w, "upstream connect error "+testKey, http.StatusBadGateway)
		},
			502, []string{"502 Bad Gateway", "upstream connect error [redacted]"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newServer(t, tc.handler)
			_, _, err := collect(t, s.provider(t, nil), userReq("hi"))
			if err == nil {
				t.Fatal("no error")
			}
			var he *openai.HTTPError
			if !errors.As(err, &he) || he.StatusCode != tc.status {
				t.Fatalf("err = %#v, want *HTTPError with status %d", err, tc.status)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not contain %q", err, w)
				}
			}
			if strings.Contains(err.Error(), testKey) || strings.Contains(fmt.Sprintf("%+v %#v", err, err), testKey) {
				t.Errorf("error leaks the API key: %q", err)
			}
			if !strings.Contains(err.Error(), s.srv.URL+"/v1/chat/completions") {
				t.Errorf("error does not name the endpoint: %q", err)
			}
		})
	}
}

func TestStreamFailures(t *testing.T) {
	for _, tc := range []struct {
		name    string
		handler http.HandlerFunc
		want    string
	}{
		{"error chunk", sse(chunk(`{"content":"par"}`, ""), `data: {"error":{"message":"The server is overloaded","type":"server_error"}}`+"\n\n"), "The server is overloaded"},
		{"error event", sse(chunk(`{"content":"par"}`, ""), "event: error\ndata: {\"error\":\"out of memory\"}\n\n"), "out of memory"},
		{"truncated", sse(chunk(`{"content":"par"}`, "")), "ended before the answer was complete"},
		{"garbage", sse("data: {not json\n\n"), "decode stream chunk"},
		{"call without name", sse(chunk(`{"tool_calls":[{"index":0,"id":"x","function":{"arguments":"{}"}}]}`, "tool_calls"), "data: [DONE]\n\n"), "has no function name"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newServer(t, tc.handler)
			_, _, err := collect(t, s.provider(t, nil), userReq("hi"))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want it to contain %q", err, tc.want)
			}
		})
	}
}

// TestFinishWithoutDone accepts a stream that ends after a finish_reason,
// without "[DONE]" and without a trailing blank line.
func TestFinishWithoutDone(t *testing.T) {
	last := strings.TrimSuffix(chunk(`{"content":"!"}`, "length"), "\n\n")
	s := newServer(t, sse(chunk(`{"content":"cut"}`, ""), last))
	resp, _, err := collect(t, s.provider(t, nil), userReq("hi"))
	if err != nil || resp.Text != "cut!" || resp.FinishReason != core.FinishLength {
		t.Fatalf("resp = %+v, err = %v", resp, err)
	}
}

func TestNonStreamedAnswer(t *testing.T) {
	answer := `{"id":"chatcmpl-9","object":"chat.completion","created":1,"model":"test-model","choices":[{"index":0,"message":{"role":"assistant","content":"Checking.","tool_calls":[{"id":"call_x","type":"function","function":{"name":"lookup","arguments":"{\"q\":\"go\"}"}},{"type":"function","function":{"name":"other","arguments":"{}"}}]},"finish_reason":"tool_calls"}],"usage":{"prompt_tokens":5,"completion_tokens":7,"total_tokens":12}}`
	t.Run("server ignores stream", func(t *testing.T) {
		s := newServer(t, jsonAnswer(200, answer))
		resp, deltas, err := collect(t, s.provider(t, nil), userReq("hi"))
		if err != nil {
			t.Fatal(err)
		}
		if resp.Text != "Checking." || strings.Join(deltas, "") != "Checking." || resp.FinishReason != core.FinishToolCalls {
			t.Errorf("resp = %+v, deltas %q", resp, deltas)
		}
		if got := strings.Join(callsString(resp.ToolCalls), "; "); got != `call_x lookup {"q":"go"};  other {}` {
			t.Errorf("tool calls = %s", got)
		}
	})
	t.Run("streaming disabled", func(t *testing.T) {
		s := newServer(t, jsonAnswer(200, answer))
		p := s.provider(t, func(o *openai.Options) { o.DisableStreaming = true })
		if _, _, err := collect(t, p, userReq("hi")); err != nil {
			t.Fatal(err)
		}
		if s.body(0)["stream"] != false {
			t.Errorf("stream = %v, want false", s.body(0)["stream"])
		}
	})
}

func TestCancelMidStream(t *testing.T) {
	unblock := make(chan struct{})
	defer close(unblock)
	s := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, chunk(`{"content":"partial"}`, ""))
		w.(http.Flusher).Flush()
		select {
		case <-r.Context().Done():
		case <-unblock:
		}
	})
	p := s.provider(t, nil)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	errc := make(chan error, 1)
	go func() {
		_, err := p.Stream(ctx, userReq("hi"), func(d core.Delta) {
			if d.Text == "partial" {
				cancel()
			}
		})
		errc <- err
	}()
	select {
	case err := <-errc:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("err = %v, want context.Canceled", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Stream did not return after cancellation")
	}
}

func TestNoKeyNoAuthorization(t *testing.T) {
	s := newServer(t, sse(chunk(`{"content":"hi"}`, "stop"), "data: [DONE]\n\n"))
	p, err := openai.New(openai.Options{BaseURL: s.srv.URL + "/v1", Model: "llama3.2"})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := collect(t, p, userReq("hi")); err != nil {
		t.Fatal(err)
	}
	if h, ok := s.header(0)["Authorization"]; ok {
		t.Errorf("Authorization sent without a key: %q", h)
	}
}

func TestNewErrors(t *testing.T) {
	t.Setenv("MCP_HOST_TEST_UNSET_KEY", "")
	for name, tc := range map[string]struct {
		opts openai.Options
		want string
	}{
		"no model":  {openai.Options{BaseURL: "http://127.0.0.1:1/v1"}, "no model"},
		"key unset": {openai.Options{Model: "m", APIKeyEnv: "MCP_HOST_TEST_UNSET_KEY"}, "MCP_HOST_TEST_UNSET_KEY is not set"},
		"bad url":   {openai.Options{Model: "m", BaseURL: "ftp://user:hunter2@example.com"}, "want an absolute http or https URL"},
		"relative":  {openai.Options{Model: "m", BaseURL: "/v1"}, "want an absolute"},
	} {
		_, err := openai.New(tc.opts)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err = %v, want %q", name, err, tc.want)
		}
		if err != nil && strings.Contains(err.Error(), "hunter2") {
			t.Errorf("%s: error leaks URL password: %v", name, err)
		}
	}
}

func TestKeyNeverPrinted(t *testing.T) {
	t.Setenv(keyEnv, testKey)
	p, err := openai.New(openai.Options{BaseURL: "http://127.0.0.1:9/v1", Model: "m", APIKeyEnv: keyEnv})
	if err != nil {
		t.Fatal(err)
	}
	for _, verb := range []string{"%v", "%+v", "%#v", "%s", "%d", "%x", "%q"} {
		if out := fmt.Sprintf(verb, p); strings.Contains(out, testKey) || strings.Contains(out, fmt.Sprintf("%x", testKey)) {
			t.Errorf("%s prints the key: %s", verb, out)
		}
	}
	if out := fmt.Sprintf("%+v", struct{ P *openai.Provider }{p}); strings.Contains(out, testKey) {
		t.Errorf("nested %%+v prints the key: %s", out)
	}
}

// TestRunThroughOpenAIProvider drives core.Run with this provider against the
// local server: a streamed tool call, then a streamed final answer.
func TestRunThroughOpenAIProvider(t *testing.T) {
	s := newServer(t,
		sse(chunk(`{"role":"assistant","tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"add","arguments":""}}]}`, ""),
			chunk(`{"tool_calls":[{"index":0,"function":{"arguments":"{\"a\":2,"}}]}`, ""),
			chunk(`{"tool_calls":[{"index":0,"function":{"arguments":"\"b\":3}"}}]}`, ""),
			chunk(`{}`, "tool_calls"), "data: [DONE]\n\n"),
		sse(chunk(`{"content":"2 + 3 = "}`, ""), chunk(`{"content":"5"}`, "stop"), "data: [DONE]\n\n"),
	)
	add := &addTool{}
	res, err := core.Run(context.Background(), core.RunOptions{
		Provider: s.provider(t, nil),
		Messages: []core.Message{{Role: core.RoleUser, Content: "2+3?"}},
		Tools:    []core.Tool{add},
	})
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != core.StatusCompleted || res.Text != "2 + 3 = 5" {
		t.Fatalf("result = %+v", res)
	}
	msgs := s.body(1)["messages"].([]any)
	last := msgs[len(msgs)-1].(map[string]any)
	if last["role"] != "tool" || last["tool_call_id"] != "call_1" || last["content"] != "5" {
		t.Errorf("tool result on the wire = %v", last)
	}
}

type addTool struct{}

func (addTool) Name() string        { return "add" }
func (addTool) Description() string { return "adds a and b" }
func (addTool) Schema() json.RawMessage {
	return json.RawMessage(`{"type":"object","properties":{"a":{"type":"number"},"b":{"type":"number"}}}`)
}
func (addTool) Call(ctx context.Context, args json.RawMessage) (*core.Result, error) {
	var v struct{ A, B float64 }
	if err := json.Unmarshal(args, &v); err != nil {
		return nil, fmt.Errorf("add: %w", err)
	}
	return core.TextResult(fmt.Sprint(v.A + v.B)), nil
}

// A user message whose parts hold an image or audio clip the API takes
// goes as content parts (its text first, naming every part); a part of
// another type stays named in the text only, and a message without such
// parts stays a string.
func TestUserPartsAsContentParts(t *testing.T) {
	s := newServer(t, sse(chunk(`{"content":"ok"}`, "stop"), "data: [DONE]\n\n"))
	p := s.provider(t, nil)
	parts := &core.Result{Content: []core.Content{
		{Type: core.ContentText, Text: "look"},
		{Type: core.ContentImage, MIMEType: "image/PNG", Data: []byte{1, 2, 3}},
		{Type: core.ContentImage, MIMEType: "image/svg+xml", Data: []byte("<svg/>")},
		{Type: core.ContentAudio, MIMEType: "audio/wav", Data: []byte{4}},
		{Type: core.ContentResource, URI: "x://r", MIMEType: "image/jpeg", Data: []byte{5}},
	}}
	req := core.Request{Messages: []core.Message{
		{Role: core.RoleUser, Content: core.RenderResult(parts), Result: parts},
		{Role: core.RoleAssistant, Content: "seen"},
		{Role: core.RoleUser, Content: "and now?", Result: &core.Result{Content: []core.Content{{Type: core.ContentText, Text: "and now?"}}}},
	}}
	if _, _, err := collect(t, p, req); err != nil {
		t.Fatal(err)
	}
	got, _ := json.Marshal(s.body(0)["messages"])
	want := `[{"content":[{"text":"look\n[image: image/PNG, 3 bytes]\n[image: image/svg+xml, 6 bytes]\n[audio: audio/wav, 1 bytes]\n[resource x://r: image/jpeg, 1 bytes]","type":"text"},` +
		`{"image_url":{"url":"data:image/png;base64,AQID"},"type":"image_url"},` +
		`{"input_audio":{"data":"BA==","format":"wav"},"type":"input_audio"},` +
		`{"image_url":{"url":"data:image/jpeg;base64,BQ=="},"type":"image_url"}],"role":"user"},` +
		`{"content":"seen","role":"assistant"},{"content":"and now?","role":"user"}]`
	if string(got) != want {
		t.Errorf("wire messages:\n got %s\nwant %s", got, want)
	}
}
