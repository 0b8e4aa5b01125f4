package runtime

import (
	"fmt"

	"github.com/mcp-host/mcp-host/runtime/approval"
	"github.com/mcp-host/mcp-host/runtime/config"
	"github.com/mcp-host/mcp-host/runtime/permission"
)

// approval looks up the user's answer about the server's definition (a
// project file's, or the managed policy's) and says what it means for the
// user.
func (sv *server) approval() (*ApprovalStatus, string) {
	e := &sv.entry
	def := e.Definition()
	st := &ApprovalStatus{File: e.DefinedPath, Digest: def.Digest(), Fields: def.Summary()}
	if sb := sv.sandboxPreview(); sb != nil {
		// What the policy allows, in words (the definition's "sandbox"
		// line, when there is one, is the file's text).
		st.Fields = append(st.Fields, "sandbox policy: "+sb.Summary)
	}
	dec := sv.m.opts.Approvals.Lookup(e.DefinedPath, e.ID, st.Digest)
	st.Decision = string(dec)
	how := fmt.Sprintf("approve it with `host mcp approve %s` or from the UI", e.ID)
	switch dec {
	case approval.Approved:
		return st, ""
	case approval.Denied:
		return st, fmt.Sprintf("not started: you denied this server from %s; %s", e.Origin(), how)
	case approval.Changed:
		return st, fmt.Sprintf("not started: its definition in %s changed since you answered; %s", e.Origin(), how)
	}
	return st, fmt.Sprintf("not started: %s defines this server and you have not approved it; %s", e.Origin(), how)
}

// awaitApproval holds a server that needs approval (a project's, or one
// the organization forces) until the user approved its definition. It reports false when the server is stopped meanwhile.
func (sv *server) awaitApproval() bool {
	for {
		st, msg := sv.approval()
		if st.Decision == string(approval.Approved) {
			sv.update(func(s *Status) { s.Approval, s.LastError = st, "" })
			return true
		}
		sv.update(func(s *Status) { s.State, s.Approval, s.LastError = StateApprovalRequired, st, msg })
		if !sv.wait(0) {
			return false
		}
	}
}

// Approve records the user's answer about a server a project file defines
// or the managed policy forces, pinned to digest (the definition the user was shown; "" means the
// current one, for callers that showed it just now). An approved server
// starts; a denied one stops and stays off until its definition changes or
// the user approves it.
func (m *Manager) Approve(id string, approve bool, digest string) error {
	sv, err := m.server(id)
	if err != nil {
		return err
	}
	e := sv.entry
	if !e.NeedsApproval() {
		if e.Forced() {
			return fmt.Errorf("server %q is provided and approved by the organization (managed policy %s, \"servers_preapproved\"): there is nothing to approve", id, e.DefinedPath)
		}
		return fmt.Errorf("server %q is defined by the %s config, not a project file: there is nothing to approve", id, e.DefinedIn)
	}
	current := e.Definition().Digest()
	if digest != "" && digest != current {
		return fmt.Errorf("server %q: its definition in %s changed since it was shown (digest %.12s…, now %.12s…); look at it again", id, e.DefinedPath, digest, current)
	}
	store := m.opts.Approvals
	if approve {
		err = store.Approve(e.DefinedPath, id, current)
	} else {
		err = store.Deny(e.DefinedPath, id, current)
	}
	if err != nil {
		return fmt.Errorf("server %q: %w", id, err)
	}
	m.restart(id)
	return nil
}

// Trusted reports "trust": true from the user's global config for id.
func (m *Manager) Trusted(id string) bool {
	sv, err := m.server(id)
	return err == nil && sv.entry.Trusted()
}

// AutoAllowReadOnly reports "auto_allow": "read_only" from the user's
// global config for id.
func (m *Manager) AutoAllowReadOnly(id string) bool {
	sv, err := m.server(id)
	return err == nil && sv.entry.AutoAllowReadOnly()
}

// Identity says who id stands for, for the permission gate: a fingerprint
// of the server's URL or command line (as written in the config), and
// whether the user's own configuration defines it.
func (m *Manager) Identity(id string) permission.Identity {
	sv, err := m.server(id)
	if err != nil {
		return permission.Identity{Key: "unknown"}
	}
	return IdentityOf(sv.entry)
}

// IdentityOf is the permission identity of a config entry: a fingerprint
// of its URL or command line as written, vouched for unless a project file
// defines it.
func IdentityOf(e config.ServerEntry) permission.Identity {
	c := &e.Config
	return permission.Identity{Key: permission.IdentityKey(c.URL, c.Command, c.Args), Vouched: !e.FromProject()}
}

// RecheckApprovals restarts the servers needing approval whose approval
// changed since they last looked (another process answered, or the
// approvals file was edited).
func (m *Manager) RecheckApprovals() {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return
	}
	for _, sv := range m.servers {
		if !sv.entry.NeedsApproval() || sv.entry.Err != nil || !sv.entry.Config.IsEnabled() {
			continue
		}
		now, _ := sv.approval()
		sv.mu.Lock()
		was := sv.status.Approval
		sv.mu.Unlock()
		if was == nil || was.Decision != now.Decision {
			m.replace(sv, sv.entry).start()
		}
	}
}
