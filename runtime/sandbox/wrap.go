package sandbox

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
)

// LauncherArg is the hidden first argument that makes the host binary run
// [LauncherMain]: host __sandbox-exec <policy> <path> <argv...>.
const LauncherArg = "__sandbox-exec"

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

// Wrap rewrites cmd (built by exec.Command, not yet started) to run inside
// eff: on Linux through the launcherPath binary (the host itself), on
// macOS through sandbox-exec. TMPDIR points at eff's temporary directory.
// It returns the status to show; an error (wrapping [ErrRequired]) means
// the server must not start.
func Wrap(cmd *exec.Cmd, eff *Effective, launcherPath string) (Status, error) {
	if cmd.Err != nil {
		return Status{}, fmt.Errorf("sandbox: %w", cmd.Err)
	}
	if eff == nil {
		return Status{}, errors.New("sandbox: no policy")
	}
	st := Status{Summary: eff.Summary()}
	if eff.Off {
		st.State = StateOff
		return st, nil
	}
	if eff.TempDir != "" {
		setEnv(cmd, "TMPDIR", eff.TempDir)
	}
	state, detail, err := wrapOS(cmd, eff, launcherPath)
	st.State, st.Detail = state, detail
	if err != nil {
		return st, err
	}
	if state == StateUnavailable && eff.Required {
		return st, fmt.Errorf("%w: %s", ErrRequired, detail)
	}
	return st, nil
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

// encodeSpec and decodeSpec carry the effective policy to the launcher.
func encodeSpec(eff *Effective) (string, error) {
	b, err := json.Marshal(eff)
	if err != nil {
		return "", fmt.Errorf("sandbox: encoding the policy: %w", err)
	}
	return base64.RawURLEncoding.EncodeToString(b), nil
}

func decodeSpec(s string) (*Effective, error) {
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil {
		return nil, fmt.Errorf("sandbox: decoding the policy: %w", err)
	}
	var eff Effective
	if err := json.Unmarshal(b, &eff); err != nil {
		return nil, fmt.Errorf("sandbox: decoding the policy: %w", err)
	}
	return &eff, nil
}

// LauncherMain is the launcher: args are what follows [LauncherArg]
// (policy, executable path, argv). It applies the policy to itself and
// execs the server in its place, so the server keeps its pid and every
// child inherits the rules. It returns only on failure, with an exit
// code (126: refused or failed before the server ran).
func LauncherMain(args []string) int {
	if len(args) < 3 {
		fmt.Fprintln(os.Stderr, "sandbox launcher: want <policy> <path> <argv0> [args...]")
		return 126
	}
	eff, err := decodeSpec(args[0])
	if err != nil {
		fmt.Fprintf(os.Stderr, "sandbox launcher: %v\n", err)
		return 126
	}
	err = applyAndExec(eff, args[1], args[2:])
	fmt.Fprintf(os.Stderr, "%v\n", err)
	return 126
}
