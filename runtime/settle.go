package runtime

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
