package serve

import (
	"context"
	"sync"

	"github.com/mcp-host/mcp-host/protocol"
	"github.com/mcp-host/mcp-host/runtime/resultstore"
)

var _ protocol.ConversationServer = (*service)(nil)

// conversations holds what a conversation owns beside its history
// (service.convs): the scope of the tool results kept whole for it, which
// every run of the conversation keeps into and reads from, and its runs in
// progress. A conversation ends with conversation.end, when its first run
// ends without leaving a history (cancelled, say), or when the runtime
// shuts down (the store removes every kept result then); results older
// than a day are swept by the store even while their conversation lasts.
type conversations struct {
	mu     sync.Mutex
	scopes map[string]*resultstore.Scope
	runs   map[string]map[string]bool // conversation -> its runs in progress
	ended  map[string]bool
}

// init makes the maps; c.mu is held.
func (c *conversations) init() {
	if c.runs == nil {
		c.scopes, c.runs, c.ended = map[string]*resultstore.Scope{}, map[string]map[string]bool{}, map[string]bool{}
	}
}

// convBegin records run id of conversation conv and returns the
// conversation's scope of kept results (nil without a store).
func (s *service) convBegin(conv, id string) *resultstore.Scope {
	c := &s.conv
	c.mu.Lock()
	defer c.mu.Unlock()
	c.init()
	if c.runs[conv] == nil {
		c.runs[conv] = map[string]bool{}
	}
	c.runs[conv][id] = true
	sc := c.scopes[conv]
	if sc == nil && s.results != nil {
		sc = s.results.Scope()
		c.scopes[conv] = sc
	}
	return sc
}

// convEnded reports whether conversation.end ended conv: its run must not
// leave a history then. Called with s.mu held (the order is s.mu, then
// s.conv.mu).
func (s *service) convEnded(conv string) bool {
	s.conv.mu.Lock()
	defer s.conv.mu.Unlock()
	return s.conv.ended[conv]
}

// convRunEnded forgets run id of conv; a conversation left without a
// history (its first run was cancelled) ends with it.
func (s *service) convRunEnded(conv, id string) {
	s.mu.Lock()
	_, kept := s.convs[conv]
	s.mu.Unlock()
	c := &s.conv
	c.mu.Lock()
	delete(c.runs[conv], id)
	busy := len(c.runs[conv]) > 0
	if !busy {
		delete(c.runs, conv)
	}
	var sc *resultstore.Scope
	if !kept && !busy {
		sc = c.scopes[conv]
		delete(c.scopes, conv)
	}
	c.mu.Unlock()
	if sc != nil {
		sc.Close()
	}
}

// ConversationEnd ends a conversation: its history is forgotten, its run
// in progress cancelled, and the results kept for it removed.
func (s *service) ConversationEnd(_ context.Context, p *protocol.ConversationParams) (*protocol.Empty, error) {
	conv := p.Conversation
	c := &s.conv
	s.mu.Lock()
	c.mu.Lock()
	c.init()
	runs := c.runs[conv]
	ids := make([]string, 0, len(runs))
	for id := range runs {
		ids = append(ids, id)
	}
	_, kept := s.convs[conv]
	// An ended conversation whose cancelled run has not finished yet still
	// has that run on record: it is ended all the same.
	if c.ended[conv] || !kept && len(ids) == 0 {
		c.mu.Unlock()
		s.mu.Unlock()
		return nil, protocol.NewError(protocol.CodeInvalidParams, protocol.ErrorData{Field: "conversation"},
			"conversation.end: unknown conversation %q: pass a conversation run.start answered that has not ended", conv)
	}
	delete(s.convs, conv)
	var cancels []func()
	for _, id := range ids {
		if cancel := s.runs[id]; cancel != nil {
			cancels = append(cancels, cancel)
		}
	}
	c.ended[conv] = true
	sc := c.scopes[conv]
	delete(c.scopes, conv)
	c.mu.Unlock()
	s.mu.Unlock()
	for _, cancel := range cancels {
		cancel()
	}
	if sc != nil {
		sc.Close()
	}
	return &protocol.Empty{}, nil
}
