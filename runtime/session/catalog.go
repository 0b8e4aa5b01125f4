package session

import (
	"context"
	"fmt"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// listTools walks every tools/list page of cs, each page within the request
// timeout, and stops with an error at the page cap, the tool cap or a
// repeated cursor. A server without the tools capability has no tools.
// Pages are read once, on the lean path (see leanlist.go) where the
// transport allows it: the tools' InputSchema and OutputSchema are then
// json.RawMessage, as the server sent them.
//
// The next page is asked for as soon as the transport has seen this page's
// nextCursor, before this page's tools are decoded: the server prepares
// page n+1 while the session reads page n, instead of each side waiting
// for the other (a catalog of 10,000 tools in ten pages). The cursor is
// checked against the page cap and the cycle guard before it is followed,
// and checked again against the page the SDK returns; a request that turns
// out not to be wanted is cancelled.
func (s *Session) listTools(ctx context.Context, cs *mcp.ClientSession, caps *mcp.ServerCapabilities) ([]*mcp.Tool, error) {
	if caps != nil && caps.Tools == nil {
		return nil, nil
	}
	var (
		tools  []*mcp.Tool
		seen   = make(map[string]bool) // cursors already followed
		names  = make(map[string]bool)
		cursor string
		next   *pageCall // asked for early; cancelled if it turns out unwanted
		sizes  = new(pageSizes)
	)
	defer func() { stopPage(next) }() // a no-op once it is done
	cur := s.askPage(ctx, cs, "", sizes)
	for page := 1; ; page++ {
		next = nil
		follow := func(c string) bool { return page < s.opts.MaxToolPages && c != cursor && !seen[c] }
		select {
		case c := <-cur.lc.next:
			if follow(c) {
				next = s.askPage(ctx, cs, c, sizes)
			}
		case <-cur.done:
		}
		<-cur.done
		res, err := cur.res, cur.err
		if err == nil {
			var pt []*mcp.Tool
			if pt, err = pageTools(cs, cur.cursor, res, cur.lc); err == nil {
				if tools == nil {
					tools = make([]*mcp.Tool, 0, len(pt))
				}
				before := len(tools)
				for _, t := range pt {
					if t == nil || names[t.Name] {
						s.opts.Logger.Warn("dropping duplicate or empty tool", "server", s.opts.ID, "page", page)
						continue
					}
					names[t.Name] = true
					tools = append(tools, t)
				}
				if s.opts.OnToolsPage != nil && len(tools) <= s.opts.MaxTools {
					s.opts.OnToolsPage(page == 1, tools[before:len(tools):len(tools)])
				}
			}
		}
		if next != nil && (err != nil || next.cursor != res.NextCursor) {
			next.stop()
			next = nil
		}
		switch {
		case err != nil:
			return nil, fmt.Errorf("tools/list page %d: %w", page, err)
		case len(tools) > s.opts.MaxTools:
			return nil, fmt.Errorf("tools/list: more than %d tools (tool cap)", s.opts.MaxTools)
		case res.NextCursor == "":
			return tools, nil
		case page >= s.opts.MaxToolPages:
			return nil, fmt.Errorf("tools/list: stopped after %d pages (page cap %d); the server keeps returning nextCursor", page, s.opts.MaxToolPages)
		case seen[res.NextCursor] || res.NextCursor == cursor:
			return nil, fmt.Errorf("tools/list: cursor %q repeated on page %d (pagination cycle)", truncate(res.NextCursor, 40), page)
		}
		seen[res.NextCursor] = true
		cursor = res.NextCursor
		if next == nil {
			next = s.askPage(ctx, cs, cursor, sizes)
		}
		cur = next
	}
}

// A pageCall is one tools/list request in flight.
type pageCall struct {
	cursor string
	lc     *listCapture
	stop   context.CancelFunc
	done   chan struct{} // closed when res and err are set
	res    *mcp.ListToolsResult
	err    error
}

// askPage sends the tools/list request for cursor, within the request
// timeout; sizes are the listing's.
func (s *Session) askPage(ctx context.Context, cs *mcp.ClientSession, cursor string, sizes *pageSizes) *pageCall {
	p := &pageCall{cursor: cursor, lc: newListCapture(sizes), done: make(chan struct{})}
	pctx, cancel := context.WithTimeout(withListCapture(ctx, p.lc), s.opts.RequestTimeout)
	p.stop = cancel
	go func() {
		defer close(p.done)
		defer cancel()
		p.res, p.err = cs.ListTools(pctx, &mcp.ListToolsParams{Cursor: cursor})
	}()
	return p
}

// stopPage cancels p, if there is one.
func stopPage(p *pageCall) {
	if p != nil {
		p.stop()
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
	wait := refreshGap - time.Since(s.lastRefresh)
	s.refreshMu.Unlock()
	go func() {
		// A server that keeps saying its list changed is listed at most
		// every refreshGap: its notifications cannot keep the host busy
		// listing (what arrives meanwhile makes one more list).
		time.Sleep(wait)
		for {
			s.refreshMu.Lock()
			s.lastRefresh = time.Now()
			s.refreshAgain = false // this list covers what came while it waited
			s.refreshMu.Unlock()
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
			wait := refreshGap - time.Since(s.lastRefresh)
			s.refreshMu.Unlock()
			time.Sleep(wait)
		}
	}()
}

// refreshGap is the least time between two lists of a server's tools
// that its list_changed notifications cause.
const refreshGap = 250 * time.Millisecond

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
