package session

import (
	"context"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// listTools walks every tools/list page of cs, each page within the request
// timeout, and stops with an error at the page cap, the tool cap or a
// repeated cursor. A server without the tools capability has no tools.
// Pages are read once, on the lean path (see leanlist.go) where the
// transport allows it: the tools' InputSchema and OutputSchema are then
// json.RawMessage, as the server sent them.
func (s *Session) listTools(ctx context.Context, cs *mcp.ClientSession, caps *mcp.ServerCapabilities) ([]*mcp.Tool, error) {
	if caps != nil && caps.Tools == nil {
		return nil, nil
	}
	var (
		tools  []*mcp.Tool
		seen   map[string]bool // cursors already followed
		names  = make(map[string]bool)
		cursor string
	)
	for page := 1; ; page++ {
		if page > s.opts.MaxToolPages {
			return nil, fmt.Errorf("tools/list: stopped after %d pages (page cap %d); the server keeps returning nextCursor", page-1, s.opts.MaxToolPages)
		}
		lc := new(listCapture)
		pctx, cancel := context.WithTimeout(withListCapture(ctx, lc), s.opts.RequestTimeout)
		res, err := cs.ListTools(pctx, &mcp.ListToolsParams{Cursor: cursor})
		cancel()
		if err != nil {
			return nil, fmt.Errorf("tools/list page %d: %w", page, err)
		}
		pageTools, err := pageTools(cs, cursor, res, lc)
		if err != nil {
			return nil, fmt.Errorf("tools/list page %d: %w", page, err)
		}
		if tools == nil {
			tools = make([]*mcp.Tool, 0, len(pageTools))
		}
		for _, t := range pageTools {
			if t == nil || names[t.Name] {
				s.opts.Logger.Warn("dropping duplicate or empty tool", "server", s.opts.ID, "page", page)
				continue
			}
			names[t.Name] = true
			tools = append(tools, t)
		}
		if len(tools) > s.opts.MaxTools {
			return nil, fmt.Errorf("tools/list: more than %d tools (tool cap)", s.opts.MaxTools)
		}
		if res.NextCursor == "" {
			return tools, nil
		}
		if seen == nil {
			seen = make(map[string]bool)
		}
		if seen[res.NextCursor] || res.NextCursor == cursor {
			return nil, fmt.Errorf("tools/list: cursor %q repeated on page %d (pagination cycle)", truncate(res.NextCursor, 40), page)
		}
		seen[res.NextCursor] = true
		cursor = res.NextCursor
	}
}

// RefreshTools lists the tools again and replaces the catalog. On error the
// previous catalog is kept.
func (s *Session) RefreshTools(ctx context.Context) ([]*mcp.Tool, error) {
	cs, gen, err := s.current()
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	caps := s.info.Capabilities
	s.mu.Unlock()
	tools, err := s.listTools(ctx, cs, caps)
	if err != nil {
		if isSessionMissing(err) {
			if rerr := s.reinit(ctx, gen); rerr == nil {
				return s.Tools(), nil // reinit listed them
			}
		}
		return nil, clean(fmt.Errorf("server %q: refresh tools: %w", s.opts.ID, err))
	}
	s.mu.Lock()
	if s.gen == gen {
		s.tools = tools
	}
	s.mu.Unlock()
	return tools, nil
}

// scheduleRefresh refreshes the catalog in the background, coalescing
// notifications that arrive while a refresh runs into one more refresh.
func (s *Session) scheduleRefresh() {
	s.mu.Lock()
	if s.cs == nil {
		// Still connecting: Connect refreshes once it is done.
		s.refreshPending = true
		s.mu.Unlock()
		return
	}
	s.mu.Unlock()
	s.refreshMu.Lock()
	if s.refreshing {
		s.refreshAgain = true
		s.refreshMu.Unlock()
		return
	}
	s.refreshing = true
	s.refreshMu.Unlock()
	go func() {
		for {
			ctx, cancel := context.WithTimeout(context.Background(), s.opts.ConnectTimeout)
			tools, err := s.RefreshTools(ctx)
			cancel()
			if s.opts.OnToolsChanged != nil {
				s.opts.OnToolsChanged(tools, err)
			}
			s.refreshMu.Lock()
			if !s.refreshAgain {
				s.refreshing = false
				s.refreshMu.Unlock()
				return
			}
			s.refreshAgain = false
			s.refreshMu.Unlock()
		}
	}()
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
