package openai

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/mcp-host/mcp-host/core"
)

const (
	// maxEvent bounds one server-sent event (and one non-streamed answer).
	maxEvent = 16 << 20
	// maxErrorBody bounds how much of an error body is read.
	maxErrorBody = 64 << 10
	// maxErrorText bounds an unstructured error body shown in an error.
	maxErrorText = 512
)

func (p *Provider) httpError(resp *http.Response) error {
	body, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
	e := &HTTPError{URL: p.shown, StatusCode: resp.StatusCode, Status: resp.Status}
	e.Message, e.Type, e.Code = apiErrorMessage(body)
	if e.Message == "" && e.Type == "" {
		e.Message = strings.TrimSpace(shorten(string(body), maxErrorText))
	}
	e.Message, e.Type, e.Code = p.redact(e.Message), p.redact(e.Type), p.redact(e.Code)
	if e.Status == "" {
		e.Status = strconv.Itoa(resp.StatusCode)
	}
	return e
}

// assembler builds a response from streamed deltas.
type assembler struct {
	text    strings.Builder
	calls   []*partialCall
	byIndex map[int]*partialCall
	finish  string
}

type partialCall struct {
	id, name string
	args     strings.Builder
}

func (a *assembler) add(m *wireMessage, onDelta func(core.Delta)) {
	if m == nil {
		return
	}
	if m.Content != nil && *m.Content != "" {
		a.text.WriteString(*m.Content)
		if onDelta != nil {
			onDelta(core.Delta{Text: *m.Content})
		}
	}
	for _, tc := range m.ToolCalls {
		pc := a.callFor(tc)
		if pc.id == "" {
			pc.id = tc.ID
		}
		if pc.name == "" {
			pc.name = tc.Function.Name
		}
		pc.args.WriteString(argText(tc.Function.Arguments))
	}
}

// callFor finds the call a tool-call delta belongs to: by index when the
// server sends one (OpenAI, vLLM), else by ID, else a new call when the
// delta has an ID and the last call otherwise.
func (a *assembler) callFor(tc wireToolCall) *partialCall {
	if tc.Index != nil {
		if pc, ok := a.byIndex[*tc.Index]; ok {
			return pc
		}
		pc := &partialCall{}
		if a.byIndex == nil {
			a.byIndex = map[int]*partialCall{}
		}
		a.byIndex[*tc.Index] = pc
		a.calls = append(a.calls, pc)
		return pc
	}
	if tc.ID != "" {
		for _, pc := range a.calls {
			if pc.id == tc.ID {
				return pc
			}
		}
	}
	if tc.ID != "" || len(a.calls) == 0 {
		pc := &partialCall{}
		a.calls = append(a.calls, pc)
		return pc
	}
	return a.calls[len(a.calls)-1]
}

func (a *assembler) response() (*core.Response, error) {
	out := &core.Response{Text: a.text.String(), FinishReason: a.finish}
	for i, pc := range a.calls {
		if pc.name == "" {
			return nil, fmt.Errorf("tool call %d (id %q) has no function name", i, pc.id)
		}
		out.ToolCalls = append(out.ToolCalls, core.ToolCall{ID: pc.id, Name: pc.name, Args: json.RawMessage(pc.args.String())})
	}
	return out, nil
}

// readStream reads a server-sent event stream of chunks up to "[DONE]".
func (p *Provider) readStream(body io.Reader, onDelta func(core.Delta)) (*core.Response, error) {
	sc := bufio.NewScanner(body)
	sc.Buffer(make([]byte, 0, 64<<10), maxEvent)
	var (
		a         assembler
		data      bytes.Buffer
		hasData   bool
		eventName string
		done      bool
	)
	dispatch := func() error {
		defer func() { data.Reset(); hasData = false; eventName = "" }()
		if !hasData {
			return nil
		}
		payload := bytes.TrimSpace(data.Bytes())
		if string(payload) == "[DONE]" {
			done = true
			return nil
		}
		if len(payload) == 0 {
			return nil
		}
		if eventName == "error" {
			msg, _, _ := apiErrorMessage(payload)
			if msg == "" {
				msg = shorten(string(payload), maxErrorText)
			}
			return fmt.Errorf("server reported an error mid-stream: %s", p.redact(msg))
		}
		var c chunk
		if err := json.Unmarshal(payload, &c); err != nil {
			return fmt.Errorf("decode stream chunk %q: %w", shorten(string(payload), 200), err)
		}
		return p.apply(&a, &c, onDelta, true)
	}
	for !done && sc.Scan() {
		line := strings.TrimSuffix(sc.Text(), "\r")
		switch {
		case line == "":
			if err := dispatch(); err != nil {
				return nil, err
			}
		case strings.HasPrefix(line, ":"): // comment / keep-alive
		default:
			field, value, _ := strings.Cut(line, ":")
			value = strings.TrimPrefix(value, " ")
			switch field {
			case "data":
				if hasData {
					data.WriteByte('\n')
				}
				data.WriteString(value)
				hasData = true
			case "event":
				eventName = value
			}
		}
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return nil, fmt.Errorf("read stream: an event exceeds %d bytes", maxEvent)
		}
		return nil, fmt.Errorf("read stream: %w", err)
	}
	if !done {
		if err := dispatch(); err != nil { // a last event without its blank line
			return nil, err
		}
	}
	if !done && a.finish == "" {
		return nil, errors.New("read stream: the stream ended before the answer was complete (no finish_reason and no [DONE])")
	}
	return a.response()
}

// apply folds one chunk (or a whole answer) into a.
func (p *Provider) apply(a *assembler, c *chunk, onDelta func(core.Delta), streamed bool) error {
	if len(c.Error) > 0 && string(c.Error) != "null" {
		msg, typ, code, ok := errorObject(c.Error)
		if !ok {
			msg = shorten(string(c.Error), maxErrorText)
		}
		if typ != "" || code != "" {
			msg += fmt.Sprintf(" (type %q, code %q)", typ, code)
		}
		return fmt.Errorf("server reported an error: %s", p.redact(msg))
	}
	for _, ch := range c.Choices {
		if ch.Index != 0 {
			continue // only the first choice is used
		}
		if streamed {
			a.add(ch.Delta, onDelta)
		} else if ch.Message != nil {
			// A whole answer: every entry is its own call.
			for i := range ch.Message.ToolCalls {
				idx := i
				ch.Message.ToolCalls[i].Index = &idx
			}
			a.add(ch.Message, onDelta)
		}
		if ch.FinishReason != nil && *ch.FinishReason != "" {
			a.finish = *ch.FinishReason
		}
	}
	return nil
}

// readJSON reads a non-streamed answer.
func (p *Provider) readJSON(body io.Reader, onDelta func(core.Delta)) (*core.Response, error) {
	raw, err := io.ReadAll(io.LimitReader(body, maxEvent+1))
	if err != nil {
		return nil, fmt.Errorf("read answer: %w", err)
	}
	if len(raw) > maxEvent {
		return nil, fmt.Errorf("read answer: larger than %d bytes", maxEvent)
	}
	var c chunk
	if err := json.Unmarshal(raw, &c); err != nil {
		return nil, fmt.Errorf("decode answer %q: %w", shorten(string(raw), 200), err)
	}
	if len(c.Choices) == 0 && (len(c.Error) == 0 || string(c.Error) == "null") {
		return nil, errors.New("decode answer: no choices")
	}
	var a assembler
	if err := p.apply(&a, &c, onDelta, false); err != nil {
		return nil, err
	}
	return a.response()
}

// shorten cuts s to at most n bytes on a rune boundary.
func shorten(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}
