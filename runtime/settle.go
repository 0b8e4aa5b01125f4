package runtime

import (
	"context"
	"time"
)

// settled reports whether none of the named servers (all when ids is
// empty) is connecting. It reads each server's state alone: WaitSettled
// used to take a full snapshot of every server (tool counts over whole
// catalogs, stderr and log tails) on every state change, which for n
// servers connecting at once is n² snapshots while they connect.
func (m *Manager) settled(ids []string) bool {
	m.mu.Lock()
	svs := make([]*server, 0, len(m.servers))
	for id, sv := range m.servers {
		if len(ids) == 0 || contains(ids, id) {
			svs = append(svs, sv)
		}
	}
	m.mu.Unlock()
	for _, sv := range svs {
		sv.mu.Lock()
		state := sv.status.State
		sv.mu.Unlock()
		if state == StateConnecting {
			return false
		}
	}
	return true
}

// statuses returns the snapshots of the named servers (all when ids is
// empty), sorted by id, and whether none of them is connecting.
func (m *Manager) statuses(ids []string) ([]Status, bool) {
	var out []Status
	settled := true
	for _, st := range m.List() {
		if len(ids) > 0 && !contains(ids, st.ID) {
			continue
		}
		out = append(out, st)
		if st.State == StateConnecting {
			settled = false
		}
	}
	return out, settled
}

// WaitRetry waits, for a server between two connect attempts (state
// error, its next attempt due at NextRetryAt), until that attempt has
// settled: the server is ready, or failed again (a later NextRetryAt), or
// is in any state but error and connecting. It returns the server's
// status then, or when ctx ends. A caller with a call to make waits for
// the attempt the backoff has already scheduled instead of failing at
// once, and never brings it forward (a crash-looping server keeps its
// backoff however often it is called).
func (m *Manager) WaitRetry(ctx context.Context, id string) (Status, error) {
	var due time.Time
	for {
		m.mu.Lock()
		changed := m.changed
		m.mu.Unlock()
		st, err := m.Get(id)
		if err != nil {
			return st, err
		}
		switch {
		case st.State == StateConnecting:
		case st.State != StateError:
			return st, nil
		case due.IsZero():
			if st.NextRetryAt.IsZero() {
				return st, nil // no attempt is scheduled: it waits for a fix
			}
			due = st.NextRetryAt
		case !st.NextRetryAt.Equal(due):
			return st, nil // the attempt failed: a new one is scheduled
		}
		select {
		case <-ctx.Done():
			return st, ctx.Err()
		case <-changed:
		}
	}
}
