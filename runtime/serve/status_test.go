package serve

import (
	"testing"
	"time"

	"github.com/mcp-host/mcp-host/protocol"
	"github.com/mcp-host/mcp-host/runtime"
)

// TestReconnectMask: after mcp.reconnect (or a login or logout) a server
// shows connecting with 0 tools until the manager reports where the
// reconnect lands: the ready of a session whose handshake completed before
// the request, and a lazy server's cached catalog while it connects, are
// hidden; a session that completed its handshake after the request, or
// any other state, ends that.
func TestReconnectMask(t *testing.T) {
	asked := time.Now()
	old := asked.Add(-time.Second)
	newer := asked.Add(time.Millisecond)
	ready := func(at time.Time, tools int) runtime.Status {
		return runtime.Status{ID: "x", State: runtime.StateReady, Tools: tools, SessionID: "s1", LastConnectedAt: at, ConnectStartedAt: at.Add(-time.Microsecond)}
	}
	connecting := runtime.Status{ID: "x", State: runtime.StateConnecting, Tools: 15, Cached: true, LastConnectedAt: old}
	hidden := protocol.ServerStatus{ID: "x", State: "connecting", Status: "connecting", LastConnectedAt: old}
	type step struct {
		in   runtime.Status
		want protocol.ServerStatus
	}
	for _, tc := range []struct {
		name  string
		steps []step
	}{
		{"reconnect of a ready server", []step{
			{ready(old, 0), hidden},
			{connecting, hidden},
			{ready(old, 4), hidden}, // a report of the old session, late
			{ready(newer, 4), wireStatus(ready(newer, 4))},
			{connecting, wireStatus(connecting)}, // the mark is gone
		}},
		{"a logout that lands in auth_required", []step{
			{ready(old, 0), hidden},
			{runtime.Status{ID: "x", State: runtime.StateAuthRequired, LastConnectedAt: old}, protocol.ServerStatus{ID: "x", State: "auth_required", Status: "auth_required", LastConnectedAt: old}},
			{ready(old, 4), wireStatus(ready(old, 4))},
		}},
		{"a connect under way when asked: its handshake was before the request, its ready after", []step{
			{connecting, hidden},
			{ready(asked.Add(-time.Millisecond), 4), hidden},
			{ready(newer, 4), wireStatus(ready(newer, 4))},
		}},
		{"a connect begun before the request, its handshake after it: it used what the request replaces", []step{
			{connecting, hidden},
			{runtime.Status{ID: "x", State: runtime.StateReady, Tools: 4, SessionID: "s1", LastConnectedAt: newer, ConnectStartedAt: old}, hidden},
			{ready(newer.Add(time.Millisecond), 4), wireStatus(ready(newer.Add(time.Millisecond), 4))},
		}},
		{"an error ends it", []step{
			{connecting, hidden},
			{runtime.Status{ID: "x", State: runtime.StateError, LastError: "boom", LastConnectedAt: old}, protocol.ServerStatus{ID: "x", State: "error", Status: "error", LastError: "boom", LastConnectedAt: old}},
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := &service{reconnecting: map[string]time.Time{"x": asked}}
			for i, st := range tc.steps {
				got := s.wireStatus(st.in)
				if got.State != st.want.State || got.Tools != st.want.Tools || got.Cached != st.want.Cached || got.SessionID != st.want.SessionID {
					t.Fatalf("step %d: %s with %d tools (cached %v, session %q) shows as %s with %d tools (cached %v, session %q), want %s with %d (cached %v, session %q)",
						i, st.in.State, st.in.Tools, st.in.Cached, st.in.SessionID, got.State, got.Tools, got.Cached, got.SessionID, st.want.State, st.want.Tools, st.want.Cached, st.want.SessionID)
				}
			}
		})
	}
	// Unmarked servers show as they are.
	s := &service{reconnecting: map[string]time.Time{}}
	if got := s.wireStatus(ready(old, 4)); got.State != "ready" || got.Tools != 4 {
		t.Errorf("an unmarked ready server shows as %+v", got)
	}
}
