package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"sync"

	"github.com/mcp-host/mcp-host/core"
)

// scriptLogResultMax bounds each tool result a log line quotes: its first
// and last halves are kept.
const scriptLogResultMax = 8 << 10

// loggedModel records what each model call received (--script-log), so
// that a test can check what the model was given: the system messages
// whole, the tools' names, and the tool results that end the conversation
// (a longer one as its start and its end).
type loggedModel struct {
	next core.Provider
	path string
	mu   sync.Mutex
}

// scriptLogLine is one model call in the log.
type scriptLogLine struct {
	System  []string `json:"system"`
	Tools   []string `json:"tools"`
	Results []string `json:"results,omitempty"`
}

// Stream records req and calls the model.
func (m *loggedModel) Stream(ctx context.Context, req core.Request, onDelta func(core.Delta)) (*core.Response, error) {
	var l scriptLogLine
	for _, msg := range req.Messages {
		if msg.Role == core.RoleSystem {
			l.System = append(l.System, msg.Content)
		}
	}
	for _, t := range req.Tools {
		l.Tools = append(l.Tools, t.Name)
	}
	for i := len(req.Messages) - 1; i >= 0 && req.Messages[i].Role == core.RoleTool; i-- {
		c := req.Messages[i].Content
		if len(c) > scriptLogResultMax {
			c = c[:scriptLogResultMax/2] + "\n[…]\n" + c[len(c)-scriptLogResultMax/2:]
		}
		l.Results = append(l.Results, c)
	}
	if err := m.write(l); err != nil {
		return nil, fmt.Errorf("--script-log: %w", err)
	}
	return m.next.Stream(ctx, req, onDelta)
}

func (m *loggedModel) write(l scriptLogLine) error {
	data, err := json.Marshal(l)
	if err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	f, err := os.OpenFile(m.path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return err
	}
	if _, err := f.Write(append(data, '\n')); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
