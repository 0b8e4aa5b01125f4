package confine

// Helper is the helper's file name; the host looks for it beside its
// own executable.
const Helper = "host-confine"

// The descriptors the helper is started with, after stdin, stdout and
// stderr.
const (
	// ControlFD is the helper's end of a SOCK_SEQPACKET pair: it reads
	// one [Plan], answers with a [Reply] (the supervisor's listener
	// passed along), and reports a failed exec on it; the exec closes it.
	ControlFD = 3
	// RulesetFD is the Landlock ruleset the host built.
	RulesetFD = 4
)

// MaxPlan bounds a plan's message (a SOCK_SEQPACKET message arrives
// whole or not at all): the host refuses a larger one before the start.
const MaxPlan = 128 << 10

// Plan is what the host asks of the helper, in JSON on the control socket.
type Plan struct {
	// Pins are directories bound over themselves, writable: a mount point
	// can be neither renamed nor removed, so a repository's .git stays
	// where its read-only parts are (a server could otherwise move .git
	// away and make a new one).
	Pins []string `json:"pins,omitempty"`
	// ReadOnly are files and directories bound read-only over themselves,
	// after the pins.
	ReadOnly []string `json:"read_only,omitempty"`
	// Env is the server's environment. The helper itself starts with an
	// empty one, so that nothing of the server's (GODEBUG, a loader
	// variable) reaches it before it is confined.
	Env []string `json:"env,omitempty"`
	// LandlockFlags are landlock_restrict_self's flags for RulesetFD.
	LandlockFlags uint32 `json:"landlock_flags"`
	// Filter is the seccomp program; Notify asks for its listener.
	Filter []Instruction `json:"filter"`
	Notify bool          `json:"notify,omitempty"`
}

// Instruction is one classic BPF instruction of a seccomp program (struct
// sock_filter).
type Instruction struct {
	Code uint16 `json:"c"`
	Jt   uint8  `json:"t,omitempty"`
	Jf   uint8  `json:"f,omitempty"`
	K    uint32 `json:"k,omitempty"`
}

// Reply is the helper's answer before it execs: Error when it could not
// confine itself (the server was not started). A listener, when asked
// for, travels with it as SCM_RIGHTS. After a Reply without an Error, a
// second one with Errno set means the exec failed.
type Reply struct {
	Error string `json:"error,omitempty"`
	Errno int    `json:"errno,omitempty"`
}
