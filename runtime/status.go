package runtime

import (
	"os/exec"
	"time"

	"github.com/mcp-host/mcp-host/redact"
	"github.com/mcp-host/mcp-host/runtime/adapter"
	"github.com/mcp-host/mcp-host/runtime/process"
	"github.com/mcp-host/mcp-host/runtime/sandbox"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// State is where a server is in its life.
type State string

// Server states.
const (
	StateDisabled     State = "disabled"
	StateConnecting   State = "connecting"
	StateAuthRequired State = "auth_required"
	StateReady        State = "ready"
	StateError        State = "error"
	// StateApprovalRequired: a project file defines the server and the
	// user has not approved this definition; it does not start.
	StateApprovalRequired State = "approval_required"
	// StateBlockedByPolicy: the organization's managed policy forbids
	// the server (see Status.Policy); it does not start.
	StateBlockedByPolicy State = "blocked_by_policy"
	// StateIdle: a server that starts on first use ("start": "lazy") is
	// not running; its kept catalog is offered (Status.Cached) and its
	// next use starts it.
	StateIdle State = "idle"
)

// PolicyStatus names the managed policy's rule that blocks a server.
type PolicyStatus struct {
	// File is the policy file.
	File string `json:"file"`
	// Rule is the rule, as the file writes it (deny[0] {"url": …}).
	Rule string `json:"rule"`
	// Reason says why it applies to this server.
	Reason string `json:"reason"`
}

// ApprovalStatus describes the approval of a server a project file
// defines (see package approval).
type ApprovalStatus struct {
	// Decision is approval.Unknown, Approved, Denied or Changed.
	Decision string `json:"decision"`
	// File is the project file that defines the server.
	File string `json:"file"`
	// Digest pins the definition; mcp.approve and host mcp approve answer
	// for this digest only.
	Digest string `json:"digest"`
	// Fields are the definition as "name: value" lines, the file's
	// literal text.
	Fields []string `json:"fields"`
}

// Status is a snapshot of one server, safe to show to a user: it never holds
// a header value, an environment value or a token.
type Status struct {
	ID        string `json:"id"`
	Transport string `json:"transport"`
	Source    string `json:"source"`
	Enabled   bool   `json:"enabled"`
	State     State  `json:"state"`
	Tools     int    `json:"tools"`
	// Cached reports that Tools (and ServerName, ServerVersion) come from
	// the catalog kept from the server's last run: it is not running.
	Cached bool `json:"cached,omitempty"`
	// ProtocolVersion, ServerName and ServerVersion come from the handshake.
	ProtocolVersion string `json:"protocol_version,omitempty"`
	ServerName      string `json:"server_name,omitempty"`
	ServerVersion   string `json:"server_version,omitempty"`
	SessionID       string `json:"session_id,omitempty"`
	// FellBackToSSE reports an http server reached over legacy SSE.
	FellBackToSSE   bool      `json:"fell_back_to_sse,omitempty"`
	LastError       string    `json:"last_error,omitempty"`
	LastConnectedAt time.Time `json:"last_connected_at,omitzero"`
	// ConnectStartedAt is when the connect attempt that led to this state
	// began: a ready whose attempt began before a reconnect was asked for
	// used what the reconnect replaces (the UI server hides it).
	ConnectStartedAt time.Time `json:"-"`
	// Attempts counts the server's failures in a row: connects that
	// failed and sessions that ended on their own before they had run for
	// MaxBackoff (a server that dies soon after each start backs off as
	// one that never starts). 0 while ready. docs/DESIGN.md, "Servers
	// that keep failing".
	Attempts int `json:"attempts,omitempty"`
	// NextRetryAt is when the next connect is due after a failure; zero
	// when none is scheduled (a lazy server's next use, a login or a
	// config change starts it).
	NextRetryAt time.Time `json:"next_retry_at,omitzero"`
	// Stderr is the kept tail of a stdio server's stderr: its live
	// session's or, while it has none, that of its last start that failed
	// (a process that exited during start or whose session ended on its
	// own), kept until its next successful start.
	Stderr string `json:"stderr,omitempty"`
	// ServerLog is the kept tail of the log messages the server sent
	// (notifications/message), one stripped line each.
	ServerLog string `json:"server_log,omitempty"`
	// Reinitialized counts transparent re-initializations.
	Reinitialized int `json:"reinitialized,omitempty"`
	// Auth describes the authorization state, when the server uses OAuth:
	// not logged in / token valid until … / refresh failed: … / resource
	// mismatch / registration rejected.
	Auth string `json:"auth,omitempty"`
	// AuthLoggedIn and AuthValidUntil say whether there is a token and
	// when the access token expires.
	AuthLoggedIn   bool      `json:"auth_logged_in,omitempty"`
	AuthValidUntil time.Time `json:"auth_valid_until,omitzero"`
	// AuthStorage names where tokens are kept.
	AuthStorage string `json:"auth_storage,omitempty"`
	// Approval is set for servers a project file defines.
	Approval *ApprovalStatus `json:"approval,omitempty"`
	// Policy is set when the managed policy blocks the server.
	Policy *PolicyStatus `json:"policy,omitempty"`
	// Warnings are problems that do not stop the server, such as a
	// project's "trust": true being ignored.
	Warnings []string `json:"warnings,omitempty"`
	// Sandbox is a stdio server's confinement: its state (active,
	// unavailable, off, not sandboxed) and policy summary.
	Sandbox *sandbox.Status `json:"sandbox,omitempty"`
}

func (sv *server) snapshot() Status {
	sv.mu.Lock()
	st := sv.status
	s := sv.sess
	failed := sv.stderr.failed
	sv.mu.Unlock()
	if failed != nil {
		st.Stderr = failed.String()
	}
	if cat := sv.cachedCatalog(); cat != nil {
		st.Tools, st.Cached = countSafe(sv.filter(cat.Tools)), true
		if st.ServerName == "" {
			st.ServerName, st.ServerVersion = cat.ServerName, cat.ServerVersion
		}
	}
	if s != nil {
		info := s.Info()
		st.Tools = countSafe(sv.filter(s.Tools()))
		st.SessionID = info.SessionID
		st.Reinitialized = info.Reinitialized
		st.Stderr = s.Stderr()
		st.ServerLog = s.ServerLog()
	}
	return st.redacted()
}

// stderrTail holds a stdio server's stderr tail when no session does:
// the tail process.Start keeps of each process (the one a live session
// shows, with its bound and the host's notes), taken as the process
// starts. [Status.Stderr] shows failed until the next successful start.
type stderrTail struct {
	last   *process.RingBuffer // of this connect attempt's process, if it started
	failed *process.RingBuffer // of the last start that failed
}

// keepStderr wraps a stdio server's WrapCommand (nil or the sandbox's) so
// that the start it returns first takes hold of the tail of the
// command's stderr: process.Start has set cmd.Stderr to it by then.
func (sv *server) keepStderr(wrap func(*exec.Cmd) (func() error, error)) func(*exec.Cmd) (func() error, error) {
	return func(cmd *exec.Cmd) (func() error, error) {
		start := cmd.Start
		if wrap != nil {
			wrapped, err := wrap(cmd)
			if err != nil {
				return nil, err
			}
			if wrapped != nil {
				start = wrapped
			}
		}
		return func() error {
			if tail, ok := cmd.Stderr.(*process.RingBuffer); ok {
				sv.mu.Lock()
				sv.stderr.last = tail
				sv.mu.Unlock()
			}
			return start()
		}, nil
	}
}

// keepFailedStderr keeps the tail of the connect attempt that just
// failed, in place of the last one's (none when no process started).
func (sv *server) keepFailedStderr() {
	sv.mu.Lock()
	sv.stderr.failed = sv.stderr.last
	sv.mu.Unlock()
}

// countSafe counts the tools a host offers: those whose names hold no
// control, escape, bidi or invisible character (see adapter.SafeName).
func countSafe(tools []*mcp.Tool) int {
	n := 0
	for _, t := range tools {
		if adapter.SafeName(t.Name) {
			n++
		}
	}
	return n
}

// redacted masks, in the fields that quote other code's words (errors,
// stderr), every secret the redactor knows: a dial error quoting a URL
// with an expanded ?api_key=${KEY} shows *** there.
func (st Status) redacted() Status {
	st.LastError = redact.String(st.LastError)
	st.Auth = redact.String(st.Auth)
	st.Stderr = redact.Registered(st.Stderr)
	st.ServerLog = redact.Registered(st.ServerLog)
	if len(st.Warnings) > 0 {
		w := make([]string, len(st.Warnings))
		for i, s := range st.Warnings {
			w[i] = redact.String(s)
		}
		st.Warnings = w
	}
	return st
}

// update changes the status under the lock and reports it. Reports of
// one server reach OnStatus in the order of the changes.
func (sv *server) update(change func(*Status)) {
	sv.deliver.Lock()
	defer sv.deliver.Unlock()
	sv.mu.Lock()
	change(&sv.status)
	sv.mu.Unlock()
	sv.m.broadcast()
	if sv.m.opts.OnStatus != nil {
		sv.m.opts.OnStatus(sv.snapshot())
	}
}
