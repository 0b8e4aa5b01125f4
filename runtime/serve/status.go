package serve

import (
	"context"
	"reflect"
	"time"

	"github.com/mcp-host/mcp-host/protocol"
	"github.com/mcp-host/mcp-host/runtime"
)

// onStatus is the manager's OnStatus: it reports a server's change to the
// UI once it has initialized. Reports of a server that has left the
// configuration (a late one from its closing goroutine) are dropped: the
// UI was told it is gone.
func (s *service) onStatus(st runtime.Status) {
	s.mu.Lock()
	ready := s.initialized
	s.mu.Unlock()
	if !ready {
		return
	}
	if _, err := s.m.Get(st.ID); err != nil {
		return
	}
	s.sendStatus(protocol.MCPStatusParams{Server: s.wireStatus(st)})
}

// wireStatus is the package's wireStatus, but a server whose reconnect the
// UI asked for (mcp.reconnect, mcp.login, mcp.logout) shows connecting with
// 0 tools from the answer on, until the manager reports where the
// reconnect lands (PROTOCOL.md, "mcp.reconnect"):
//   - "ready" of a session whose handshake completed before the request
//     shows as connecting: the request's reconnect closes it. (Its tools
//     are 0 while it closes; and a connect already under way when the
//     request came, its handshake done but its tools still being listed,
//     once made mcp.logout answer that session's "ready".)
//   - "connecting" shows without the catalog a lazy server keeps from its
//     last run (it would say 15 cached tools): the old session's tools
//     are gone;
//   - "ready" of a session that completed its handshake after the
//     request, or any other state, ends the mark.
func (s *service) wireStatus(st runtime.Status) protocol.ServerStatus {
	out := wireStatus(st)
	s.mu.Lock()
	defer s.mu.Unlock()
	asked, marked := s.reconnecting[st.ID]
	if !marked {
		return out
	}
	switch {
	case st.State == runtime.StateReady && (!st.LastConnectedAt.After(asked) || !st.ConnectStartedAt.IsZero() && st.ConnectStartedAt.Before(asked)),
		st.State == runtime.StateConnecting:
		out.State, out.Status, out.Tools, out.Cached, out.SessionID = protocol.StateConnecting, protocol.StateConnecting, 0, false, ""
	default:
		delete(s.reconnecting, st.ID)
	}
	return out
}

// markReconnecting makes id show connecting (see wireStatus) for a server
// that the request about to be made makes connect again: one that is
// ready, connecting, in error or waiting for a login (the states a poke
// moves); the mark holds the time of the request.
func (s *service) markReconnecting(id string) {
	st, err := s.m.Get(id)
	if err != nil {
		return
	}
	switch st.State {
	case runtime.StateReady, runtime.StateConnecting, runtime.StateError, runtime.StateAuthRequired:
	default:
		return
	}
	s.mu.Lock()
	s.reconnecting[id] = time.Now()
	s.mu.Unlock()
}

func (s *service) unmarkReconnecting(id string) {
	s.mu.Lock()
	delete(s.reconnecting, id)
	s.mu.Unlock()
}

// sendStatus queues an mcp.status. On the notification goroutine, in
// order: a status equal to the last one sent for the server is not sent
// again, and a removal carries the server's last reported status (its
// state and transport as the UI last saw them) with removed: true.
func (s *service) sendStatus(p protocol.MCPStatusParams) {
	s.enqueue(func() {
		id := p.Server.ID
		last, seen := s.lastSent[id]
		switch {
		case p.Removed:
			if seen {
				p.Server = last
			}
			delete(s.lastSent, id)
		case seen && reflect.DeepEqual(last, p.Server):
			return
		default:
			s.lastSent[id] = p.Server
		}
		s.ui.MCPStatus(context.Background(), &p)
	})
}

// seedStatuses records the statuses initialize answered with as sent, for
// servers with no notification sent yet, so that a removal right after
// initialize still says what the server was.
func (s *service) seedStatuses(sts []protocol.ServerStatus) {
	s.enqueue(func() {
		for _, st := range sts {
			if _, ok := s.lastSent[st.ID]; !ok {
				s.lastSent[st.ID] = st
			}
		}
	})
}
