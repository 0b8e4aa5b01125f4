package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
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
// whole, the tools' names, the tool results that end the conversation
// (a longer one as its start and its end), and the parts of the last user
// message that carry data (images, audio, blobs), each by its type, size
// and SHA-256.
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
	// UserParts are the data parts of the last user message.
	UserParts []scriptLogPart `json:"user_parts,omitempty"`
}

// scriptLogPart is one data part of a user message.
type scriptLogPart struct {
	Type     string `json:"type"`
	MIMEType string `json:"mime_type,omitempty"`
	URI      string `json:"uri,omitempty"`
	Bytes    int    `json:"bytes"`
	SHA256   string `json:"sha256"`
}

// userParts returns the data parts of the last user message of msgs.
func userParts(msgs []core.Message) []scriptLogPart {
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Role != core.RoleUser {
			continue
		}
		if msgs[i].Result == nil {
			return nil
		}
		var out []scriptLogPart
		for _, c := range msgs[i].Result.Content {
			if len(c.Data) > 0 {
				sum := sha256.Sum256(c.Data)
				out = append(out, scriptLogPart{Type: c.Type, MIMEType: c.MIMEType, URI: c.URI, Bytes: len(c.Data), SHA256: hex.EncodeToString(sum[:])})
			}
		}
		return out
	}
	return nil
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
	l.UserParts = userParts(req.Messages)
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
