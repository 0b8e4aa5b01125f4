package chat

import (
	"context"
	"fmt"
	"sort"
	"strings"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/mcp-host/mcp-host/protocol"
)

// A server a project file defines (or the organization's managed policy
// forces) waits in approval_required until the user approves exactly its
// definition (PROTOCOL.md, mcp.approve). The
// chat asks at start, and whenever such a server appears or its
// definition changes, one server at a time: [a]pprove, [d]eny or [l]ater.
// Later asks nothing more about that definition in this chat; /approve
// <id> and /deny <id> answer any time, and /mcp <id> shows the definition.
// The approval's fields arrive cleaned, like every status (cleanStatus).

// maxApprovalFields bounds the definition lines the question shows.
const maxApprovalFields = 12

// asksApproval reports whether st waits for an answer the user has not
// given: a project server never answered, or whose definition changed.
func asksApproval(st protocol.ServerStatus) bool {
	if st.State != protocol.StateApprovalRequired || st.Approval == nil {
		return false
	}
	return st.Approval.Decision == "unknown" || st.Approval.Decision == "changed"
}

// nextApproval opens the question about the first server (by id) that
// waits for an answer, unless one is open or the person answered that
// definition or said later to it (a status that still shows it unanswered
// may be older than the answer). An open question whose server no
// longer waits (answered elsewhere, removed) is closed.
func (m *Model) nextApproval() {
	if m.approving != "" {
		if st, ok := m.servers[m.approving]; ok && asksApproval(st) {
			return
		}
		m.approving = ""
	}
	ids := make([]string, 0, len(m.servers))
	for id, st := range m.servers {
		if asksApproval(st) && m.approvalLater[id] != st.Approval.Digest && m.approvalAnswered[id] != st.Approval.Digest {
			ids = append(ids, id)
		}
	}
	if len(ids) == 0 {
		return
	}
	sort.Strings(ids)
	m.approving = ids[0]
}

// approvalKey handles the single-key answers of the approval question.
func (m *Model) approvalKey(k tea.KeyMsg) tea.Cmd {
	id := m.approving
	st := m.servers[id]
	switch strings.ToLower(k.String()) {
	case "a":
		return m.sendApproval(id, true)
	case "d":
		return m.sendApproval(id, false)
	case "l", "esc":
		m.approvalLater[id] = st.Approval.Digest
		m.addLine(styleDim.Render(fmt.Sprintf("%s: not started; /approve %s or /deny %s when you have decided", id, id, id)))
		m.approving = ""
		m.nextApproval()
	}
	return nil
}

// sendApproval answers mcp.approve about the definition shown: the digest
// of the server's current status, which the question and /mcp <id> show.
func (m *Model) sendApproval(id string, approve bool) tea.Cmd {
	st, ok := m.servers[id]
	verb := map[bool]string{true: "approve", false: "deny"}[approve]
	if !ok || st.Approval == nil {
		m.addLine(styleErr.Render(fmt.Sprintf("/%s %s: no server %s that waits for approval", verb, id, id)))
		return nil
	}
	digest := st.Approval.Digest
	m.approvalAnswered[id] = digest
	if m.approving == id {
		m.approving = ""
	}
	m.nextApproval()
	return m.call("approve-"+id, verb+" "+id, callTimeout, func(ctx context.Context) (string, error) {
		_, err := m.rt.MCPApprove(ctx, &protocol.ApproveParams{ID: id, Approve: approve, Digest: digest})
		if err != nil {
			return "", err
		}
		if approve {
			return fmt.Sprintf("%s: approved; starting it (a changed definition asks again)", id), nil
		}
		return fmt.Sprintf("%s: denied; it stays off until its definition changes (/approve %s to change your mind)", id, id), nil
	})
}

// approvalDone is called when a call ended: a failed mcp.approve (the
// definition changed meanwhile, say) lets the question come back.
func (m *Model) approvalDone(key string, err error) {
	if id, ok := strings.CutPrefix(key, "approve-"); ok && err != nil {
		delete(m.approvalAnswered, id)
		m.nextApproval()
	}
}

// approvalView draws the approval question.
func (m *Model) approvalView() string {
	st := m.servers[m.approving]
	a := st.Approval
	var b strings.Builder
	who := "A project file defines it"
	if st.Source == "managed" {
		who = "Your organization's managed policy provides it"
	}
	fmt.Fprintf(&b, "Start server %s? %s: %s\n", st.ID, who, a.File)
	if a.Decision == "changed" {
		b.WriteString(styleWarn.Render("Its definition CHANGED since you answered.") + "\n")
	}
	b.WriteString("It would run (as the file says, not approved yet):\n")
	fields := a.Fields
	if len(fields) > maxApprovalFields {
		fields = append(fields[:maxApprovalFields:maxApprovalFields], fmt.Sprintf("… (%d more: /mcp %s)", len(a.Fields)-maxApprovalFields, st.ID))
	}
	for _, f := range fields {
		b.WriteString("  " + f + "\n")
	}
	for _, w := range st.Warnings {
		b.WriteString(styleWarn.Render("warning: "+w) + "\n")
	}
	b.WriteString("[a]pprove  [d]eny  [l]ater (asks nothing now; /approve " + st.ID + " or /deny " + st.ID + " any time)")
	return styleBox.Render(wrapHard(strings.TrimRight(b.String(), "\n"), m.width-4))
}

// renderApproval adds a server's approval and warnings to /mcp <id>.
func renderApproval(b *strings.Builder, st protocol.ServerStatus) {
	if a := st.Approval; a != nil {
		fmt.Fprintf(b, "%-18s %s (digest %s)\n", "approval:", a.Decision, truncate(a.Digest, 13))
		fmt.Fprintf(b, "%-18s %s\n", "defined in:", a.File)
		for _, f := range a.Fields {
			fmt.Fprintf(b, "%-18s %s\n", "definition:", f)
		}
		if a.Decision != "approved" {
			fmt.Fprintf(b, "%-18s /approve %s or /deny %s\n", "answer with:", st.ID, st.ID)
		}
	}
	for _, w := range st.Warnings {
		fmt.Fprintf(b, "%-18s %s\n", "warning:", w)
	}
}
