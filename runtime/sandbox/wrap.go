package sandbox

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
)

// States of a server's sandbox.
const (
	StateActive      = "active"
	StateUnavailable = "unavailable"
	StateOff         = "off"
	StateNone        = "not sandboxed"
	// StatePending: the server has not started yet; the summary says
	// what its policy will allow.
	StatePending = "pending"
)

// Status says whether and how a server runs confined.
type Status struct {
	// State is StateActive, StateUnavailable, StateOff, StateNone or
	// StatePending.
	State string `json:"state"`
	// Detail is the mechanism ("Landlock ABI 7") or why there is none.
	Detail string `json:"detail,omitempty"`
	// Summary is the effective policy in one line ([Effective.Summary]).
	Summary string `json:"summary,omitempty"`
	// Protections say, one line each, what this machine enforces of the
	// policy and what it does not ([Protections]).
	Protections []string `json:"protections,omitempty"`
}

// String is the status line: "sandbox: active (Landlock ABI 7)".
func (s Status) String() string {
	if s.State == "" {
		return ""
	}
	if s.Detail == "" {
		return "sandbox: " + s.State
	}
	return fmt.Sprintf("sandbox: %s (%s)", s.State, s.Detail)
}

// ErrRequired is wrapped by Wrap's error when a policy says "required"
// and the OS cannot enforce it: the server must not start.
var ErrRequired = errors.New("sandbox required but not available")

// Wrap prepares cmd (built by exec.Command, not yet started) to run
// inside eff and returns the function that starts it: on Linux, that
// function applies Landlock to a thread of the host that starts the
// server and then ends (see startConfined); on macOS cmd runs through
// sandbox-exec. TMPDIR points at eff's temporary directory. It returns the
// status to show; an error (wrapping [ErrRequired]) means the server must
// not start, and so may the start function's.
func Wrap(cmd *exec.Cmd, eff *Effective) (Status, func() error, error) {
	if cmd.Err != nil {
		return Status{}, nil, fmt.Errorf("sandbox: %w", cmd.Err)
	}
	if eff == nil {
		return Status{}, nil, errors.New("sandbox: no policy")
	}
	st := Status{Summary: eff.Summary(), Protections: Protections(eff)}
	if eff.Off {
		st.State = StateOff
		return st, cmd.Start, nil
	}
	if eff.TempDir != "" {
		setEnv(cmd, "TMPDIR", eff.TempDir)
	}
	ownSession(cmd)
	state, detail, start, err := wrapOS(cmd, eff)
	st.State, st.Detail = state, detail
	if err != nil {
		return st, nil, err
	}
	if state == StateUnavailable && eff.Required {
		return st, nil, fmt.Errorf("%w: %s", ErrRequired, detail)
	}
	if start == nil {
		start = cmd.Start
	}
	return st, start, nil
}

// setEnv sets name in cmd's environment (the host's when cmd has none).
func setEnv(cmd *exec.Cmd, name, value string) {
	if cmd.Env == nil {
		cmd.Env = os.Environ()
	}
	prefix := name + "="
	out := cmd.Env[:0:0]
	for _, kv := range cmd.Env {
		if !strings.HasPrefix(kv, prefix) {
			out = append(out, kv)
		}
	}
	cmd.Env = append(out, prefix+value)
}
